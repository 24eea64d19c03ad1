#!/usr/bin/env python3
"""Corruption fuzzer: damaged index pages must cost an error, not the server.

A throw-away cluster holds 22 pagebtree indexes (test/fuzz/setup.sql: every
layout, groups, the delta area, INCLUDE, unique, comparator keys).  Each
round damages one page of every index on disk while the server is stopped
(bytes flipped in the header, items, slots, special space or metapage, a
page zeroed, copied over another, two pages swapped, the file truncated),
starts the server, and runs the verifier, scans in both directions,
index-only, bitmap, point and = ANY lookups, an insert, VACUUM and the
inspection functions against the damaged index.  Each query's outcome is
classified: ok, err:SQLSTATE, WRONG (a result that differs from the
sequential scan's, recorded at setup), TIMEOUT (statement_timeout), HANG
(no answer even past statement_timeout: a backtrace is saved), CRASH,
PANIC, CONNLOST.  Trials with WRONG, HANG, TIMEOUT or CRASH keep the
damaged file under repro/.  A WRONG result that the verifier
(pagebtree_check(index, true)) did not report is a verifier gap; a HANG or
CRASH is a defect.  Not part of the test suite: a round takes a minute or
two, and its findings need reading.

    corrupt.py setup               initdb, build the indexes, record answers
    corrupt.py run SEED...         one round per seed (PRELOAD=0: without
                                   shared_preload_libraries)
    corrupt.py repro TRIAL QUERY   rerun one query on a trial's damaged file
    corrupt.py summary             counts, and verifier gaps

Environment: FUZZ_DIR (default /tmp/pagebtree-fuzz), FUZZ_PORT (5531),
PG_BINDIR (default: pg_config --bindir).  Run as the user that owns
FUZZ_DIR, not root; the server must have pagebtree installed.
"""
import collections
import csv
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

BASE = os.environ.get('FUZZ_DIR', '/tmp/pagebtree-fuzz')
PORT = os.environ.get('FUZZ_PORT', '5531')
BIN = os.environ.get('PG_BINDIR') or subprocess.run(
    ['pg_config', '--bindir'], capture_output=True, text=True).stdout.strip()
DATA = BASE + '/data'
LOG = BASE + '/server.log'
PRISTINE = BASE + '/pristine'
REPRO = BASE + '/repro'
RESULTS = BASE + '/results.jsonl'
HERE = os.path.dirname(os.path.abspath(__file__))

# per index: its table, ORDER BY columns, the column of point lookups and
# its type, INSERT ... of 300 rows ({t}: the table), columns an index-only
# scan returns
INSERT_INT = "INSERT INTO {t} SELECT (random()*1e12)::int8 FROM generate_series(1,300)"
INDEXES = {
    'i_heads': dict(table='t_heads', cols='k', keycol='k', ktype='int8', insert=INSERT_INT),
    'i_dense': dict(table='t_dense', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT g*97 FROM generate_series(1,300) g UNION ALL SELECT 200000+g FROM generate_series(1,100) g"),
    'i_plain': dict(table='t_plain', cols='k', keycol='k', ktype='int8', insert=INSERT_INT),
    'i_bpa': dict(table='t_bpa', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT (random()*1e9)::int8 FROM generate_series(1,300)"),
    'i_fp': dict(table='t_fp', cols='u', keycol='u', ktype='text', insert="INSERT INTO {t} SELECT 'https://www.example.com/articles/' || (random()*1000)::int || '/item-' || md5(random()::text) FROM generate_series(1,300)"),
    'i_url': dict(table='t_url', cols='u', keycol='u', ktype='text', insert="INSERT INTO {t} SELECT 'https://site' || (g%50) || '.example.org/path/to/page/' || (random()*1e6)::int FROM generate_series(1,300) g"),
    'i_short': dict(table='t_short', cols='s', keycol='s', ktype='text', insert="INSERT INTO {t} SELECT substr(md5(random()::text),1,1+(g%7)) FROM generate_series(1,300) g"),
    'i_comp': dict(table='t_comp', cols='a, b', keycol='a', ktype='int4', insert="INSERT INTO {t} SELECT (random()*500)::int4, 'v'||md5(random()::text) FROM generate_series(1,300)"),
    'i_uuid': dict(table='t_uuid', cols='u', keycol='u', ktype='uuid', insert="INSERT INTO {t} SELECT gen_random_uuid() FROM generate_series(1,300)"),
    'i_num': dict(table='t_num', cols='n', keycol='n', ktype='numeric', insert="INSERT INTO {t} SELECT round((random()*1e6)::numeric,3) FROM generate_series(1,300)"),
    'i_delta': dict(table='t_delta', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT (random()*1e10)::int8 FROM generate_series(1,300)"),
    'i_grp4': dict(table='t_grp4', cols='k', keycol='k', ktype='int8', insert=INSERT_INT),
    'i_grp16': dict(table='t_grp16', cols='k', keycol='k', ktype='int8', insert=INSERT_INT),
    'i_post': dict(table='t_post', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT g%12 FROM generate_series(1,300) g"),
    'i_lists': dict(table='t_lists', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT (random()*3100)::int8 FROM generate_series(1,300)"),
    'i_inc': dict(table='t_inc', cols='k', keycol='k', ktype='int8', ioscols='k, p', insert="INSERT INTO {t} SELECT 60000+g, 'px'||g FROM generate_series(1,300) g"),
    'i_uniq': dict(table='t_uniq', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT -(random()*1e15)::int8 FROM generate_series(1,300)"),
    'i_dedoff': dict(table='t_dedoff', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT (random()*1000)::int8 FROM generate_series(1,300)"),
    'i_gdelta': dict(table='t_gdelta', cols='k', keycol='k', ktype='int8', insert="INSERT INTO {t} SELECT (random()*1e10)::int8 FROM generate_series(1,300)"),
    'i_numinc': dict(table='t_numinc', cols='n', keycol='n', ktype='numeric', ioscols='n, s', insert="INSERT INTO {t} SELECT (random()*1e5)::numeric(12,2), md5(random()::text) FROM generate_series(1,300)"),
    'i_bpat': dict(table='t_bpat', cols='u', keycol='u', ktype='text', insert="INSERT INTO {t} SELECT 'https://www.example.com/' || (random()*100)::int || '/' || md5(random()::text) FROM generate_series(1,300)"),
    'i_compinc': dict(table='t_compinc', cols='a, b', keycol='a', ktype='int4', ioscols='a, b, c', insert="INSERT INTO {t} SELECT (random()*200)::int4, substr(md5(random()::text),1,6), -1 FROM generate_series(1,300)"),
}
# keys no row has, looked up too
ABSENT_KEYS = {'int8': ['-5', '123456789012345', '0'], 'int4': ['-5', '99999', '0'],
               'text': ['', 'zzz', 'https://nothere'],
               'uuid': ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
               'numeric': ['-1', '1e9', '0.5']}

SEQ = "-c enable_indexscan=off -c enable_bitmapscan=off -c enable_indexonlyscan=off -c enable_seqscan=on"
IDX = "-c enable_seqscan=off -c enable_bitmapscan=off -c enable_indexonlyscan=off -c enable_sort=off"
IOS = "-c enable_seqscan=off -c enable_bitmapscan=off -c enable_sort=off"
BMP = "-c enable_seqscan=off -c enable_indexscan=off -c enable_indexonlyscan=off"
CLIENT_TIMEOUT = 35             # seconds; statement_timeout is 20 s


def psql(sql, opts='', timeout=90, db='fz'):
    """(rc, stdout, stderr, timed out) of one psql run of sql (a list: -c each)"""
    cmd = [BIN + '/psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose',
           '-h', BASE, '-p', PORT, '-d', db]
    for s in (sql if isinstance(sql, list) else [sql]):
        cmd += ['-c', s]
    env = dict(os.environ, PGOPTIONS="-c statement_timeout=20s " + opts)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
        return p.returncode, p.stdout.strip(), p.stderr.strip(), False
    except subprocess.TimeoutExpired:
        return -1, '', 'CLIENT TIMEOUT', True


def query(sql, opts='', db='fz'):
    rc, out, err, _ = psql(sql, opts, db=db)
    if rc != 0:
        sys.exit(f"{sql}: {err}")
    return out


def pg_ctl(*args):
    return subprocess.run([BIN + '/pg_ctl', '-D', DATA, '-l', LOG, '-w', '-t', '120'] + list(args),
                          capture_output=True, text=True).returncode == 0


def start():
    return pg_ctl('start')


def set_preload():
    """preload the library unless PRELOAD=0 (from the next start on)"""
    preload = os.environ.get('PRELOAD', '1') == '1'
    with open(DATA + '/postgresql.auto.conf', 'w') as f:
        f.write(f"shared_preload_libraries = '{'pagebtree' if preload else ''}'\n")
    return preload


def shut_down_cleanly():
    out = subprocess.run([BIN + '/pg_controldata', DATA], capture_output=True, text=True,
                         env=dict(os.environ, LC_ALL='C')).stdout
    return re.search(r'^Database cluster state:\s+shut down$', out, re.M) is not None


def stop():
    """stop the server, and leave no WAL to replay over the files restored
    next: a fast stop can fail, and so can its shutdown checkpoint (a page
    whose damaged LSN is past the end of WAL, once dirty, makes the
    checkpointer exit), which pg_ctl does not report"""
    if not pg_ctl('-m', 'fast', 'stop'):
        pg_ctl('-m', 'immediate', 'stop')
    for _ in range(3):
        if shut_down_cleanly():
            return
        if start():
            wait_ready()
        if not pg_ctl('-m', 'fast', 'stop'):
            pg_ctl('-m', 'immediate', 'stop')
    print('the server did not shut down cleanly: replays may follow', flush=True)


def wait_ready(maxwait=120):
    t0 = time.time()
    while time.time() - t0 < maxwait:
        if psql('SELECT 1', timeout=20)[0] == 0:
            return True
        time.sleep(0.5)
    return False


def logsize():
    return os.path.getsize(LOG)


def logread(off):
    with open(LOG, 'rb') as f:
        f.seek(off)
        return f.read().decode('utf-8', 'replace')


def specs():
    return json.load(open(BASE + '/specs.json'))


def queries(s, blk):
    """(name, sql, planner options, result compared with the expected one)"""
    t, i, cols, kc = s['table'], s['index'], s['cols'], s['keycol']
    desc = ', '.join(c + ' DESC' for c in cols.split(', '))
    ioscols = s.get('ioscols', cols)
    lo, hi = s['range']
    blo, bhi = s['brange']
    arr = "ARRAY[" + ','.join(s['keys']) + "]::" + s['ktype'] + "[]"
    ordered = "SELECT count(*), md5(string_agg(x, ',')), sum(h) FROM (SELECT ROW({cols})::text x, hashtext(t::text)::int8 h FROM {t} t {where} ORDER BY {order}) s"
    ios = "SELECT count(*), md5(string_agg(k, ',')), sum(hashtext(x)::int8) FROM (SELECT ROW({cols})::text k, ROW({ioscols})::text x FROM {t} t ORDER BY {order}) s"
    between = f"WHERE {kc} BETWEEN {lo} AND {hi}"
    return [
        ('check_f', f"SELECT pagebtree_check('{i}'::regclass, false)", '', False),
        ('check_t', f"SELECT pagebtree_check('{i}'::regclass, true)", '', False),
        ('fwd', ordered.format(cols=cols, t=t, where='', order=cols), IDX, True),
        ('bwd', ordered.format(cols=cols, t=t, where='', order=desc), IDX, True),
        ('ios', ios.format(cols=cols, ioscols=ioscols, t=t, order=cols), IOS, True),
        ('iosb', ios.format(cols=cols, ioscols=ioscols, t=t, order=desc), IOS, True),
        ('point', f"SELECT count(*), sum(hashtext(t::text)::int8) FROM unnest({arr}) v, LATERAL (SELECT * FROM {t} t WHERE {kc} = v) t", IDX, True),
        ('anyarr', f"SELECT count(*), sum(hashtext(t::text)::int8) FROM {t} t WHERE {kc} = ANY({arr})", IDX, True),
        ('range', ordered.format(cols=cols, t=t, where=between, order=cols), IDX, True),
        ('rangeb', ordered.format(cols=cols, t=t, where=between, order=desc), IDX, True),
        ('bitmap', f"SELECT count(*), sum(hashtext(t::text)::int8) FROM {t} t WHERE {kc} BETWEEN {blo} AND {bhi}", BMP, True),
        ('insert', ["BEGIN", s['insert'], "ROLLBACK"], '', False),
        ('insert_c', [s['insert']], '', False),
        ('vacuum', f"VACUUM (INDEX_CLEANUP ON) {t}", '', False),
        ('meta', f"SELECT * FROM pagebtree_metapage('{i}')", '', False),
        ('summary', f"SELECT count(*) FROM pagebtree_layout_summary('{i}')", '', False),
        ('stats', f"SELECT count(*) FROM generate_series(0, pg_relation_size('{i}')/8192 - 1) b, LATERAL pagebtree_page_stats('{i}', b)", '', False),
        ('items', f"SELECT count(*), sum(length(data)) FROM pagebtree_page_items('{i}', {blk})", '', False),
        ('items_all', f"SELECT count(*) FROM generate_series(1, pg_relation_size('{i}')/8192 - 1) b, LATERAL pagebtree_page_items('{i}', b)", '', False),
        ('runs', f"SELECT count(*), sum(entries) FROM pagebtree_runs('{i}')", '', False),
        ('groups', f"SELECT count(*), sum(items) FROM pagebtree_groups('{i}')", '', False),
        ('check_t2', f"SELECT pagebtree_check('{i}'::regclass, true)", '', False),
    ]


def setup():
    if os.path.exists(DATA):
        sys.exit(f"{DATA} exists; remove {BASE} first")
    os.makedirs(BASE, exist_ok=True)
    subprocess.run([BIN + '/initdb', '-D', DATA, '--no-sync', '-A', 'trust'],
                   check=True, capture_output=True)
    with open(DATA + '/postgresql.conf', 'a') as f:
        f.write(f"""port = {PORT}
unix_socket_directories = '{BASE}'
listen_addresses = ''
shared_buffers = 64MB
max_connections = 6
superuser_reserved_connections = 1
log_line_prefix = '%m [%p] '
autovacuum = off
fsync = off
""")
    set_preload()
    if not start():
        sys.exit(f"the server did not start: {LOG}")
    query("CREATE DATABASE fz", db='postgres')
    subprocess.run([BIN + '/psql', '-X', '-q', '-h', BASE, '-p', PORT, '-d', 'fz',
                    '-f', HERE + '/setup.sql'], check=True, capture_output=True)
    S = {}
    for n, spec in INDEXES.items():
        s = dict(spec, index=n)
        t, kc = s['table'], s['keycol']
        s['insert'] = s['insert'].format(t=t)
        lit = (lambda v: v) if s['ktype'] in ('int8', 'int4') else (lambda v: "'" + v.replace("'", "''") + "'")
        present = query(f"SELECT {kc} FROM (SELECT {kc} FROM {t} ORDER BY random() LIMIT 150) x").split('\n')
        s['keys'] = [lit(v) for v in present + ABSENT_KEYS[s['ktype']]]
        quantiles = query(f"SELECT percentile_disc(ARRAY[0.30,0.36,0.10,0.60]) WITHIN GROUP (ORDER BY {kc}) FROM {t}")
        q = [lit(v) for v in next(csv.reader([quantiles.strip('{}')]))]
        s['range'], s['brange'] = q[0:2], q[2:4]
        s['files'] = [query(f"SELECT pg_relation_filepath('{t}')"), query(f"SELECT pg_relation_filepath('{n}')")]
        s['ifile'] = s['files'][1]
        pages = query(f"SELECT b, coalesce(s.page_type,''), coalesce(s.layout,''), coalesce(s.flags,'') FROM generate_series(0, pg_relation_size('{n}')/8192-1) b, LATERAL pagebtree_page_stats('{n}', b) s")
        s['pages'] = [[int(l.split('|')[0])] + l.split('|')[1:] for l in pages.split('\n')] if pages else []
        S[n] = s
    json.dump(S, open(BASE + '/specs.json', 'w'), indent=1)
    # the answers, from sequential scans; the intact index must agree
    expected = {}
    for n, s in S.items():
        expected[n] = {}
        for name, sql, opts, compared in queries(s, 1):
            if not compared:
                continue
            expected[n][name] = query(sql, SEQ)
            if query(sql, opts) != expected[n][name]:
                sys.exit(f"{n} {name}: the intact index disagrees with the table")
            if n not in query('EXPLAIN ' + sql, opts):
                sys.exit(f"{n} {name}: the index is not used")
        query(f"SELECT pagebtree_check('{n}'::regclass, true)")
    json.dump(expected, open(BASE + '/expected.json', 'w'), indent=1)
    stop()
    os.makedirs(PRISTINE, exist_ok=True)
    for s in S.values():
        for rel in s['files']:
            for fork in ('', '_fsm', '_vm'):
                if os.path.exists(f"{DATA}/{rel}{fork}"):
                    shutil.copyfile(f"{DATA}/{rel}{fork}", f"{PRISTINE}/{rel.replace('/', '_')}{fork}")
    print(f"{len(S)} indexes in {BASE}")


def restore(s):
    for rel in s['files']:
        for fork in ('', '_fsm', '_vm'):
            src = f"{PRISTINE}/{rel.replace('/', '_')}{fork}"
            dst = f"{DATA}/{rel}{fork}"
            if os.path.exists(src):
                shutil.copyfile(src, dst)
            elif os.path.exists(dst):
                os.unlink(dst)


def corrupt(s, rng):
    """damage the index file of s; returns what was done"""
    path = f"{DATA}/{s['ifile']}"
    nb = os.path.getsize(path) // 8192
    pages = s['pages']          # [block, page type, layout, flags]
    kind = rng.choice(['flip_any', 'flip_hdr', 'flip_special', 'flip_items', 'flip_slots', 'flip_meta',
                       'flip_typed', 'flip_typed', 'zero', 'copy', 'swap', 'truncate'])
    desc = dict(kind=kind, nblocks=nb)
    with open(path, 'r+b') as f:
        def read_block(b):
            f.seek(b * 8192)
            return bytearray(f.read(8192))

        def write_block(b, d):
            f.seek(b * 8192)
            f.write(d)

        def two_blocks():
            a = rng.randrange(0, nb)
            b = rng.randrange(0, nb)
            while b == a and nb > 1:
                b = rng.randrange(0, nb)
            return a, b

        if kind.startswith('flip'):
            if kind == 'flip_meta':
                blk = 0
            elif kind == 'flip_typed':
                # half the time a page that is not a plain leaf: inner, side, group
                cand = [p for p in pages if p[1] != 'leaf'] or pages
                blk = rng.choice(pages if rng.random() < 0.5 else cand)[0]
            else:
                blk = rng.randrange(1, nb) if nb > 1 else 0
            d = read_block(blk)
            lower = int.from_bytes(d[12:14], 'little')
            upper = int.from_bytes(d[14:16], 'little')
            special = int.from_bytes(d[16:18], 'little')
            if not (24 <= lower <= upper <= special <= 8192):
                lower, upper, special = 24, 8000, 8160
            region = {'flip_hdr': (0, 24), 'flip_special': (special, 8192), 'flip_items': (upper, special),
                      'flip_slots': (24, max(lower, 25)), 'flip_meta': (0, max(lower, 64))}.get(kind, (0, 8192))
            if region[1] <= region[0]:
                region = (0, 8192)
            n = rng.randint(1, 8)
            if rng.random() < 0.4:      # a run of bytes, else scattered ones
                first = rng.randrange(*region)
                offs = [min(first + j, 8191) for j in range(n)]
            else:
                offs = [rng.randrange(*region) for _ in range(n)]
            changes = []
            for o in sorted(set(offs)):
                old = d[o]
                if rng.random() < 0.3:
                    new = rng.choice([0, 0xff, 0x7f, 0x80, 0x01])
                    if new == old:
                        new = old ^ 0xff
                else:
                    new = old ^ rng.randint(1, 255)
                d[o] = new
                changes.append([o, old, new])
            write_block(blk, d)
            desc.update(blk=blk, changes=changes)
        elif kind == 'zero':
            blk = rng.randrange(0, nb)
            write_block(blk, bytearray(8192))
            desc.update(blk=blk)
        elif kind == 'copy':
            a, b = two_blocks()
            write_block(b, read_block(a))
            desc.update(src=a, blk=b)
        elif kind == 'swap':
            a, b = two_blocks()
            da, db = read_block(a), read_block(b)
            write_block(a, db)
            write_block(b, da)
            desc.update(blk=a, blk2=b)
        else:
            f.truncate((nb - 1) * 8192)
            desc.update(blk=nb - 1)
    desc['ptype'] = next((p for p in pages if p[0] == desc['blk']), None)
    return desc


def hang_diag(trial, qname):
    """backtrace of the stuck backend, then end it"""
    out = psql("SELECT pid FROM pg_stat_activity WHERE datname='fz' AND state='active' AND pid <> pg_backend_pid()",
               timeout=20)[1]
    d = f"{REPRO}/{trial}"
    os.makedirs(d, exist_ok=True)
    for pid in out.split():
        bt = subprocess.run(['gdb', '-p', pid, '-batch', '-ex', 'bt'], capture_output=True, text=True, timeout=60)
        open(f"{d}/hang_bt.{qname}.{pid}", 'w').write(bt.stdout + bt.stderr)
        psql(f"SELECT pg_terminate_backend({pid})", timeout=20)
        time.sleep(3)
        if os.path.exists(f'/proc/{pid}'):
            os.kill(int(pid), 9)
    wait_ready()


def classify(name, rc, out, err, timed_out, compared, expected, newlog):
    if timed_out:
        return 'HANG', ''
    if re.search(r'terminated by signal', newlog):
        return 'CRASH', ''
    if 'PANIC' in newlog:
        return 'PANIC', ''
    if rc != 0:
        m = re.search(r'(ERROR|FATAL|PANIC):\s+([0-9A-Z]{5}):\s+(.*)', err)
        if not m:
            return 'CONNLOST', err[:300]
        detail = f"{m.group(1)} {m.group(2)}: {m.group(3)[:300]}"
        if m.group(1) == 'PANIC':
            return 'PANIC', detail
        return ('TIMEOUT' if m.group(2) == '57014' else 'err:' + m.group(2)), detail
    if compared and expected.get(name) is not None and out != expected[name]:
        return 'WRONG', f"got {out[:200]} expected {expected[name][:200]}"
    return 'ok', ''


def run_queries(s, blk, expected, trial):
    res = []
    hangs = 0
    for name, sql, opts, compared in queries(s, blk):
        if hangs >= 2 and name not in ('check_t2', 'meta'):
            res.append(dict(q=name, cls='skipped', detail='', dt=0))
            continue
        lo = logsize()
        t0 = time.time()
        rc, out, err, timed_out = psql(sql, opts, timeout=CLIENT_TIMEOUT)
        dt = time.time() - t0
        if timed_out:
            hangs += 1
            hang_diag(trial, name)
        newlog = logread(lo)
        cls, detail = classify(name, rc, out, err, timed_out, compared, expected, newlog)
        if 'invalid memory alloc request size' in err + newlog:
            cls = 'ALLOC:' + cls
        res.append(dict(q=name, cls=cls, detail=detail, dt=round(dt, 2)))
        if cls.split(':')[-1] in ('CRASH', 'PANIC', 'CONNLOST') and not wait_ready(180):
            res.append(dict(q='restart', cls='NORESTART', detail=logread(lo)[-2000:]))
            return res, False
    return res, True


def run(seeds):
    S = specs()
    expected = json.load(open(BASE + '/expected.json'))
    preload = set_preload()
    for seed in seeds:
        rng = random.Random(seed)
        stop()
        names = list(S)
        rng.shuffle(names)
        trials = {}
        for n in names:
            restore(S[n])
            trial = f"s{seed}_{n}"
            desc = corrupt(S[n], rng)
            os.makedirs(f"{REPRO}/{trial}", exist_ok=True)
            shutil.copyfile(f"{DATA}/{S[n]['ifile']}", f"{REPRO}/{trial}/damaged_index_file")
            trials[n] = (trial, desc)
        if not start():
            print(f"seed {seed}: the server did not start", flush=True)
            stop()
            continue
        wait_ready()
        for n in names:
            trial, desc = trials[n]
            blk = desc['blk'] if desc['blk'] < desc['nblocks'] - (desc['kind'] == 'truncate') else 1
            res, alive = run_queries(S[n], blk, expected[n], trial)
            bad = sorted(set(x['cls'] for x in res if x['cls'] not in ('ok', 'skipped')))
            rec = dict(trial=trial, index=n, preload=preload, corrupt=desc, classes=bad, res=res)
            open(RESULTS, 'a').write(json.dumps(rec) + '\n')
            flag = any(c.split(':')[0] in ('CRASH', 'PANIC', 'HANG', 'TIMEOUT', 'ALLOC', 'NORESTART',
                                           'CONNLOST', 'WRONG') for c in bad)
            print(trial, desc['kind'], desc['blk'], bad, '!!' if flag else '', flush=True)
            if not flag:
                shutil.rmtree(f"{REPRO}/{trial}", ignore_errors=True)
            if not alive:
                break
    stop()
    for s in S.values():
        restore(s)


def repro(trial, qname):
    S = specs()
    n = trial.split('_', 1)[1]
    stop()
    restore(S[n])
    shutil.copyfile(f"{REPRO}/{trial}/damaged_index_file", f"{DATA}/{S[n]['ifile']}")
    start()
    wait_ready()
    for name, sql, opts, compared in queries(S[n], 1):
        if name == qname:
            rc, out, err, timed_out = psql(sql, opts, timeout=CLIENT_TIMEOUT)
            print('HANG' if timed_out else f"rc {rc}\n{out[:300]}\n{err[:500]}")
            if compared:
                print('expected', json.load(open(BASE + '/expected.json'))[n][name])
            if timed_out:
                hang_diag(trial, name)
    stop()
    restore(S[n])


def summary():
    R = [json.loads(l) for l in open(RESULTS)]
    print('trials', len(R))
    by_class = collections.defaultdict(set)
    for r in R:
        for c in r['classes']:
            by_class[c.split(':')[0]].add(r['trial'])
    for c, trials in sorted(by_class.items()):
        print(c, len(trials), sorted(trials)[:12])
    # a query noticed the damage and the verifier's heap pass did not
    # (the inspection functions' errors on a damaged page are expected)
    for r in R:
        chk = [x for x in r['res'] if x['q'] == 'check_t']
        noticed = [x['q'] + ':' + x['cls'] for x in r['res']
                   if x['cls'] not in ('ok', 'skipped') and not x['q'].startswith(('check', 'items'))]
        if chk and chk[0]['cls'] == 'ok' and noticed:
            print('verifier passed:', r['trial'], r['corrupt']['kind'], noticed[:6])


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ''
    if cmd == 'setup':
        setup()
    elif cmd == 'run' and len(sys.argv) > 2:
        run([int(x) for x in sys.argv[2:]])
    elif cmd == 'repro' and len(sys.argv) == 4:
        repro(sys.argv[2], sys.argv[3])
    elif cmd == 'summary':
        summary()
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
