#!/usr/bin/env python3
"""Instructions per operation, btree against pagebtree, counted by callgrind.

    bash bench/run.sh --instr [--rows N] [--datasets dense,sparse,title] [--pbt-layouts heads,bpa]

Timings on a shared two-core machine move by 10-20% between runs; the number
of instructions a backend executes for an operation does not.  This script
builds the same data sets as bench/harness.py (same key generators), with a
btree index and the pagebtree variants, then runs each AM-level driver call
(pbt_bench_lookup, pbt_bench_scan, pbt_bench_insert) once in a single-user
backend under valgrind's callgrind, counting only inside the driver
function, with the index prewarmed into shared buffers.  It reports
instructions per operation and where they go: pagebtree's own code, the
buffer manager and locks, WAL insertion, libc, the rest of PostgreSQL.
Kernel time (system calls, page faults) is not counted.  Instructions are
not time (cache misses are not in them), so these figures bound what a
layout can change; the timed ratios are in the harness's results.

Writes bench/results/<name>.md and .json.  Run by bench/run.sh --instr, which
builds and installs first.
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402  (key generators, data sets, variant options)

BIN = subprocess.check_output([os.environ.get("PG_CONFIG", "pg_config"), "--bindir"],
                              text=True).strip()
USER = os.environ.get("PBT_BENCH_USER", "postgres")

AM = "index AM"
# where a PostgreSQL function's own instructions are counted: nbtree and its
# comparison functions are in the server binary
CATEGORIES = [
    (AM, re.compile(r"^(_bt|bt[a-z])|^(varstr_cmp|text_cmp|int8eq|int8lt|int8gt|int8ge|int8le)$")),
    ("WAL", re.compile(r"XLog|xlog|WAL|crc32|GenericXLog|CopyXLogRecord|ReserveXLog")),
    ("buffers and locks", re.compile(
        r"Buffer|BufTable|LWLock|hash_search|hash_bytes|hash_uint32|ResourceOwner|"
        r"StrategyGetBuffer|smgr|mdread|mdnblocks|FileRead|pg_pread|PinBuffer|GetPrivateRefCount")),
]


def as_user(cmd, **kw):
    if os.geteuid() == 0 and USER != "root":
        cmd = ["runuser", "-u", USER, "--"] + cmd
    return subprocess.run(cmd, check=True, **kw)


def parse_callgrind(path):
    """Self instructions per (object, function) of a callgrind output file."""
    names = {"ob": {}, "fn": {}}
    self_cost = collections.Counter()
    ob = fn = None
    skip_next = False

    def name(kind, rest):
        m = re.match(r"\((\d+)\)(?: (.*))?", rest)
        if not m:
            return rest
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), "?")

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("ob="):
                ob = name("ob", line[3:])
            elif line.startswith("fn="):
                fn = name("fn", line[3:])
            elif line.startswith("cob="):
                name("ob", line[4:])
            elif line.startswith("cfn="):
                name("fn", line[4:])
            elif line.startswith("calls="):
                skip_next = True  # the next cost line is the call's inclusive cost
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                if skip_next:
                    skip_next = False
                elif len(parts) >= 2:
                    self_cost[(os.path.basename(ob or "?"), fn)] += int(parts[1])
    return self_cost


def categorize(self_cost):
    out = collections.Counter()
    for (ob, fn), ir in self_cost.items():
        if ob.startswith("pagebtree_bench"):
            cat = "driver"
        elif ob.startswith("pagebtree"):
            cat = AM
        elif ob.startswith("libc"):
            cat = "libc (memcmp, memcpy, ...)"
        elif ob == "postgres":
            cat = next((c for c, rx in CATEGORIES if rx.search(fn)), "other PostgreSQL")
        else:
            cat = "other"
        out[cat] += ir
    return out


class Run:
    def __init__(self, args):
        self.a = args
        self.work = tempfile.mkdtemp(prefix="pbt-instr-")
        shutil.chown(self.work, USER)
        self.data = os.path.join(self.work, "data")
        self.port = str(args.port)

    def psql(self, sql):
        as_user([os.path.join(BIN, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.work,
                 "-p", self.port, "-d", "postgres"], input=sql, text=True, stdout=subprocess.DEVNULL)

    def setup(self):
        as_user([os.path.join(BIN, "initdb"), "-D", self.data, "-A", "trust", "--locale=C.UTF-8"],
                stdout=subprocess.DEVNULL)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("port = %s\nunix_socket_directories = '%s'\nlisten_addresses = ''\n"
                    "shared_preload_libraries = 'pagebtree'\nfsync = off\nautovacuum = off\n"
                    "shared_buffers = 1GB\nmax_wal_size = 8GB\nwal_level = replica\n"
                    % (self.port, self.work))
        as_user([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-l",
                 os.path.join(self.work, "log"), "-w", "start"], stdout=subprocess.DEVNULL)
        try:
            sql = ["CREATE EXTENSION pagebtree; CREATE EXTENSION pagebtree_bench; "
                   "CREATE EXTENSION pg_prewarm;", harness.key_functions_sql(self.a.seed)]
            for ds in self.a.datasets:
                sql.append(self.dataset_sql(ds))
            self.psql("\n".join(sql))
        finally:
            as_user([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-w", "stop"],
                    stdout=subprocess.DEVNULL)

    def keyset(self, name, ds, ords, order=None):
        cols = ", ".join("%s(o) AS %s" % (f, c) for c, _, f in harness.DATASETS[ds]["cols"])
        return ("CREATE TABLE %s AS SELECT %s FROM (%s) q%s;"
                % (name, cols, ords, " ORDER BY " + order if order else ""))

    def dataset_sql(self, ds):
        a, d = self.a, harness.DATASETS[ds]
        coldefs = ", ".join("%s %s" % (c, t) for c, t, _ in d["cols"])
        keycols = ", ".join(c for c, _, _ in d["cols"])
        n, m = a.rows, a.inserts
        s = ["CREATE TABLE d_%s (%s);" % (ds, coldefs),
             "INSERT INTO d_%s SELECT %s FROM generate_series(0, %d) o;"
             % (ds, ", ".join("%s(o)" % f for _, _, f in d["cols"]), n - 1),
             "VACUUM ANALYZE d_%s;" % ds,
             self.keyset("p_%s" % ds, ds, "SELECT floor(bench_u('pu', i) * %d)::int8 AS o "
                         "FROM generate_series(1, %d) i" % (n, a.probes)),
             "CREATE TABLE l_%s AS SELECT %s FROM (SELECT %s, row_number() OVER (ORDER BY %s) rn "
             "FROM d_%s) s WHERE rn IN (SELECT 1 + floor(bench_u('ls', i) * %d)::int8 "
             "FROM generate_series(1, %d) i);"
             % (ds, keycols, keycols, keycols, ds, max(n - 10000, 1), a.long_scans)]
        if ds == "composite":
            s[-1] = self.keyset("l_%s" % ds, ds, "SELECT floor(bench_u('ls', i) * %d)::int8 AS o "
                                "FROM generate_series(1, %d) i" % (max(n - 80000, 1), a.long_scans))
        new = "SELECT o FROM generate_series(%d, %d) o" % (n, n + m - 1)
        s.append(self.keyset("i_%s_random" % ds, ds, new, "md5('%d:ri:' || o)" % a.seed))
        s.append(self.keyset("i_%s_asc" % ds, ds, new, "o" if d["asc_by"] == "o" else keycols))
        for v in self.variants():
            s.append(self.index_sql(ds, v, "x_%s_%s" % (ds, v)))
            for order in ("random", "asc"):
                s.append(self.index_sql(ds, v, "x_%s_%s_%s" % (ds, v, order)))
        return "\n".join(s)

    def variants(self):
        return ["btree", "pagebtree"] + ["pagebtree_" + harness.ident(l) for l in self.a.pbt_layouts]

    def index_sql(self, ds, v, name):
        keycols = ", ".join(c for c, _, _ in harness.DATASETS[ds]["cols"])
        am, opts = v, {}
        if v.startswith("pagebtree_"):
            layout = next(l for l in self.a.pbt_layouts if harness.ident(l) == v[len("pagebtree_"):])
            am, opts = "pagebtree", harness.variant_options(layout)
        with_ = " WITH (%s)" % ", ".join("%s = '%s'" % kv for kv in opts.items()) if opts else ""
        return "CREATE INDEX %s ON d_%s USING %s (%s)%s;" % (name, ds, am, keycols, with_)

    def settings(self, v):
        """Session settings of a variant (harness.SETTING_VARIANTS)."""
        if not v.startswith("pagebtree_"):
            return {}
        layout = next(l for l in self.a.pbt_layouts if harness.ident(l) == v[len("pagebtree_"):])
        return harness.variant_settings(layout)

    def count(self, label, index, call, settings=None):
        """Instructions inside one driver call, in a single-user backend,
        under the variant's session settings."""
        out = os.path.join(self.work, "cg.%s" % label)
        sql = "".join("SET %s = %s;\n" % kv for kv in (settings or {}).items())
        sql += "SELECT pg_prewarm('%s');\nSELECT * FROM %s;\n" % (index, call)
        as_user(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                 "--toggle-collect=pbt_bench_*", "--callgrind-out-file=" + out,
                 os.path.join(BIN, "postgres"), "--single", "-D", self.data, "postgres"],
                input=sql, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cost = parse_callgrind(out)
        for f in glob.glob(out + "*"):
            if self.a.keep_profiles:
                shutil.copy(f, self.a.keep_profiles)
            os.unlink(f)
        return cost

    def measure(self):
        a = self.a
        ops = [("lookups", "lookup", a.probes),
               ("long scans (per row)", "scan", a.long_scans * 10000),
               ("inserts, random", "random", a.inserts),
               ("inserts, ascending", "asc", a.inserts)]
        res, top = {}, {}
        for ds in a.datasets:
            for opname, kind, nops in ops:
                for v in self.variants():
                    if kind == "lookup":
                        idx, call = "x_%s_%s" % (ds, v), "pbt_bench_lookup('x_%s_%s', 'p_%s'::regclass, 1, false)" % (ds, v, ds)
                    elif kind == "scan":
                        idx, call = "x_%s_%s" % (ds, v), \
                            "pbt_bench_scan('x_%s_%s', 'l_%s', 10000, 1, 0, 1, false)" % (ds, v, ds)
                    else:
                        idx = "x_%s_%s_%s" % (ds, v, kind)
                        call = "pbt_bench_insert('%s', 'i_%s_%s')" % (idx, ds, kind)
                    print("%s: %s, %s" % (ds, opname, v), flush=True)
                    cost = self.count("%s.%s.%s" % (ds, kind, v), idx, call, self.settings(v))
                    res.setdefault(ds, {}).setdefault(opname, {})[v] = \
                        {c: ir / nops for c, ir in categorize(cost).items()}
                    top.setdefault(ds, {}).setdefault(opname, {})[v] = \
                        [(fn, round(ir / nops, 1)) for (ob, fn), ir in cost.most_common(25)]
        return res, top

    def cleanup(self):
        shutil.rmtree(self.work, ignore_errors=True)


ORDER = [AM, "buffers and locks", "WAL", "libc (memcmp, memcpy, ...)",
         "other PostgreSQL", "driver", "other"]


def report(res, variants, cmdline):
    try:
        commit = subprocess.check_output(["git", "-C", harness.REPO, "rev-parse", "--short", "HEAD"],
                                         text=True, stderr=subprocess.DEVNULL).strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    lines = ["# Instructions per operation (callgrind)", "",
             "Command: `%s`  " % cmdline,
             "git %s; the installed pagebtree.so is what was measured." % commit, "",
             "Instructions a single-user backend executes inside the AM-level driver call, "
             "per operation (long scans: per row returned), index prewarmed; "
             "`total` ratio is pagebtree/btree (below 1: fewer instructions).  Self "
             "instructions are grouped by where they run: the index AM's code (pagebtree.so; nbtree "
             "and its comparison functions in the server), the buffer manager and locks, WAL "
             "insertion, libc, the rest of PostgreSQL (executor glue, memory contexts), the "
             "driver (see bench/instr.py).", ""]
    for ds, byop in res.items():
        lines += ["## %s" % ds, "",
                  "| operation | variant | total | ratio | " + " | ".join(ORDER) + " |",
                  "|---|---|---|---|" + "---|" * len(ORDER)]
        for opname, byv in byop.items():
            base = sum(byv["btree"].values())
            for v in variants:
                tot = sum(byv[v].values())
                lines.append("| %s | %s | %.0f | %.2f | %s |" % (
                    opname, v, tot, tot / base if base else 0,
                    " | ".join("%.0f" % byv[v].get(c, 0) for c in ORDER)))
        lines.append("")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", default="instr")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--probes", type=int, default=20_000)
    ap.add_argument("--long-scans", type=int, default=10)
    ap.add_argument("--inserts", type=int, default=50_000)
    ap.add_argument("--datasets", default="dense,sparse,title")
    ap.add_argument("--pbt-layouts", default="")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, default=54391)
    ap.add_argument("--keep-profiles", metavar="DIR",
                    help="copy the callgrind files here (callgrind_annotate --tree=caller)")
    ap.add_argument("--command-line", default="bash bench/run.sh --instr")
    a = ap.parse_args()
    if a.keep_profiles:
        os.makedirs(a.keep_profiles, exist_ok=True)
    a.datasets = [d for d in a.datasets.split(",") if d]
    a.pbt_layouts = [l for l in a.pbt_layouts.split(",") if l]
    for d in a.datasets:
        if d not in harness.DATASETS:
            ap.error("unknown data set %s" % d)
    run = Run(a)
    try:
        run.setup()
        res, top = run.measure()
    finally:
        run.cleanup()
    md = report(res, run.variants(), a.command_line)
    print(md)
    base = os.path.join(harness.HERE, "results", a.name)
    with open(base + ".md", "w") as f:
        f.write(md)
    with open(base + ".json", "w") as f:
        json.dump({"per_op": res, "top_functions": top}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
