#!/usr/bin/env python3
"""Layout-header fuzzer: damaged header bytes must cost an error, not the server.

One leaf of an index of every layout (a table each) gets one byte set to
each of the given values, at each offset of the range, all indexes at
once while the server is stopped, their tables restored as they were
at setup; then each index is scanned forward, backward and by bitmap,
takes 300 inserts, is vacuumed and verified.
Prints the queries that crashed the server (or timed out): each is a
defect.  Point lookups (a nested loop over some keys of the page, saved
by setup) come first, since they take the layouts' probes.  Not part of
the test suite (minutes per range).

    headers.py setup                   initdb, build, save pristine files
    headers.py FIRST END VALUES [STEP] offsets [FIRST, END) of the page,
                                       every STEP-th (default 1), VALUES
                                       comma-separated: 0xff,0x00

Run as the postgres user.  Environment: HDR_DIR (default /tmp/hf),
HDR_PORT (5540), PG_BINDIR (/usr/lib/postgresql/15/bin), and for setup:
HDR_PAGE, the page damaged: leaf (default), inner (the first inner page
of each index), group (a leaf that is a subnode of a leaf group of 4),
group_inner (the first inner page of an index with leaf groups of 4),
side (a delta-area page holding runs of pending entries) or meta (the
metapage);
HDR_PRELOAD=0 to run without shared_preload_libraries (generic WAL, whose
changes are applied outside the critical section).  HDR_QUERIES: only the
named queries of a round (comma-separated: eq, items, stats, summ, groups,
runs, meta, idx, bwd, bmp, ins, vac, chk).  Used in session 74
with offsets 24-63 and 0xff,0x00,0x7f,0x80, then 24-99 and 0x01,0x40,0xfe,
in session 75 with the other pages and without preloading, and in
session 76 past offset 99 with point lookups, in session 77 on side
pages and the metapage, and in session 78 on inner pages without
preloading (400-8159, every 13th) and on leaves with 0x01,0x80 (100-8159,
every 17th), and in session 79 with the inspection functions' queries on
every kind of page (docs/decisions.md).
"""
import ast, os, shutil, subprocess, sys, time
BIN = os.environ.get('PG_BINDIR', '/usr/lib/postgresql/15/bin')
HD = os.environ.get('HDR_DIR', '/tmp/hf')
D = HD + '/data'; PORT = os.environ.get('HDR_PORT', '5540')
PAGE = os.environ.get('HDR_PAGE', 'leaf')
PRELOAD = os.environ.get('HDR_PRELOAD', '1') != '0'
QUERIES = [q for q in os.environ.get('HDR_QUERIES', '').split(',') if q]
HEAP_FORKS = ('', '_fsm', '_vm')
LAYOUTS = {
  'plain': ("(k) WITH (layout = plain)", 'k', 'plain'),
  'heads': ("(s)", 's', 'heads'),
  'dense': ("(k)", 'k', 'dense'),
  'sdl':   ("(k) INCLUDE (s)", 'k', 'semidense'),
  'bpa':   ("(s) WITH (layout = bpa)", 's', 'bpa'),
  'fp':    ("(s) WITH (layout = fingerprint)", 's', 'fingerprint'),
  'post':  ("((k / 5000))", 'k / 5000', 'posting'),
  'lists': ("((k / 20))", 'k / 20', 'lists'),
}
def sh(*a, **kw): return subprocess.run(list(a), capture_output=True, text=True, **kw)
def psql(sql, timeout=30):
    try:
        r = sh(f'{BIN}/psql', '-h', HD, '-p', PORT, '-d', 'postgres', '-At', '-v', 'ON_ERROR_STOP=1', input=sql, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 'TIMEOUT'
    if r.returncode == 0: return 'ok'
    e = r.stderr
    if 'connection to server was lost' in e or 'terminated abnormally' in e or 'server closed' in e: return 'CRASH'
    if 'recovery mode' in e or 'shutting down' in e or 'starting up' in e: return 'DOWN'
    return 'err:' + e.strip().split('\n')[0][:90]
def value(sql):
    return sh(f'{BIN}/psql', '-h', HD, '-p', PORT, '-d', 'postgres', '-At', '-c', sql).stdout.strip()
def start(): sh(f'{BIN}/pg_ctl', '-D', D, '-w', '-l', HD + '/log', 'start')
def stop():
    # a backend that hangs (a TIMEOUT) can keep a fast shutdown waiting
    if sh(f'{BIN}/pg_ctl', '-D', D, '-w', '-m', 'fast', 'stop').returncode != 0:
        sh(f'{BIN}/pg_ctl', '-D', D, '-w', '-m', 'immediate', 'stop')
def wait_up():
    for _ in range(120):
        if psql('SELECT 1') == 'ok': return
        time.sleep(0.5)
if sys.argv[1] == 'setup':
    os.makedirs(HD, exist_ok=True)
    shutil.rmtree(D, ignore_errors=True)
    sh(f'{BIN}/initdb', '-D', D, '--no-sync')
    preload = "shared_preload_libraries = 'pagebtree'\n" if PRELOAD else ''
    open(D + '/postgresql.conf', 'a').write(f"port = {PORT}\nunix_socket_directories = '{HD}'\nstatement_timeout = '20s'\nautovacuum = off\n{preload}restart_after_crash = on\nignore_checksum_failure = on\n")
    start()
    sql = 'CREATE EXTENSION pagebtree;\n'
    opt = {'group': 'leaf_group_size = 4', 'group_inner': 'leaf_group_size = 4',
           'side': 'delta = on',
           'meta': 'delta = on, leaf_group_size = 4'}.get(PAGE)
    for n, (defn, col, lay) in LAYOUTS.items():
        if opt:
            defn = defn[:-1] + f', {opt})' if 'WITH' in defn else defn + f' WITH ({opt})'
        sql += f"CREATE TABLE t_{n} (k int8, s text COLLATE \"C\");\nINSERT INTO t_{n} SELECT g, md5(g::text) FROM generate_series(1, 20000) g;\nCREATE INDEX i_{n} ON t_{n} USING pagebtree {defn};\nVACUUM t_{n};\n"
        if PAGE in ('side', 'meta'):
            # keys spread over the leaves, pending in their runs
            sql += f"SET pagebtree.delta_append_always = on;\nINSERT INTO t_{n} SELECT g * 37 % 20000 + 1, md5((-g)::text) FROM generate_series(1, 400) g;\nRESET pagebtree.delta_append_always;\n"
    r = sh(f'{BIN}/psql', '-h', HD, '-p', PORT, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', input=sql)
    print(r.stderr[-500:])
    info = {}
    # tree pages: the first block whose stats meet the condition
    which = {'leaf': "s.page_type = 'leaf' AND s.layout = '{lay}'",
             'inner': "s.page_type = 'inner'", 'group_inner': "s.page_type = 'inner'",
             'group': "s.page_type = 'leaf' AND s.layout = '{lay}' AND s.flags LIKE '%group=%'"}.get(PAGE)
    for n, (defn, col, lay) in LAYOUTS.items():
        if which:
            blk = value(f"SELECT min(b) FROM generate_series(1, pg_relation_size('i_{n}') / 8192 - 1) b, "
                        f"LATERAL pagebtree_page_stats('i_{n}', b) s WHERE {which.format(lay=lay)}")
        elif PAGE == 'side':
            blk = value(f"SELECT min(side_block) FROM pagebtree_runs('i_{n}') WHERE entries > 0")
        else:
            blk = '0'
        if not blk:
            print(n, 'has no such page: skipped')
            continue
        path = value(f"SELECT pg_relation_filepath('i_{n}')")
        heap = value(f"SELECT pg_relation_filepath('t_{n}')")
        info[n] = (int(blk), path, heap)
        print(n, blk, path)
        # some keys of the page (else the last rows inserted), for point lookups
        rows = (f"ctid IN (SELECT heap_tid FROM pagebtree_page_items('i_{n}', {blk}) WHERE heap_tid IS NOT NULL)"
                if which else f"true ORDER BY ctid DESC")
        open(f'{HD}/keys_{n}', 'w').write(value(
            f"SELECT string_agg('(' || quote_literal(c) || ')', ',') FROM (SELECT {col} AS c FROM t_{n} WHERE {rows} LIMIT 60) x"))
    stop()
    for n, (blk, path, heap) in info.items():
        shutil.copyfile(f'{D}/{path}', f'{HD}/pristine_{n}')
        for fork in HEAP_FORKS:
            if os.path.exists(f'{D}/{heap}{fork}'):
                shutil.copyfile(f'{D}/{heap}{fork}', f'{HD}/pristine_t_{n}{fork}')
    open(HD + '/info', 'w').write(repr(info))
    sys.exit(0)
info = ast.literal_eval(open(HD + '/info').read())
offs = range(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[4]) if len(sys.argv) > 4 else 1)
vals = [int(v, 0) for v in sys.argv[3].split(',')]
for off in offs:
    for val in vals:
        stop()
        for n, (blk, path, heap) in info.items():
            shutil.copyfile(f'{HD}/pristine_{n}', f'{D}/{path}')
            # the table as the index was saved, so that every round starts
            # with an index that matches its heap
            for fork in HEAP_FORKS:
                if os.path.exists(f'{HD}/pristine_t_{n}{fork}'):
                    shutil.copyfile(f'{HD}/pristine_t_{n}{fork}', f'{D}/{heap}{fork}')
                elif os.path.exists(f'{D}/{heap}{fork}'):
                    os.remove(f'{D}/{heap}{fork}')
            with open(f'{D}/{path}', 'r+b') as f:
                f.seek(blk * 8192 + off); f.write(bytes([val]))
        start(); wait_up()
        for n, (defn, col, lay) in LAYOUTS.items():
            if n not in info: continue
            qs = {
              # the inspection functions, which a DBA points at a damaged page
              'items': f"SELECT count(*), sum(length(data)) FROM pagebtree_page_items('i_{n}', {info[n][0]})",
              'stats': f"SELECT * FROM pagebtree_page_stats('i_{n}', {info[n][0]})",
              'summ': f"SELECT count(*) FROM pagebtree_layout_summary('i_{n}')",
              'groups': f"SELECT count(*) FROM pagebtree_groups('i_{n}')",
              'runs': f"SELECT count(*) FROM pagebtree_runs('i_{n}')",
              'meta': f"SELECT * FROM pagebtree_metapage('i_{n}')",
              'idx': f"SET enable_seqscan=off; SET enable_bitmapscan=off; SELECT count(*), sum(length(c::text)) FROM (SELECT {col} AS c FROM t_{n} ORDER BY {col}) x",
              'bwd': f"SET enable_seqscan=off; SET enable_bitmapscan=off; SELECT count(*) FROM (SELECT {col} FROM t_{n} ORDER BY {col} DESC) x",
              'bmp': f"SET enable_seqscan=off; SET enable_indexscan=off; SELECT count(*) FROM t_{n} WHERE {col} IS NOT NULL",
              'ins': f"INSERT INTO t_{n} SELECT g, md5(g::text) FROM generate_series(1, 300) g",
              'vac': f"DELETE FROM t_{n} WHERE k % 50 = 0; VACUUM t_{n}",
              'chk': f"SELECT pagebtree_check('i_{n}', true)",
            }
            keys = open(f'{HD}/keys_{n}').read().strip() if os.path.exists(f'{HD}/keys_{n}') else ''
            if keys:
                qs = {'eq': "SET enable_seqscan=off; SET enable_bitmapscan=off; SET enable_hashjoin=off; SET enable_mergejoin=off; "
                            f"SELECT count(*) FROM (VALUES {keys}) v(x) JOIN t_{n} ON {col} = v.x::{'text' if col == 's' else 'int8'}",
                      **qs}
            if QUERIES:
                qs = {q: sql for q, sql in qs.items() if q in QUERIES}
            res = []
            for q, sql in qs.items():
                c = psql(sql)
                if c in ('CRASH', 'DOWN', 'TIMEOUT'):
                    res.append(f'{q}:{c}')
                    wait_up()
            if res: print(off, hex(val), n, res, flush=True)
stop()
print('done')
