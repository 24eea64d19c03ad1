#!/usr/bin/env python3
"""pagebtree benchmark harness.

Runs btree, pagebtree (when installed) and hash side by side on
deterministic data sets, in a private throw-away PostgreSQL cluster, and
writes bench/results/<name>.md, <name>.json and <name>-*.png.

Two levels of measurement:
  * AM level: the pagebtree_bench extension (bench/amdriver) drives the
    generic index AM interface directly (lookups, scans, inserts);
  * end to end: SQL-level inserts (EXPLAIN ANALYZE ... WAL, BUFFERS) and
    pgbench scripts (bench/pgbench/*.sql).

Every measurement is repeated; the access methods alternate within each
repetition (order reversed on odd repetitions: A B, B A, ...) and the
report shows medians.  Normally started through bench/run.sh.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PGBENCH_DIR = os.path.join(HERE, "pgbench")

ORDERED_AMS = ("btree", "pagebtree")
PHASES = ("datasets", "builds", "update-growth", "oom", "cold")
# the out-of-memory phase's keys (--oom-keys): description, type, key function
OOM_KEYS = {
    "int8": ("sparse int8", "int8", "bench_key_sparse"),
    "text": ("URL-like text", 'text COLLATE "C"', "bench_key_url"),
}
LAYOUT_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def variant_label(layout):
    """Name of the pagebtree variant with reloption layout = <layout>
    (None: the default index, no reloption)."""
    return "pagebtree" if layout is None else "pagebtree[%s]" % layout


BPA_GEOMETRY = re.compile(r"^bpa-l(\d+)-b(\d+)$")

# --pbt-layouts entries that are a layout measured under session settings
# rather than a layout of their own: name -> (reloption layout, settings).
# heads-nohints: heads leaves searched without their hints (an ablation that
# was a layout once; docs/decisions.md, "heads-nohints is a developer
# setting, not a layout").  The setting changes only reads: the index's
# bytes are those of pagebtree[heads].
SETTING_VARIANTS = {
    "heads-nohints": ("heads", {"pagebtree.ablate_leaf_hints": "on"}),
    # the default index read without prefetching (issue #22)
    "noprefetch": (None, {"effective_io_concurrency": "0", "maintenance_io_concurrency": "0"}),
}


# --pbt-layouts entries 'delta' and 'delta-<threshold>' (2p5 = 2.5 %): the
# default layouts with the delta area (issue #22); 'nodelta': without it
# (the default, delta = auto, reserves one where leaf writes are costly)
DELTA_VARIANT = re.compile(r"^delta(?:-(\d+)(?:p(\d+))?)?$")

# --pbt-layouts entry 'groups-<N>': the default layouts in leaf groups of N
# subnodes (issue #23)
GROUPS_VARIANT = re.compile(r"^groups-(\d+)$")


def variant_options(layout):
    """Reloptions of a --pbt-layouts entry: 'plain' -> layout = plain;
    'bpa-l8-b32' -> layout = bpa with an 8-slot log and 32-slot blocks;
    'heads-nohints' -> layout = heads (see SETTING_VARIANTS);
    'delta-2p5' -> delta = on, delta_threshold = 2.5; 'nodelta' -> delta = off;
    'groups-16' -> leaf_group_size = 16."""
    if layout is None:
        return {}
    if layout == "nodelta":
        return {"delta": "off"}
    m = GROUPS_VARIANT.match(layout)
    if m:
        return {"leaf_group_size": m.group(1)}
    m = DELTA_VARIANT.match(layout)
    if m:
        opts = {"delta": "on"}
        if m.group(1):
            opts["delta_threshold"] = m.group(1) + ("." + m.group(2) if m.group(2) else "")
        return opts
    if layout in SETTING_VARIANTS:
        base = SETTING_VARIANTS[layout][0]
        return {"layout": base} if base else {}
    m = BPA_GEOMETRY.match(layout)
    if m:
        return {"layout": "bpa", "bpa_log_size": m.group(1), "bpa_block_size": m.group(2)}
    return {"layout": layout}


def variant_settings(layout):
    """Session settings under which a --pbt-layouts entry's indexes are
    measured: {} but for SETTING_VARIANTS."""
    return dict(SETTING_VARIANTS[layout][1]) if layout in SETTING_VARIANTS else {}


def ident(label):
    """SQL identifier fragment of an access method or variant label:
    pagebtree[plain] -> pagebtree_plain."""
    return re.sub(r"[^a-z0-9_]+", "_", label.lower()).strip("_")


class SetupError(Exception):
    """A problem that makes the run pointless (reported, exit status 2)."""

# --------------------------------------------------------------------------
# run modes
# --------------------------------------------------------------------------
MODES = {
    "quick": dict(
        rows=100_000,            # rows per data set
        probes=50_000,           # lookup keys per pass
        lookup_loops=1,          # passes per lookup measurement
        short_scans=20_000,      # scans of 1-50 rows
        long_scans=20,           # scans of 10,000 rows
        inserts=20_000,          # new keys per insert measurement
        reps=5,                  # repetitions of AM-level measurements
        sql_reps=3,              # repetitions of SQL-level inserts
        pgbench_datasets=["sparse", "url"],
        pgbench_secs=1,          # -T for read-only scripts
        pgbench_tx=8_000,        # -t per client for write scripts
        pgbench_reps=5,          # many short alternating runs beat few long ones here
        clients=1,
        oom_rows=1_000_000,
        oom_inserts=60_000,
        oom_probes=20_000,
        oom_checkpoints=4,       # CHECKPOINTs during the OOM insert run
        oom_reps=3,              # odd: with 2 (A B, B A) one method's runs are
                                 # adjacent, and one burst of load hits both
        cold_rows=1_000_000,
        cold_scan_rows=50_000,
        cold_scans=8,
        cold_reps=3,
        ug_rows=100_000,         # update-growth phase: rows per table
        ug_secs=30,              # pgbench -T of the update-growth run
        ug_clients=4,
        ug_threads=2,
        ug_distinct=10,          # distinct values of the updated column v
        shared_buffers="512MB",
    ),
    "full": dict(
        rows=1_000_000,
        probes=200_000,
        lookup_loops=2,
        short_scans=100_000,
        long_scans=100,
        inserts=100_000,
        reps=5,
        sql_reps=3,
        pgbench_datasets=None,   # all
        pgbench_secs=3,
        pgbench_tx=5_000,
        pgbench_reps=5,
        clients=2,
        oom_rows=4_000_000,
        oom_inserts=200_000,
        oom_probes=100_000,
        oom_checkpoints=8,
        oom_reps=3,
        cold_rows=4_000_000,
        cold_scan_rows=200_000,
        cold_scans=8,
        cold_reps=3,
        ug_rows=1_000_000,
        ug_secs=120,
        ug_clients=4,
        ug_threads=2,
        ug_distinct=10,
        shared_buffers="2GB",
    ),
}

# --------------------------------------------------------------------------
# data sets: key columns and the SQL functions that map an ordinal o to a key
# --------------------------------------------------------------------------
DATASETS = {
    "dense": dict(
        desc="dense int8: sequential ids o+1",
        cols=[("k", "int8", "bench_key_dense")],
        hash=True, asc_by="o"),
    "sparse": dict(
        desc="sparse int8: uniform random 60-bit values (md5 of seed, o)",
        cols=[("k", "int8", "bench_key_sparse")],
        hash=True, asc_by="k"),
    "url": dict(
        desc='URL-like text, ~65 bytes, 512 shared ~40-byte prefixes, COLLATE "C"',
        cols=[("k", 'text COLLATE "C"', "bench_key_url")],
        hash=True, asc_by="k"),
    "title": dict(
        desc='title-like text, ~20 bytes ("Word Word 12345"), COLLATE "C"',
        cols=[("k", 'text COLLATE "C"', "bench_key_title")],
        hash=True, asc_by="k"),
    "uuid": dict(
        desc="uuid v4, md5-derived from (seed, o)",
        cols=[("k", "uuid", "bench_key_uuid")],
        hash=True, asc_by="k"),
    "composite": dict(
        desc='(text COLLATE "C", int8): 8 partitions, ids ascending in 8 interleaved ranges',
        cols=[("k1", 'text COLLATE "C"', "bench_key_c1"), ("k2", "int8", "bench_key_c2")],
        hash=False, asc_by="o"),
}


def key_functions_sql(seed):
    """SQL for the deterministic key generators (seed baked in)."""
    s = int(seed)
    words = ("amber,arctic,autumn,azure,bitter,bold,brave,bright,broken,calm,"
             "cedar,clever,cosmic,crimson,crystal,dancing,dark,distant,dusty,"
             "eager,electric,empty,endless,fading,falling,fierce,frozen,gentle,"
             "golden,hidden,hollow,silent").split(",")
    nouns = ("harbor,river,garden,mountain,forest,castle,shadow,ocean,meadow,"
             "island,canyon,desert,valley,bridge,tower,engine,lantern,mirror,"
             "orchard,palace,planet,prairie,signal,summit,temple,thunder,tide,"
             "voyage,whisper,window,winter,zephyr").split(",")
    arr = lambda xs: "ARRAY[" + ",".join("'%s'" % x for x in xs) + "]"
    domains = ["shop-example", "news-portal", "travel-guide", "recipe-box",
               "tech-review", "music-store", "photo-share", "city-events"]
    sections = ["products", "articles", "categories", "collections",
                "downloads", "support", "community", "reviews"]
    subs = ["electronics", "household", "outdoor", "fashion", "toys-games",
            "automotive", "books-media", "health"]
    h = lambda tag: "md5('%d:%s:' || o::text)" % (s, tag)
    byte = lambda tag, i: "get_byte(decode(%s, 'hex'), %d)" % (h(tag), i)
    # All key functions are single-expression SQL functions built only from
    # immutable functions, so the planner inlines them: a pgbench query
    # "k = bench_key_url($1)" costs a few md5() calls, not a SQL-function call.
    return f"""
CREATE OR REPLACE FUNCTION bench_u(tag text, i int8) RETURNS float8
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT ('x' || substr(md5('{s}:' || tag || ':' || i::text), 1, 13))::bit(52)::int8 / 4503599627370496.0 $$;

-- Zipf(0.99)-like rank in [1, n] by inverting the continuous CDF, then
-- scattered over [0, n) by a multiplicative permutation (2^31-1 is prime).
CREATE OR REPLACE FUNCTION bench_zipf_ord(tag text, i int8, n int8) RETURNS int8
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT ((least(greatest(floor(power(1 + bench_u(tag, i) * (power(n, 0.01) - 1), 100.0)), 1), n)::int8 - 1)
           * 2147483647 + {s % 1000003}) % n $$;

CREATE OR REPLACE FUNCTION bench_key_dense(o int8) RETURNS int8
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS $$ SELECT o + 1 $$;

CREATE OR REPLACE FUNCTION bench_key_sparse(o int8) RETURNS int8
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT ('x' || substr({h('s')}, 1, 15))::bit(60)::int8 $$;

CREATE OR REPLACE FUNCTION bench_key_url(o int8) RETURNS text
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT 'https://www.' || ({arr(domains)})[1 + {byte('u', 0)} % 8] || '.com/'
          || ({arr(sections)})[1 + {byte('u', 1)} % 8] || '/'
          || ({arr(subs)})[1 + {byte('u', 2)} % 8] || '/item-'
          || substr({h('u')}, 7, 6) || '-' || o::text $$;

CREATE OR REPLACE FUNCTION bench_key_title(o int8) RETURNS text
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT initcap(({arr(words)})[1 + {byte('t', 0)} % 32]) || ' '
          || initcap(({arr(nouns)})[1 + {byte('t', 1)} % 32]) || ' ' || o::text $$;

CREATE OR REPLACE FUNCTION bench_key_uuid(o int8) RETURNS uuid
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT (substr({h('g')}, 1, 12) || '4' || substr({h('g')}, 14, 3)
           || substr('89ab', 1 + get_byte(decode(substr({h('g')}, 17, 2), 'hex'), 0) % 4, 1)
           || substr({h('g')}, 18, 15))::uuid $$;

CREATE OR REPLACE FUNCTION bench_key_c1(o int8) RETURNS text
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT 'region-' || lpad((o % 8)::text, 2, '0') $$;

CREATE OR REPLACE FUNCTION bench_key_c2(o int8) RETURNS int8
  IMMUTABLE PARALLEL SAFE LANGUAGE sql AS
$$ SELECT (o % 8) * 1000000000000 + o / 8 $$;

-- wall-clock and backend CPU seconds of one SQL command
CREATE OR REPLACE FUNCTION bench_time(cmd text, OUT wall float8, OUT cpu float8) LANGUAGE plpgsql AS
$$ DECLARE t0 timestamptz := clock_timestamp(); c0 float8 := pbt_bench_cputime();
   BEGIN EXECUTE cmd;
         wall := extract(epoch FROM clock_timestamp() - t0); cpu := pbt_bench_cputime() - c0; END $$;
"""


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
T0 = time.time()


def log(msg):
    el = int(time.time() - T0)
    print("[%02d:%02d] %s" % (el // 60, el % 60, msg), flush=True)


def abba(items, rep):
    return list(items) if rep % 2 == 0 else list(reversed(items))


def pg_config(flag):
    return subprocess.check_output([os.environ.get("PG_CONFIG", "pg_config"), flag], text=True).strip()


# --------------------------------------------------------------------------
# the throw-away cluster
# --------------------------------------------------------------------------
class Cluster:
    def __init__(self, port, keep=False):
        self.bindir = pg_config("--bindir")
        self.dir = tempfile.mkdtemp(prefix="pbt-bench-")
        self.data = os.path.join(self.dir, "data")
        self.logfile = os.path.join(self.dir, "server.log")
        self.port = port
        self.keep = keep
        self.is_root = os.geteuid() == 0
        self.running = False
        if self.is_root:
            os.chmod(self.dir, 0o755)
            shutil.chown(self.dir, "postgres", "postgres")

    def _cmd(self, args, check=True, capture=True):
        if self.is_root:
            args = ["runuser", "-u", "postgres", "--"] + args
        r = subprocess.run(args, text=True, capture_output=capture)
        if check and r.returncode != 0:
            raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(args), r.returncode,
                                                         r.stdout or "", r.stderr or ""))
        return r

    def initdb(self):
        self._cmd([os.path.join(self.bindir, "initdb"), "-D", self.data, "-U", "postgres",
                   "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"])

    def configure(self, settings):
        conf = os.path.join(self.data, "postgresql.auto.conf")
        lines = ["# written by bench/harness.py"]
        for k, v in settings.items():
            if isinstance(v, str):
                v = "'" + v.replace("'", "''") + "'"
            lines.append("%s = %s" % (k, v))
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        if self.is_root:
            shutil.chown(conf, "postgres", "postgres")

    def start(self):
        self._cmd([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-l", self.logfile,
                   "-w", "-t", "120", "-o", "-p %d -k %s -c listen_addresses=''" % (self.port, self.dir),
                   "start"])
        self.running = True

    def stop(self):
        if self.running:
            self._cmd([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-m", "fast",
                       "-w", "-t", "120", "stop"], check=False)
            self.running = False

    def restart(self, settings):
        self.stop()
        self.configure(settings)
        self.start()

    def wait_ready(self, timeout=120):
        end = time.time() + timeout
        while time.time() < end:
            r = subprocess.run([os.path.join(self.bindir, "pg_isready"), "-h", self.dir,
                                "-p", str(self.port), "-U", "postgres"], capture_output=True)
            if r.returncode == 0:
                return True
            time.sleep(0.5)
        return False

    def connect(self, dbname="bench"):
        c = psycopg2.connect(host=self.dir, port=self.port, user="postgres", dbname=dbname)
        c.autocommit = True
        return c

    def postmaster_pid(self):
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            return int(f.readline())

    @staticmethod
    def _stat(pid):
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # after the command: state ppid ... utime(14) stime(15) cutime(16) cstime(17)
        return int(fields[1]), [int(x) for x in fields[11:15]]

    def children(self):
        pm = self.postmaster_pid()
        kids = set()
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    if self._stat(int(d))[0] == pm:
                        kids.add(int(d))
                except (OSError, IndexError, ValueError):
                    pass
        return kids

    def server_cpu(self):
        """CPU seconds used by the whole server so far: the postmaster, its
        live children and its exited (reaped) children."""
        pm = self.postmaster_pid()
        ticks = sum(self._stat(pm)[1])
        for pid in self.children():
            try:
                ticks += sum(self._stat(pid)[1][:2])
            except (OSError, IndexError, ValueError):
                pass
        return ticks / os.sysconf("SC_CLK_TCK")

    def log_tail(self, n=30):
        try:
            with open(self.logfile) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def cleanup(self):
        self.stop()
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------
# the benchmark
# --------------------------------------------------------------------------
class Bench:
    def __init__(self, args):
        self.args = args
        self.p = dict(MODES[args.mode])
        for k in ("rows", "reps", "inserts", "probes", "pgbench_secs", "pgbench_tx",
                  "pgbench_reps", "clients", "ug_rows", "ug_secs"):
            if getattr(args, k, None):
                self.p[k] = getattr(args, k)
        self.seed = args.seed
        self.oom_keys = args.oom_keys
        self.phases = [ph for ph in args.phases if not (
            (ph == "oom" and args.no_oom) or (ph == "update-growth" and args.no_update_growth))]
        self.p["phases"] = self.phases
        # builds: only the index builds of the data sets (no other measurement)
        self.datasets = (args.datasets or list(DATASETS)) \
            if "datasets" in self.phases or "builds" in self.phases else []
        pbd = self.p["pgbench_datasets"] or list(DATASETS)
        if args.pgbench_datasets is not None:
            pbd = [d for d in args.pgbench_datasets.split(",") if d]
        self.pgbench_datasets = [d for d in pbd if d in self.datasets]
        # pagebtree variants: label -> access method, reloptions, identifier
        # fragment (tables d_<ds>_<ident>, indexes x_<ds>_<ident>, ...)
        self.layouts = args.pbt_layouts or [None]
        self.variants = {}
        for layout in self.layouts:
            label = variant_label(layout)
            self.variants[label] = {"am": "pagebtree",
                                    "options": variant_options(layout),
                                    "settings": variant_settings(layout),
                                    "ident": ident(label)}
        self.results = {}         # ds -> metric -> am -> [values]
        self.info = {}            # ds -> am -> misc facts (structure, plans, ...)
        self.errors = []
        self.warnings = []
        self.broken = {}          # ds -> set(am) whose build failed
        self.pagebtree_installed = (not args.without_pagebtree) and self.detect_pagebtree()
        self.cluster = Cluster(args.port, keep=args.keep)
        self.conn = None
        self.settings = None
        self.update_growth = None

    # --------------------------------------------------- access method variants
    def am_of(self, label):
        """The access method of a label (btree, hash, pagebtree[plain] -> pagebtree)."""
        return self.variants[label]["am"] if label in self.variants else label

    def ident(self, label):
        return self.variants[label]["ident"] if label in self.variants else ident(label)

    def with_sql(self, label):
        """' WITH (layout = 'plain')' for a variant, '' otherwise."""
        opts = self.variants.get(label, {}).get("options") or {}
        if not opts:
            return ""
        return " WITH (%s)" % ", ".join("%s = '%s'" % (k, v) for k, v in opts.items())

    def settings_of(self, label):
        """Session settings of a variant ({} for most; see SETTING_VARIANTS)."""
        return self.variants.get(label, {}).get("settings") or {}

    def index_sql(self, label, name, table, cols):
        return "CREATE INDEX %s ON %s USING %s (%s)%s" % (name, table, self.am_of(label), cols,
                                                           self.with_sql(label))

    def check_variants(self):
        """Every requested layout must be accepted by CREATE INDEX; fail
        early, before anything is measured, with the server's message."""
        self.sql("DROP TABLE IF EXISTS bench_layout_probe")
        self.sql("CREATE TABLE bench_layout_probe (k int8)")
        self.sql("INSERT INTO bench_layout_probe SELECT generate_series(1, 1000)")
        bad = []
        for label, v in self.variants.items():
            try:
                self.sql(self.index_sql(label, "bench_layout_probe_x", "bench_layout_probe", "k"))
                self.sql("DROP INDEX bench_layout_probe_x")
                # the index has loaded the library: its settings are known now
                for k, val in self.settings_of(label).items():
                    self.sql("SELECT set_config(%s, %s, false)", (k, val))
                    self.sql("RESET %s" % k)
            except psycopg2.Error as e:
                msg = (getattr(e, "pgerror", None) or str(e)).strip()
                msg = " ".join(l.strip() for l in msg.splitlines() if l.strip())
                bad.append("%s (%s%s): %s" % (label, self.with_sql(label).strip() or "no options",
                                              "".join(", SET %s = %s" % kv
                                                      for kv in self.settings_of(label).items()),
                                              msg))
        self.sql("DROP TABLE bench_layout_probe")
        if bad:
            raise SetupError("--pbt-layouts: pagebtree rejected %s:\n  %s" % (
                "a layout" if len(bad) == 1 else "%d layouts" % len(bad), "\n  ".join(bad)))

    # ---------------------------------------------------------------- setup
    @staticmethod
    def detect_pagebtree():
        lib = os.path.join(pg_config("--pkglibdir"), "pagebtree.so")
        ctl = os.path.join(pg_config("--sharedir"), "extension", "pagebtree.control")
        return os.path.exists(lib) and os.path.exists(ctl)

    def base_settings(self, shared_buffers):
        s = {
            "shared_buffers": shared_buffers,
            "max_connections": 20,
            "autovacuum": "off",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "on",
            "wal_level": "replica",
            "max_wal_size": "64GB",
            "min_wal_size": "1GB",
            "checkpoint_timeout": "1d",
            "jit": "off",
            "max_parallel_maintenance_workers": 0,
            "max_parallel_workers_per_gather": 0,
            "maintenance_work_mem": "512MB",
            "work_mem": "64MB",
            "logging_collector": "off",
            "log_min_messages": "warning",
            "log_checkpoints": "off",
        }
        if self.pagebtree_installed and not self.args.no_preload:
            s["shared_preload_libraries"] = "pagebtree"
        return s

    def start_cluster(self):
        log("initdb into %s (port %d, socket dir %s)" % (self.cluster.dir, self.cluster.port,
                                                          self.cluster.dir))
        self.cluster.initdb()
        self.settings = self.base_settings(self.p["shared_buffers"])
        self.cluster.configure(self.settings)
        self.cluster.start()
        c = self.cluster.connect("postgres")
        c.cursor().execute("CREATE DATABASE bench")
        c.close()
        self.conn = self.cluster.connect()
        # servers without these contrib modules (the pip wheels of 16 and
        # 18) go without btree's and hash's page statistics and checks
        self.contrib = set()
        for ext in ("pageinspect", "amcheck"):
            try:
                self.sql("CREATE EXTENSION %s" % ext)
                self.contrib.add(ext)
            except psycopg2.Error:
                self.conn.rollback()
                self.warnings.append("no %s on this server: btree's %s not measured" % (
                    ext, "page statistics" if ext == "pageinspect" else "structural checks"))
        self.sql("CREATE EXTENSION pagebtree_bench")
        self.ams = ["btree"]
        if self.pagebtree_installed:
            try:
                self.sql("CREATE EXTENSION pagebtree")
            except psycopg2.Error as e:
                self.error("-", "pagebtree", "CREATE EXTENSION", e)
                if self.args.pbt_layouts:
                    raise SetupError("--pbt-layouts: CREATE EXTENSION pagebtree failed: %s" % str(e).strip())
            else:
                self.check_variants()
                self.ams += list(self.variants)
        elif self.args.pbt_layouts:
            raise SetupError("--pbt-layouts given, but pagebtree is %s" % (
                "excluded (--without-pagebtree)" if self.args.without_pagebtree else "not installed"))
        else:
            self.warnings.append("pagebtree %s: measured btree and hash only" % (
                "excluded (--without-pagebtree)" if self.args.without_pagebtree else "is not installed"))
        self.ams.append("hash")
        self.sql(key_functions_sql(self.seed))
        self.server_version = self.one("SELECT version()")[0]

    def reconnect(self):
        try:
            if self.conn is not None:
                self.conn.close()
        except Exception:
            pass
        self.conn = None
        if not self.cluster.wait_ready():
            raise RuntimeError("server did not come back:\n" + self.cluster.log_tail())
        for _ in range(60):
            try:
                self.conn = self.cluster.connect()
                return
            except psycopg2.OperationalError:
                time.sleep(0.5)
        raise RuntimeError("cannot reconnect:\n" + self.cluster.log_tail())

    # ------------------------------------------------------------- SQL utils
    def sql(self, q, args=None):
        with self.conn.cursor() as cur:
            cur.execute(q, args)

    def one(self, q, args=None):
        with self.conn.cursor() as cur:
            cur.execute(q, args)
            return cur.fetchone()

    def all(self, q, args=None):
        with self.conn.cursor() as cur:
            cur.execute(q, args)
            return cur.fetchall()

    def dict1(self, q, args=None):
        with self.conn.cursor() as cur:
            cur.execute(q, args)
            row = cur.fetchone()
            return {d[0]: v for d, v in zip(cur.description, row)}

    def error(self, ds, am, what, e):
        msg = getattr(e, "pgerror", None) or str(e)
        code = getattr(e, "pgcode", None)
        entry = {"dataset": ds, "am": am, "step": what, "sqlstate": code,
                 "message": msg.strip()}
        self.errors.append(entry)
        log("ERROR %s/%s %s: [%s] %s" % (ds, am, what, code, msg.strip().splitlines()[0] if msg.strip() else msg))
        if self.conn is None or self.conn.closed or isinstance(e, (psycopg2.OperationalError,
                                                                  psycopg2.InterfaceError)):
            entry["server_log"] = self.cluster.log_tail(15)
            self.reconnect()

    def attempt(self, ds, am, what, fn):
        """Run fn() for access method or variant am, under the variant's
        session settings; on a database error record it and return None.
        Every measurement on the harness's own connection goes through
        here, so a variant's settings hold exactly while it is measured."""
        settings = self.settings_of(am)
        try:
            for k, v in settings.items():
                self.sql("SELECT set_config(%s, %s, false)", (k, v))
            return fn()
        except psycopg2.Error as e:
            self.error(ds, am, what, e)
            return None
        finally:
            if settings and self.conn is not None and not self.conn.closed:
                try:
                    for k in settings:
                        self.sql("RESET %s" % k)
                except psycopg2.Error as e:
                    self.error(ds, am, "RESET settings", e)

    def rec(self, ds, metric, am, value):
        self.results.setdefault(ds, {}).setdefault(metric, {}).setdefault(am, []).append(value)

    def wal_record_bytes(self, start, end):
        """WAL bytes between two LSNs without full-page images (pg_waldump
        --stats: record sizes, which include the data of every record but not
        the block images), or None if pg_waldump cannot tell."""
        cmd = [os.path.join(pg_config("--bindir"), "pg_waldump"), "--stats",
               "-p", os.path.join(self.cluster.data, "pg_wal"), "-s", start, "-e", end]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        for line in out.splitlines():
            fields = line.split()
            if fields and fields[0] == "Total":
                ints = [int(f) for f in fields[1:] if f.isdigit()]
                return ints[1] if len(ints) >= 2 else None
        return None

    def checkpoint_written(self):
        """CHECKPOINT, wait until the checkpointer has published its counters,
        and return buffers written so far (checkpoint + bgwriter + backends)."""
        q = ("SELECT checkpoints_req, buffers_checkpoint + buffers_clean + buffers_backend "
             "FROM pg_stat_bgwriter")
        if int(self.one("SELECT current_setting('server_version_num')")[0]) >= 170000:
            # 17 moved the checkpointer's counters and dropped buffers_backend:
            # every process's writes of shared buffers are in pg_stat_io
            q = ("SELECT (SELECT num_requested FROM pg_stat_checkpointer), "
                 "(SELECT sum(writes) FROM pg_stat_io WHERE object = 'relation')::bigint")
        self.sql("SELECT pg_stat_clear_snapshot()")
        req0, _ = self.one(q)
        self.sql("CHECKPOINT")
        for _ in range(500):
            self.sql("SELECT pg_stat_clear_snapshot()")
            req, written = self.one(q)
            if req > req0:
                return written
            time.sleep(0.01)
        self.warnings.append("checkpointer statistics did not advance after CHECKPOINT")
        return written

    # -------------------------------------------------------- data generation
    def ds_ams(self, ds, with_hash=True):
        ams = [a for a in self.ams if a != "hash"]
        if with_hash and DATASETS[ds]["hash"] and "hash" in self.ams:
            ams.append("hash")
        return [a for a in ams if a not in self.broken.get(ds, set())]

    @staticmethod
    def coldefs(ds):
        return ", ".join("%s %s" % (c, t) for c, t, _ in DATASETS[ds]["cols"])

    @staticmethod
    def keycols(ds):
        return ", ".join(c for c, _, _ in DATASETS[ds]["cols"])

    @staticmethod
    def keyexprs(ds, arg):
        return ", ".join("%s(%s)" % (f, arg) for _, _, f in DATASETS[ds]["cols"])

    @staticmethod
    def keyeq(ds, arg, prefix=""):
        return " AND ".join("%s%s = %s(%s)" % (prefix, c, f, arg) for c, _, f in DATASETS[ds]["cols"])

    @staticmethod
    def keyge(ds, arg, prefix=""):
        cols = DATASETS[ds]["cols"]
        parts = []
        for i, (c, _, f) in enumerate(cols):
            op = ">=" if i == len(cols) - 1 else "="
            parts.append("%s%s %s %s(%s)" % (prefix, c, op, f, arg))
        return " AND ".join(parts)

    def make_keys_table(self, name, ds, ord_sql, extra_cols=False, order_by=None):
        """Table of the keys of the ordinals o produced by ord_sql; with
        extra_cols also o and v (key columns first: the driver reads those)."""
        cols = self.coldefs(ds) + (", o int8, v int4" if extra_cols else "")
        sel = ", ".join("%s(q.o) AS %s" % (f, c) for c, _, f in DATASETS[ds]["cols"])
        sel += ", q.o AS o, (q.o % 1000)::int4 AS v" if extra_cols else ""
        self.sql("DROP TABLE IF EXISTS " + name)
        self.sql("CREATE TABLE %s (%s)" % (name, cols))
        if order_by:
            self.sql("INSERT INTO " + name + " SELECT * FROM (SELECT " + sel + " FROM (" + ord_sql
                     + ") q) z ORDER BY " + order_by)
        else:
            self.sql("INSERT INTO " + name + " SELECT " + sel + " FROM (" + ord_sql + ") q")

    def setup_dataset(self, ds):
        p = self.p
        n, m = p["rows"], p["inserts"]
        log("%s: generating %d rows (%s)" % (ds, n, DATASETS[ds]["desc"]))
        src = "src_%s" % ds
        self.sql("DROP TABLE IF EXISTS %s" % src)
        self.sql("CREATE TABLE %s (o int8 NOT NULL, %s, v int4)" % (src, self.coldefs(ds)))
        chunk = 250_000
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            self.sql("INSERT INTO %s SELECT o, %s, (o %% 1000)::int4 FROM generate_series(%d, %d) o"
                     % (src, self.keyexprs(ds, "o"), lo, hi - 1))
            if n > chunk:
                log("%s: %d/%d rows" % (ds, hi, n))
        for am in self.ds_ams(ds) + ["scratch"]:
            t = "d_%s_%s" % (ds, self.ident(am))
            if n > chunk:
                log("%s: copy for %s" % (ds, am))
            self.sql("DROP TABLE IF EXISTS %s" % t)
            self.sql("CREATE TABLE %s (LIKE %s)" % (t, src))
            self.sql("INSERT INTO %s SELECT * FROM %s" % (t, src))
            self.sql("VACUUM (FREEZE, ANALYZE) %s" % t)
        log("%s: probe, scan and insert key sets" % ds)
        self.make_keys_table("p_%s_uni" % ds, ds,
                             "SELECT floor(bench_u('pu', i) * %d)::int8 AS o FROM generate_series(1, %d) i"
                             % (n, p["probes"]))
        self.make_keys_table("p_%s_zipf" % ds, ds,
                             "SELECT bench_zipf_ord('pz', i, %d) AS o FROM generate_series(1, %d) i"
                             % (n, p["probes"]))
        self.make_keys_table("p_%s_short" % ds, ds,
                             "SELECT floor(bench_u('ss', i) * %d)::int8 AS o FROM generate_series(1, %d) i"
                             % (n, p["short_scans"]))
        # long scans: start keys with at least 10,000 rows after them in the
        # scanned range (for composite: within the start key's partition)
        if ds == "composite":
            longords = ("SELECT floor(bench_u('ls', i) * greatest(%d - 80000, 1))::int8 AS o "
                        "FROM generate_series(1, %d) i" % (n, p["long_scans"]))
        else:
            longords = ("SELECT o FROM (SELECT o, row_number() OVER (ORDER BY k) AS rn FROM %s) s "
                        "WHERE rn IN (SELECT 1 + floor(bench_u('ls', i) * greatest(%d - 10000, 1))::int8 "
                        "FROM generate_series(1, %d) i)" % (src, n, p["long_scans"]))
        self.make_keys_table("p_%s_long" % ds, ds, longords)
        newords = "SELECT o FROM generate_series(%d, %d) o" % (n, n + m - 1)
        self.make_keys_table("i_%s_random" % ds, ds, newords, extra_cols=True,
                             order_by="md5('%d:ri:' || o)" % self.seed)
        asc = "o" if DATASETS[ds]["asc_by"] == "o" else self.keycols(ds)
        self.make_keys_table("i_%s_asc" % ds, ds, newords, extra_cols=True, order_by=asc)
        self.sql("VACUUM ANALYZE")

    def drop_dataset(self, ds):
        for (t,) in self.all("SELECT relname FROM pg_class WHERE relkind IN ('r', 'S') "
                             "AND relname ~ %s", (r"^(src|d|p|i|l|c|seq)_%s(_|$)" % ds,)):
            self.sql("DROP TABLE IF EXISTS %s CASCADE" % t if not t.startswith("seq_") else
                     "DROP SEQUENCE IF EXISTS %s" % t)

    # ------------------------------------------------------------ measurements
    def index_name(self, ds, am):
        return "x_%s_%s" % (ds, self.ident(am))

    def table_name(self, ds, am):
        return "d_%s_%s" % (ds, self.ident(am))

    def create_index_sql(self, ds, am, table=None, name=None):
        """CREATE INDEX for an access method or pagebtree variant (am is its label)."""
        table = table or self.table_name(ds, am)
        name = name or self.index_name(ds, am)
        return self.index_sql(am, name, table, self.keycols(ds))

    def verify(self, ds, am, idx, when, heap):
        """Structural check of an index (amcheck for btree, pagebtree_check
        for pagebtree); heap=True also checks that every heap row is indexed
        (not for indexes holding synthetic TIDs)."""
        if self.am_of(am) == "btree":
            if "amcheck" not in self.contrib:
                return
            q = "SELECT bt_index_check(%s, %s)"
        elif self.am_of(am) == "pagebtree":
            q = "SELECT pagebtree_check(%s, %s)"
        else:
            return
        ok = self.attempt(ds, am, "check %s" % when, lambda: self.sql(q, (idx, heap)) or True)
        self.info.setdefault(ds, {}).setdefault(am, {}).setdefault("checks", []).append(
            "%s: %s" % (when, "ok" if ok else "FAILED"))

    def measure_builds(self, ds):
        ams = self.ds_ams(ds)
        for rep in range(self.p["reps"]):
            log("%s: index builds (rep %d/%d: %s)" % (ds, rep + 1, self.p["reps"], " ".join(abba(ams, rep))))
            for am in abba(ams, rep):
                if am in self.broken.get(ds, set()):
                    continue
                self.sql("DROP INDEX IF EXISTS %s" % self.index_name(ds, am))
                t = self.attempt(ds, am, "CREATE INDEX",
                                 lambda: self.one("SELECT * FROM bench_time(%s)", (self.create_index_sql(ds, am),)))
                if t is None:
                    self.broken.setdefault(ds, set()).add(am)
                    continue
                self.rec(ds, "build_s", am, t[1])
                self.rec(ds, "build_wall_s", am, t[0])
        for am in self.ds_ams(ds):
            idx = self.index_name(ds, am)
            self.verify(ds, am, idx, "after build", heap=True)
            size = self.one("SELECT pg_relation_size(%s)", (idx,))[0]
            self.rec(ds, "size_mb", am, size / 1048576.0)
            st = self.attempt(ds, am, "structure", lambda: self.structure(idx, self.am_of(am)))
            if st:
                self.info.setdefault(ds, {}).setdefault(am, {})["structure"] = st
                if st.get("leaf_pages") is not None:
                    self.rec(ds, "leaf_pages", am, st["leaf_pages"])
                    self.rec(ds, "inner_pages", am, st["inner_pages"])
                    self.rec(ds, "height", am, st["height"])
                    if st.get("leaf_fill") is not None:
                        self.rec(ds, "leaf_fill_pct", am, st["leaf_fill"])

    def structure(self, idx, am):
        nblocks = self.one("SELECT pg_relation_size(%s) / current_setting('block_size')::int", (idx,))[0]
        out = {"nblocks": nblocks}
        if am != "pagebtree" and "pageinspect" not in self.contrib:
            return out
        if am == "btree":
            meta = self.dict1("SELECT * FROM bt_metap(%s)", (idx,))
            out["meta"] = {k: str(v) for k, v in meta.items()}
            rows = self.all("SELECT btpo_level, type, count(*), avg(free_size), avg(live_items) "
                            "FROM generate_series(1, %s - 1) b, LATERAL bt_page_stats(%s, b) "
                            "GROUP BY 1, 2 ORDER BY 1, 2", (nblocks, idx))
            out["pages"] = [dict(level=r[0], type=r[1], count=r[2], avg_free=float(r[3]),
                                 avg_items=float(r[4])) for r in rows]
            live = [r for r in out["pages"] if r["type"] in ("l", "i", "r")]
            out["height"] = meta["level"] + 1
        elif am == "pagebtree":
            meta = self.dict1("SELECT * FROM pagebtree_metapage(%s)", (idx,))
            out["meta"] = {k: str(v) for k, v in meta.items()}
            nb = meta.get("nblocks") or nblocks
            rows = self.all("SELECT level, page_type, layout, count(*), avg(free_size), avg(live_items) "
                            "FROM generate_series(1, %s - 1) b, LATERAL pagebtree_page_stats(%s, b) "
                            "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3", (nb, idx))
            out["pages"] = [dict(level=r[0], type=r[1], layout=r[2], count=r[3],
                                 avg_free=float(r[4]) if r[4] is not None else None,
                                 avg_items=float(r[5]) if r[5] is not None else None) for r in rows]
            dead = ("meta", "free", "deleted", "unused", "half_dead", "halfdead")
            live = [r for r in out["pages"] if str(r["type"]).lower() not in dead]
            out["height"] = (meta["level"] + 1) if meta.get("level") is not None else None
        else:  # hash
            rows = self.all("SELECT hash_page_type(get_raw_page(%s, b::int)), count(*) "
                            "FROM generate_series(0, %s - 1) b GROUP BY 1 ORDER BY 1", (idx, nblocks))
            out["pages"] = [dict(type=r[0], count=r[1]) for r in rows]
            return out
        per_level = {}
        for r in live:
            if r["level"] is not None:
                per_level[r["level"]] = per_level.get(r["level"], 0) + r["count"]
        out["pages_per_level"] = [per_level[l] for l in sorted(per_level)]
        leaf = [r for r in live if r["level"] == 0]
        inner = [r for r in live if r["level"] and r["level"] > 0]
        out["leaf_pages"] = sum(r["count"] for r in leaf)
        out["inner_pages"] = sum(r["count"] for r in inner)
        frees = [(r["avg_free"], r["count"]) for r in leaf if r["avg_free"] is not None]
        if frees and out["leaf_pages"]:
            avg_free = sum(f * c for f, c in frees) / sum(c for _, c in frees)
            out["leaf_fill"] = 100.0 * (1.0 - avg_free / 8160.0)
        return out

    def measure_am_reads(self, ds):
        p = self.p
        for kind, table in (("uniform", "p_%s_uni" % ds), ("zipf", "p_%s_zipf" % ds)):
            ams = self.ds_ams(ds)
            for rep in range(p["reps"]):
                log("%s: AM lookups %s (rep %d/%d)" % (ds, kind, rep + 1, p["reps"]))
                for am in abba(ams, rep):
                    r = self.attempt(ds, am, "pbt_bench_lookup %s" % kind, lambda: self.dict1(
                        "SELECT * FROM pbt_bench_lookup(%s, %s, %s)",
                        (self.index_name(ds, am), table, p["lookup_loops"])))
                    if r:
                        self.rec(ds, "am_lookup_%s_ops" % kind, am, r["ops_per_cpu_sec"])
                        self.rec(ds, "am_lookup_%s_ops_wall" % kind, am, r["ops_per_sec"])
                        self.rec(ds, "am_lookup_%s_bufs" % kind, am, r["buffers_per_op"])
                        self.rec(ds, "am_lookup_%s_found" % kind, am, r["found"] / max(r["ops"], 1))
        ams = self.ds_ams(ds, with_hash=False)
        for kind, table, nmin, nmax, loops in (("short", "p_%s_short" % ds, 1, 50, 1),
                                               ("long", "p_%s_long" % ds, 10000, 10000, 1)):
            for rep in range(p["reps"]):
                log("%s: AM %s scans (rep %d/%d)" % (ds, kind, rep + 1, p["reps"]))
                for am in abba(ams, rep):
                    r = self.attempt(ds, am, "pbt_bench_scan %s" % kind, lambda: self.dict1(
                        "SELECT * FROM pbt_bench_scan(%s, %s, %s, %s, %s, %s)",
                        (self.index_name(ds, am), table, nmin, loops, nmax, self.seed)))
                    if r:
                        self.rec(ds, "am_scan_%s_ops" % kind, am, r["scans_per_cpu_sec"])
                        self.rec(ds, "am_scan_%s_rows" % kind, am, r["rows_returned"] / max(r["cpu_seconds"], 1e-9))
                        self.rec(ds, "am_scan_%s_ops_wall" % kind, am, r["scans_per_sec"])
                        self.rec(ds, "am_scan_%s_rows_wall" % kind, am, r["rows_per_sec"])
                        self.rec(ds, "am_scan_%s_bufs" % kind, am, r["buffers_per_scan"])
                        self.rec(ds, "am_scan_%s_nrows" % kind, am, r["rows_returned"])

    def measure_am_inserts(self, ds):
        p = self.p
        ams = self.ds_ams(ds, with_hash=False)
        scratch = "d_%s_scratch" % ds
        for order in ("random", "asc"):
            for rep in range(p["reps"]):
                log("%s: AM inserts %s (rep %d/%d)" % (ds, order, rep + 1, p["reps"]))
                for am in abba(ams, rep):
                    idx = "x_%s_scratch" % ds
                    self.sql("DROP INDEX IF EXISTS %s" % idx)
                    ok = self.attempt(ds, am, "CREATE INDEX (scratch)", lambda: self.sql(
                        self.create_index_sql(ds, am, table=scratch, name=idx)) or True)
                    if not ok:
                        continue
                    w0 = self.checkpoint_written()
                    lsn0 = self.one("SELECT pg_current_wal_insert_lsn()")[0]
                    r = self.attempt(ds, am, "pbt_bench_insert %s" % order, lambda: self.dict1(
                        "SELECT * FROM pbt_bench_insert(%s, %s)", (idx, "i_%s_%s" % (ds, order))))
                    lsn1 = self.one("SELECT pg_current_wal_insert_lsn()")[0]
                    w1 = self.checkpoint_written()
                    if r and rep == 0:
                        self.verify(ds, am, idx, "after AM inserts (%s)" % order, heap=False)
                    if r:
                        k = 1000.0 / r["ops"]
                        self.rec(ds, "am_ins_%s_ops" % order, am, r["ops_per_cpu_sec"])
                        self.rec(ds, "am_ins_%s_ops_wall" % order, am, r["ops_per_sec"])
                        self.rec(ds, "am_ins_%s_bufs" % order, am, r["buffers_per_op"])
                        self.rec(ds, "am_ins_%s_wal" % order, am, float(r["wal_bytes"]) * k)
                        self.rec(ds, "am_ins_%s_fpi" % order, am, r["wal_fpi"] * k)
                        nofpi = self.wal_record_bytes(lsn0, lsn1)
                        if nofpi is not None:
                            self.rec(ds, "am_ins_%s_wal_nofpi" % order, am, nofpi * k)
                        self.rec(ds, "am_ins_%s_dirtied" % order, am, r["blks_dirtied"] * k)
                        self.rec(ds, "am_ins_%s_written" % order, am, (w1 - w0) * k)
                        grown = self.one("SELECT pg_relation_size(%s)", (idx,))[0]
                        self.rec(ds, "am_ins_%s_size_mb" % order, am, grown / 1048576.0)
                    self.sql("DROP INDEX IF EXISTS %s" % idx)

    def sql_insert_once(self, ds, target, kind):
        """One SQL-level insert run into a fresh table; target is an AM or 'noindex'."""
        t = "l_%s" % ds
        src = "src_%s" % ds
        self.sql("DROP TABLE IF EXISTS %s" % t)
        self.sql("CREATE TABLE %s (LIKE %s)" % (t, src))
        if kind == "load":
            stmt = "INSERT INTO %s SELECT * FROM %s" % (t, src)
        else:
            self.sql("INSERT INTO %s SELECT * FROM %s" % (t, src))
            cols = self.keycols(ds)
            stmt = "INSERT INTO %s (%s, o, v) SELECT %s, o, v FROM i_%s_%s" % (t, cols, cols, ds, kind)
        if target != "noindex":
            self.sql(self.create_index_sql(ds, target, table=t, name="x_%s_l" % ds))
        w0 = self.checkpoint_written()
        c0 = self.one("SELECT pbt_bench_cputime()")[0]
        plan = self.one("EXPLAIN (ANALYZE, BUFFERS, WAL, TIMING OFF, FORMAT JSON) " + stmt)[0][0]
        cpu = self.one("SELECT pbt_bench_cputime()")[0] - c0
        w1 = self.checkpoint_written()
        self.sql("DROP TABLE %s" % t)
        top = plan["Plan"]
        rows = top.get("Actual Rows") or 0
        # ModifyTable reports 0 rows; count the rows of its input instead
        if not rows and top.get("Plans"):
            rows = top["Plans"][0].get("Actual Rows", 0)
        secs = plan["Execution Time"] / 1000.0
        k = 1000.0 / max(rows, 1)
        return {"rows_per_sec": rows / max(cpu, 1e-9), "rows_per_sec_wall": rows / secs,
                "wal": top.get("WAL Bytes", 0) * k,
                "fpi": top.get("WAL FPI", 0) * k, "dirtied": top.get("Shared Dirtied Blocks", 0) * k,
                "written": (w1 - w0) * k, "rows": rows}

    def measure_sql_inserts(self, ds):
        p = self.p
        targets = self.ds_ams(ds, with_hash=False) + ["noindex"]
        for kind in ("load", "random"):
            for rep in range(p["sql_reps"]):
                log("%s: SQL inserts %s (rep %d/%d)" % (ds, kind, rep + 1, p["sql_reps"]))
                for tg in abba(targets, rep):
                    r = self.attempt(ds, tg, "SQL insert %s" % kind,
                                     lambda: self.sql_insert_once(ds, tg, kind))
                    if r:
                        for key in ("rows_per_sec", "rows_per_sec_wall", "wal", "fpi", "dirtied", "written"):
                            self.rec(ds, "sql_%s_%s" % (kind, key), tg, r[key])
        self.sql("DROP TABLE IF EXISTS l_%s" % ds)

    # --------------------------------------------------------------- pgbench
    def render(self, template, ds, table, seq):
        with open(os.path.join(PGBENCH_DIR, template)) as f:
            text = f.read()

        def repl(m):
            fn, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
            if fn == "KEYEQ":
                return self.keyeq(ds, args[0], args[1] if len(args) > 1 else "")
            if fn == "KEYGE":
                return self.keyge(ds, args[0], args[1] if len(args) > 1 else "")
            if fn == "KEYEXPRS":
                return self.keyexprs(ds, args[0])
            raise ValueError(fn)
        text = re.sub(r"@(KEYEQ|KEYGE|KEYEXPRS)\(([^)]*)\)@", repl, text)
        text = text.replace("@TABLE@", table).replace("@SEQ@", seq).replace("@KEYCOLS@", self.keycols(ds))
        # pgbench reads one command per line: drop comment lines
        text = "\n".join(l for l in text.splitlines() if not l.startswith("--")) + "\n"
        path = os.path.join(self.cluster.dir, "%s-%s-%s" % (ds, table, template))
        with open(path, "w") as f:
            f.write(text)
        return path

    def explain_script(self, ds, template, table, seq):
        """Generic-plan shape of each statement of a rendered pgbench script,
        as pgbench -M prepared runs it (plan_cache_mode=force_generic_plan)."""
        with open(self.render(template, ds, table, seq)) as f:
            stmts = [l for l in f.read().splitlines() if l.strip() and not l.startswith("\\")]
        shapes = []
        for st in stmts:
            names = []

            def param(m):
                if m.group(1) not in names:
                    names.append(m.group(1))
                return "$%d" % (names.index(m.group(1)) + 1)
            q = re.sub(r"(?<!:):([A-Za-z_][A-Za-z0-9_]*)", param, st.rstrip().rstrip(";"))
            vals = {"n": self.p["rows"], "seed": self.seed}
            args = ", ".join(str(vals.get(nm, 10)) for nm in names)
            self.sql("DEALLOCATE ALL")
            self.sql("SET plan_cache_mode = force_generic_plan")
            try:
                self.sql("PREPARE bench_q AS " + q)
                plan = self.one("EXPLAIN (FORMAT JSON) EXECUTE bench_q" + ("(%s)" % args if names else ""))[0][0]
                shapes.append(plan_shape(plan["Plan"]))
            finally:
                self.sql("DEALLOCATE ALL")
                self.sql("RESET plan_cache_mode")
        return "; ".join(shapes)

    def pgbench(self, ds, scripts, table, seq, secs=None, tx=None, settings=None):
        p = self.p
        files = []
        for tpl, weight in scripts:
            files += ["-f", "%s@%d" % (self.render(tpl, ds, table, seq), weight)]
        cmd = [os.path.join(self.cluster.bindir, "pgbench"), "-n", "-M", "prepared",
               "-h", self.cluster.dir, "-p", str(self.cluster.port), "-U", "postgres",
               "-c", str(p["clients"]), "-j", str(p["clients"]),
               "--random-seed=%d" % self.seed,
               "-D", "n=%d" % p["rows"], "-D", "seed=%d" % self.seed] + files
        cmd += ["-T", str(secs)] if secs else ["-t", str(tx)]
        cmd.append("bench")
        # the variant's settings hold in every pgbench session
        opts = ["-c plan_cache_mode=force_generic_plan"]
        opts += ["-c %s=%s" % kv for kv in (settings or {}).items()]
        env = dict(os.environ, PGOPTIONS=" ".join(opts))
        kids0 = self.cluster.children()
        cpu0 = self.cluster.server_cpu()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        # wait until pgbench's backends have exited and been reaped, so that
        # their CPU time has moved into the postmaster's cutime/cstime
        for _ in range(300):
            if self.cluster.children() <= kids0:
                break
            time.sleep(0.01)
        cpu = self.cluster.server_cpu() - cpu0
        m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
        ntx = re.search(r"number of transactions actually processed: ([0-9]+)", r.stdout)
        if r.returncode != 0 or not m or not ntx:
            raise RuntimeError("pgbench failed (%d): %s" % (r.returncode, (r.stderr or r.stdout)[-800:]))
        return float(m.group(1)), int(ntx.group(1)) / max(cpu, 0.01)

    def measure_pgbench(self, ds):
        p = self.p
        n = p["rows"]
        ams_all = self.ds_ams(ds)
        ams_ord = self.ds_ams(ds, with_hash=False)
        for am in ams_all:
            self.sql("DROP SEQUENCE IF EXISTS seq_%s_%s" % (ds, self.ident(am)))
            self.sql("CREATE SEQUENCE seq_%s_%s START %d" % (ds, self.ident(am), n))
        # ceiling for inserts: the same workload on a table with no index
        self.sql("DROP TABLE IF EXISTS c_%s" % ds)
        self.sql("CREATE TABLE c_%s (LIKE src_%s)" % (ds, ds))
        self.sql("DROP SEQUENCE IF EXISTS seq_%s_noindex" % ds)
        self.sql("CREATE SEQUENCE seq_%s_noindex START %d" % (ds, n))
        self.sql("VACUUM ANALYZE")
        workloads = [
            ("pgb_select_uniform", ams_all, [("select.sql", 1)], "secs"),
            ("pgb_ycsb_c", ams_all, [("select_zipf.sql", 1)], "secs"),
            ("pgb_range", ams_ord, [("range.sql", 1)], "secs"),
            ("pgb_ycsb_e", ams_ord, [("scan_zipf.sql", 95), ("insert.sql", 5)], "tx"),
            ("pgb_ycsb_d", ams_ord, [("read_latest.sql", 95), ("insert.sql", 5)], "tx"),
            ("pgb_insert", ams_ord + ["noindex"], [("insert.sql", 1)], "tx"),
        ]
        for metric, ams, scripts, how in workloads:
            for am in ams:
                if am == "noindex":
                    continue
                table, seq = self.table_name(ds, am), "seq_%s_%s" % (ds, self.ident(am))
                shape = self.attempt(ds, am, "EXPLAIN %s" % metric, lambda: " | ".join(
                    self.explain_script(ds, tpl, table, seq) for tpl, _ in scripts))
                if shape:
                    self.info.setdefault(ds, {}).setdefault(am, {}).setdefault("plans", {})[metric] = shape
                    reads = [x for x in shape.split(" | ") if not x.startswith("ModifyTable")]
                    if any("%s)" % self.index_name(ds, am) not in x for x in reads):
                        self.warnings.append("%s/%s %s: plan does not use the index: %s" % (ds, am, metric, shape))
            for rep in range(p["pgbench_reps"]):
                log("%s: pgbench %s (rep %d/%d)" % (ds, metric[4:], rep + 1, p["pgbench_reps"]))
                for am in abba(ams, rep):
                    table = "c_%s" % ds if am == "noindex" else self.table_name(ds, am)
                    seq = "seq_%s_%s" % (ds, self.ident(am))
                    try:
                        st = self.settings_of(am)
                        if how == "secs":
                            tps, per_cpu = self.pgbench(ds, scripts, table, seq,
                                                        secs=p["pgbench_secs"], settings=st)
                        else:
                            tps, per_cpu = self.pgbench(ds, scripts, table, seq,
                                                        tx=p["pgbench_tx"], settings=st)
                        self.rec(ds, metric, am, tps)
                        self.rec(ds, metric + "_cpu", am, per_cpu)
                    except RuntimeError as e:
                        self.errors.append({"dataset": ds, "am": am, "step": metric, "message": str(e)})
                        log("ERROR %s/%s %s: %s" % (ds, am, metric, str(e).splitlines()[-1]))
                        if self.conn.closed or not self.cluster.wait_ready(5):
                            self.reconnect()
        for am in ams_ord:
            self.verify(ds, am, self.index_name(ds, am), "after pgbench writes", heap=True)

    # ---------------------------------------------------------- update growth
    def ug_pages(self, rel):
        return self.one("SELECT pg_relation_size(%s) / current_setting('block_size')::int", (rel,))[0]

    def ug_sizes(self, label):
        t = "ug_%s" % self.ident(label)
        return {"id_pages": self.ug_pages(t + "_id"), "v_pages": self.ug_pages(t + "_v"),
                "heap_pages": self.ug_pages(t)}

    def measure_update_growth(self):
        """Update-heavy pgbench workload (random row, new low-cardinality v)
        run on one table per access method, every table updated in the same
        transaction; index sizes before and after, autovacuum on.  The
        sessions are shared by all variants, so a variant's session settings
        (SETTING_VARIANTS) do not hold here; they change only how leaves are
        searched, not the sizes this phase measures."""
        p = self.p
        n, nv = p["ug_rows"], p["ug_distinct"]
        ds = "update_growth"
        labels = [a for a in self.ams if a != "hash"]
        log("update growth: generating %d rows for %s" % (n, ", ".join(labels)))
        self.sql("DROP TABLE IF EXISTS ug_src")
        # id: unique, never updated; v: ~10 distinct values, updated; pad:
        # 84 bytes, like pgbench_accounts.filler, so the heap is realistic
        self.sql("CREATE TABLE ug_src (id int8 NOT NULL, v int4 NOT NULL, pad text NOT NULL)")
        for lo in range(0, n, 500_000):
            hi = min(n, lo + 500_000)
            self.sql("INSERT INTO ug_src SELECT o + 1, floor(bench_u('ugv', o) * %d)::int4, "
                     "lpad('', 84, md5(o::text)) FROM generate_series(%d, %d) o" % (nv, lo, hi - 1))
        ok = []
        for label in labels:
            t = "ug_%s" % self.ident(label)
            self.sql("DROP TABLE IF EXISTS %s" % t)
            self.sql("CREATE TABLE %s (LIKE ug_src)" % t)
            self.sql("INSERT INTO %s SELECT * FROM ug_src ORDER BY id" % t)
            if self.attempt(ds, label, "CREATE INDEX", lambda: (
                    self.sql(self.index_sql(label, t + "_id", t, "id")),
                    self.sql(self.index_sql(label, t + "_v", t, "v"))) and True):
                ok.append(label)
            else:
                self.sql("DROP TABLE IF EXISTS %s" % t)
        self.sql("DROP TABLE ug_src")
        if not ok:
            return
        for label in ok:
            self.sql("VACUUM (FREEZE, ANALYZE) ug_%s" % self.ident(label))
        self.sql("CHECKPOINT")
        before = {label: self.ug_sizes(label) for label in ok}
        # the statement per table, as pgbench runs it (prepared, generic plan)
        plans = {}
        for label in ok:
            t = "ug_%s" % self.ident(label)
            self.sql("DEALLOCATE ALL")
            self.sql("SET plan_cache_mode = force_generic_plan")
            try:
                self.sql("PREPARE ug_q AS UPDATE %s SET v = $2 WHERE id = $1" % t)
                plans[label] = plan_shape(self.one("EXPLAIN (FORMAT JSON) EXECUTE ug_q(1, 1)")[0][0]["Plan"])
            finally:
                self.sql("DEALLOCATE ALL")
                self.sql("RESET plan_cache_mode")
            if "%s_id)" % t not in plans[label]:
                self.warnings.append("update growth/%s: UPDATE does not use the id index: %s" % (label, plans[label]))
        script = ["\\set id random(1, %d)" % n, "\\set nv random(0, %d)" % (nv - 1), "BEGIN;"]
        script += ["UPDATE ug_%s SET v = :nv WHERE id = :id;" % self.ident(label) for label in ok]
        script.append("END;")
        path = os.path.join(self.cluster.dir, "update_growth.sql")
        with open(path, "w") as f:
            f.write("\n".join(script) + "\n")
        # autovacuum as in a default installation for this phase only
        self.ug_settings = dict(self.settings, autovacuum="on")
        self.cluster.configure(self.ug_settings)
        self.sql("SELECT pg_reload_conf()")
        time.sleep(0.5)
        av = self.one("SHOW autovacuum")[0]
        if av != "on":
            self.warnings.append("update growth: autovacuum is %s after reload" % av)
        cmd = [os.path.join(self.cluster.bindir, "pgbench"), "-n", "-M", "prepared",
               "-h", self.cluster.dir, "-p", str(self.cluster.port), "-U", "postgres",
               "-c", str(p["ug_clients"]), "-j", str(p["ug_threads"]), "-T", str(p["ug_secs"]),
               "--random-seed=%d" % self.seed, "-f", path, "bench"]
        log("update growth: pgbench %d clients, %d threads, %d s, %d tables"
            % (p["ug_clients"], p["ug_threads"], p["ug_secs"], len(ok)))
        env = dict(os.environ, PGOPTIONS="-c plan_cache_mode=force_generic_plan")
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        ntx = re.search(r"number of transactions actually processed: ([0-9]+)", r.stdout)
        nfail = re.search(r"number of failed transactions: ([0-9]+)", r.stdout)
        tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", r.stdout)
        if r.returncode != 0 or not ntx:
            self.errors.append({"dataset": ds, "am": "-", "step": "pgbench",
                                "message": "pgbench exit %d: %s" % (r.returncode, (r.stderr or r.stdout)[-800:])})
            log("ERROR update growth: pgbench exit %d" % r.returncode)
        self.sql("SELECT pg_stat_clear_snapshot()")
        after = {label: self.ug_sizes(label) for label in ok}
        stats = {}
        for label in ok:
            row = self.dict1("SELECT n_tup_upd, n_tup_hot_upd, n_dead_tup, autovacuum_count, autoanalyze_count, "
                             "last_autovacuum::text AS last_autovacuum FROM pg_stat_user_tables "
                             "WHERE relname = %s", ("ug_%s" % self.ident(label),))
            stats[label] = row
        # back to the harness's settings (explicit vacuum only)
        self.cluster.configure(self.settings)
        self.sql("SELECT pg_reload_conf()")
        for label in ok:
            t = "ug_%s" % self.ident(label)
            for col in ("id", "v"):
                self.verify(ds, label, "%s_%s" % (t, col), "after update growth (%s index)" % col, heap=True)
        per = {}
        b = after.get("btree")
        for label in ok:
            a = after[label]
            e = {"id_pages_before": before[label]["id_pages"], "id_pages_after": a["id_pages"],
                 "v_pages_before": before[label]["v_pages"], "v_pages_after": a["v_pages"],
                 "heap_pages_before": before[label]["heap_pages"], "heap_pages_after": a["heap_pages"],
                 "plan": plans.get(label)}
            e.update(stats.get(label) or {})
            if b and label != "btree":
                e["ratio_after"] = {
                    "id": a["id_pages"] / max(b["id_pages"], 1),
                    "v": a["v_pages"] / max(b["v_pages"], 1),
                    "both": (a["id_pages"] + a["v_pages"]) / max(b["id_pages"] + b["v_pages"], 1)}
            per[label] = e
        self.update_growth = {
            "rows": n, "distinct_v": nv, "clients": p["ug_clients"], "threads": p["ug_threads"],
            "seconds": p["ug_secs"], "transactions": int(ntx.group(1)) if ntx else None,
            "failed_transactions": int(nfail.group(1)) if nfail else None,
            "tps": float(tps.group(1)) if tps else None, "pgbench_exit": r.returncode,
            "script": script, "autovacuum": "on (defaults) during the run",
            "access_methods": ok, "per_am": per}
        for label in ok:
            self.sql("DROP TABLE IF EXISTS ug_%s" % self.ident(label))
        self.sql("CHECKPOINT")

    # -------------------------------------------------------------- OOM mode
    def measure_oom(self):
        p = self.p
        ds = "oom"
        ams = [a for a in self.ams]
        n, m = p["oom_rows"], p["oom_inserts"]
        desc, ktype, kfn = OOM_KEYS[self.oom_keys]
        log("oom: generating %d rows (%s)" % (n, desc))
        self.sql("DROP TABLE IF EXISTS d_oom")
        self.sql("CREATE TABLE d_oom (o int8 NOT NULL, k %s, v int4)" % ktype)
        for lo in range(0, n, 500_000):
            hi = min(n, lo + 500_000)
            self.sql("INSERT INTO d_oom SELECT o, %s(o), (o %% 1000)::int4 "
                     "FROM generate_series(%d, %d) o" % (kfn, lo, hi - 1))
            log("oom: %d/%d rows" % (hi, n))
        self.sql("VACUUM (FREEZE, ANALYZE) d_oom")
        self.sql("DROP TABLE IF EXISTS p_oom_uni")
        self.sql("CREATE TABLE p_oom_uni AS SELECT %s(floor(bench_u('ou', i) * %d)::int8) AS k "
                 "FROM generate_series(1, %d) i" % (kfn, n, p["oom_probes"]))
        self.sql("DROP TABLE IF EXISTS i_oom_random")
        self.sql("CREATE TABLE i_oom_random AS SELECT %s(o) AS k FROM generate_series(%d, %d) o "
                 "ORDER BY md5('%d:oi:' || o)" % (kfn, n, n + m - 1, self.seed))
        sizes = {}
        for am in ams:
            self.sql("DROP INDEX IF EXISTS x_oom_%s" % self.ident(am))
            if self.attempt(ds, am, "CREATE INDEX", lambda: self.sql(
                    self.index_sql(am, "x_oom_%s" % self.ident(am), "d_oom", "k")) or True):
                sizes[am] = self.one("SELECT pg_relation_size('x_oom_%s')" % self.ident(am))[0]
        ams = [a for a in ams if a in sizes]
        if not sizes:
            return
        smallest = min(sizes.values())
        sb_kb = max(128, int(smallest / 4.5 / 1024) // 8 * 8)
        self.oom_settings = dict(self.settings)
        self.oom_settings["shared_buffers"] = "%dkB" % sb_kb
        log("oom: restart with shared_buffers=%dkB (smallest index %.1f MB = %.1fx shared_buffers)"
            % (sb_kb, smallest / 1048576.0, smallest / 1024.0 / sb_kb))
        self.conn.close()
        self.cluster.restart(self.oom_settings)
        self.conn = self.cluster.connect()
        self.info["oom"] = {"keys": desc, "shared_buffers_kb": sb_kb, "rows": n, "inserts": m,
                            "checkpoint_every": m // p["oom_checkpoints"],
                            "index_mb": {a: s / 1048576.0 for a, s in sizes.items()}}
        for rep in range(p["oom_reps"]):
            log("oom: lookups (rep %d/%d)" % (rep + 1, p["oom_reps"]))
            for am in abba(ams, rep):
                r = self.attempt(ds, am, "pbt_bench_lookup", lambda: self.dict1(
                    "SELECT * FROM pbt_bench_lookup(%s, 'p_oom_uni', 1)", ("x_oom_%s" % self.ident(am),)))
                if r:
                    self.rec(ds, "am_lookup_uniform_ops", am, r["ops_per_cpu_sec"])
                    self.rec(ds, "am_lookup_uniform_ops_wall", am, r["ops_per_sec"])
                    self.rec(ds, "am_lookup_uniform_bufs", am, r["buffers_per_op"])
                    self.rec(ds, "am_lookup_uniform_reads", am, r["reads_per_op"])
        ord_ams = [a for a in ams if a != "hash"]
        batch = max(1, m // p["oom_checkpoints"])
        for rep in range(p["oom_reps"]):
            log("oom: random inserts with a CHECKPOINT every %d (rep %d/%d)" % (batch, rep + 1, p["oom_reps"]))
            for am in abba(ord_ams, rep):
                idx = "x_oom_%s" % self.ident(am)
                # every repetition starts from a freshly built index
                self.sql("DROP INDEX IF EXISTS %s" % idx)
                if not self.attempt(ds, am, "CREATE INDEX", lambda: self.sql(
                        self.index_sql(am, idx, "d_oom", "k")) or True):
                    continue
                w0 = self.checkpoint_written()
                tot = dict(ops=0, seconds=0.0, cpu=0.0, wal_bytes=0, wal_fpi=0, blks_dirtied=0, blks_read=0.0)
                ok = True
                for off in range(0, m, batch):
                    r = self.attempt(ds, am, "pbt_bench_insert", lambda: self.dict1(
                        "SELECT * FROM pbt_bench_insert(%s, 'i_oom_random', %s, %s)", (idx, off, batch)))
                    if not r:
                        ok = False
                        break
                    tot["ops"] += r["ops"]
                    tot["seconds"] += r["seconds"]
                    tot["cpu"] += r["cpu_seconds"]
                    tot["wal_bytes"] += float(r["wal_bytes"])
                    tot["wal_fpi"] += r["wal_fpi"]
                    tot["blks_dirtied"] += r["blks_dirtied"]
                    tot["blks_read"] += r["reads_per_op"] * r["ops"]
                    self.sql("CHECKPOINT")
                w1 = self.checkpoint_written()
                if ok and tot["ops"]:
                    k = 1000.0 / tot["ops"]
                    self.rec(ds, "am_ins_random_ops", am, tot["ops"] / max(tot["cpu"], 1e-9))
                    self.rec(ds, "am_ins_random_ops_wall", am, tot["ops"] / tot["seconds"])
                    self.rec(ds, "am_ins_random_wal", am, tot["wal_bytes"] * k)
                    self.rec(ds, "am_ins_random_fpi", am, tot["wal_fpi"] * k)
                    self.rec(ds, "am_ins_random_dirtied", am, tot["blks_dirtied"] * k)
                    self.rec(ds, "am_ins_random_written", am, (w1 - w0) * k)
                    self.rec(ds, "am_ins_random_reads", am, tot["blks_read"] / tot["ops"])
                    if self.am_of(am) == "pagebtree":
                        folds = self.one("SELECT coalesce(sum(folds), 0), coalesce(sum(entries), 0) "
                                         "FROM pagebtree_runs(%s)", (idx,))
                        self.rec(ds, "am_ins_random_folds", am, float(folds[0]) * k)
                        self.rec(ds, "am_ins_random_pending", am, float(folds[1]) * k)
        self.measure_oom_after_inserts(ds, ord_ams, n + m)
        self.sql("DROP TABLE IF EXISTS d_oom, p_oom_uni, i_oom_random, p_oom_zipf, p_oom_long")

    def measure_oom_after_inserts(self, ds, ams, nkeys):
        """Reads of the indexes the last insert repetition left (the delta
        area's runs still pending): point lookups, uniform and Zipf, scans of
        10,000 rows, and sizes."""
        p = self.p
        kfn = OOM_KEYS[self.oom_keys][2]
        self.sql("DROP TABLE IF EXISTS p_oom_zipf, p_oom_long")
        self.sql("CREATE TABLE p_oom_zipf AS SELECT %s(bench_zipf_ord('pz', i, %d)) AS k "
                 "FROM generate_series(1, %d) i" % (kfn, nkeys, p["oom_probes"]))
        self.sql("CREATE TABLE p_oom_long AS SELECT %s(floor(bench_u('ol', i) * %d)::int8) AS k "
                 "FROM generate_series(1, 200) i" % (kfn, nkeys))
        for am in ams:
            self.rec(ds, "size_after_inserts_mb", am,
                     self.one("SELECT pg_relation_size('x_oom_%s')" % self.ident(am))[0] / 1048576.0)
        for rep in range(p["oom_reps"]):
            log("oom: reads after the inserts (rep %d/%d)" % (rep + 1, p["oom_reps"]))
            for am in abba(ams, rep):
                idx = "x_oom_%s" % self.ident(am)
                for kind, table in (("uniform", "p_oom_uni"), ("zipf", "p_oom_zipf")):
                    r = self.attempt(ds, am, "pbt_bench_lookup after inserts", lambda: self.dict1(
                        "SELECT * FROM pbt_bench_lookup(%s, %s, 1)", (idx, table)))
                    if r:
                        self.rec(ds, "am_after_lookup_%s_ops" % kind, am, r["ops_per_cpu_sec"])
                        self.rec(ds, "am_after_lookup_%s_ops_wall" % kind, am, r["ops_per_sec"])
                        self.rec(ds, "am_after_lookup_%s_bufs" % kind, am, r["buffers_per_op"])
                r = self.attempt(ds, am, "pbt_bench_scan after inserts", lambda: self.dict1(
                    "SELECT * FROM pbt_bench_scan(%s, 'p_oom_long', 10000, 1, 10000, %s)", (idx, self.seed)))
                if r:
                    self.rec(ds, "am_after_scan_long_rows", am, r["rows_returned"] / max(r["cpu_seconds"], 1e-9))
                    self.rec(ds, "am_after_scan_long_rows_wall", am, r["rows_per_sec"])
                    self.rec(ds, "am_after_scan_long_bufs", am, r["buffers_per_scan"])

    # ------------------------------------------------------------ cold reads
    def restart_cold(self, settings):
        """Empty shared buffers and the OS cache."""
        self.conn.close()
        self.cluster.restart(settings)
        subprocess.run(["sh", "-c", "sync; echo 1 > /proc/sys/vm/drop_caches"], check=True)
        self.conn = self.cluster.connect()

    def measure_cold(self):
        """Long forward scans and VACUUM with nothing cached, each access
        method on a table of its own whose index was made by random inserts
        (so that consecutive leaves are not consecutive blocks, where the
        kernel's read-ahead would hide the difference)."""
        p = self.p
        ds = "cold"
        if os.geteuid() != 0:
            self.warnings.append("cold phase skipped: dropping the OS cache needs root")
            return
        ams = [a for a in self.ams if a != "hash"]
        n = p["cold_rows"]
        settings = dict(self.settings)
        settings["effective_io_concurrency"] = "32"
        settings["maintenance_io_concurrency"] = "32"
        self.info["cold"] = {"rows": n, "scan_rows": p["cold_scan_rows"], "scans": p["cold_scans"],
                             "effective_io_concurrency": 32, "maintenance_io_concurrency": 32}
        self.sql("DROP TABLE IF EXISTS p_cold_start")
        self.sql("CREATE TABLE p_cold_start AS SELECT bench_key_sparse(floor(bench_u('cs', i) * %d)::int8) AS k "
                 "FROM generate_series(1, %d) i" % (n * 9 // 10, p["cold_scans"]))
        # = ANY: keys of one row in a thousand, spread over the whole index
        self.sql("DROP TABLE IF EXISTS p_cold_any")
        self.sql("CREATE TABLE p_cold_any AS SELECT bench_key_sparse(floor(bench_u('ca', i) * %d)::int8) AS k "
                 "FROM generate_series(1, %d) i" % (n, n // 1000))
        for am in ams:
            t = "d_cold_%s" % self.ident(am)
            log("cold: %s: %d random inserts" % (am, n))
            self.sql("DROP TABLE IF EXISTS %s" % t)
            self.sql("CREATE TABLE %s (k int8, v int4) WITH (autovacuum_enabled = off)" % t)
            if not self.attempt(ds, am, "CREATE INDEX", lambda: self.sql(
                    self.index_sql(am, "x_cold_%s" % self.ident(am), t, "k")) or True):
                continue
            self.sql("INSERT INTO %s SELECT bench_key_sparse(o), o %% 1000 FROM generate_series(0, %d) o "
                     "ORDER BY md5('cold:' || o)" % (t, n - 1))
            self.sql("VACUUM (FREEZE, ANALYZE) %s" % t)
        for rep in range(p["cold_reps"]):
            for am in abba(ams, rep):
                t = "d_cold_%s" % self.ident(am)
                idx = "x_cold_%s" % self.ident(am)
                log("cold: %s (rep %d/%d)" % (am, rep + 1, p["cold_reps"]))
                self.restart_cold(settings)
                r = self.attempt(ds, am, "pbt_bench_scan cold", lambda: self.dict1(
                    "SELECT * FROM pbt_bench_scan(%s, 'p_cold_start', %s, 1, %s, %s, false)",
                    (idx, p["cold_scan_rows"], p["cold_scan_rows"], self.seed)))
                if r:
                    self.rec(ds, "cold_scan_rows_wall", am, r["rows_per_sec"])
                    self.rec(ds, "cold_scan_reads", am, r["reads_per_scan"])
                self.restart_cold(settings)
                t0 = time.time()
                if self.attempt(ds, am, "backward cold", lambda: self.sql(
                        "SET enable_seqscan = off; SET enable_bitmapscan = off; "
                        "SELECT count(*) FROM (SELECT k FROM %s WHERE k <= (SELECT max(k) FROM p_cold_start) "
                        "ORDER BY k DESC LIMIT %d) s; "
                        "RESET enable_seqscan; RESET enable_bitmapscan" % (t, p["cold_scan_rows"])) or True):
                    self.rec(ds, "cold_backward_secs", am, time.time() - t0)
                self.restart_cold(settings)
                t0 = time.time()
                if self.attempt(ds, am, "= ANY cold", lambda: self.sql(
                        "SET enable_seqscan = off; SET enable_bitmapscan = off; "
                        "SELECT count(*) FROM %s WHERE k = ANY(ARRAY(SELECT k FROM p_cold_any)); "
                        "RESET enable_seqscan; RESET enable_bitmapscan" % t) or True):
                    self.rec(ds, "cold_any_secs", am, time.time() - t0)
                self.sql("DELETE FROM %s WHERE v = %d" % (t, rep * 10 + 1))
                self.restart_cold(settings)
                t0 = time.time()
                if self.attempt(ds, am, "VACUUM cold", lambda: self.sql("VACUUM %s" % t) or True):
                    self.rec(ds, "cold_vacuum_secs", am, time.time() - t0)
        self.conn.close()
        self.cluster.restart(self.settings)
        self.conn = self.cluster.connect()
        for am in ams:
            self.sql("DROP TABLE IF EXISTS d_cold_%s" % self.ident(am))
        self.sql("DROP TABLE IF EXISTS p_cold_start")
        self.sql("DROP TABLE IF EXISTS p_cold_any")

    # ------------------------------------------------------------------ run
    def run(self):
        started = datetime.datetime.now(datetime.timezone.utc)
        self.library = library_id() if self.pagebtree_installed else None
        # the commit measured is the one checked out when the run starts
        self.git_commit = git_commit()
        try:
            self.start_cluster()
            log("access methods: %s" % ", ".join(
                a + self.with_sql(a) for a in self.ams))
            for ds in self.datasets:
                self.setup_dataset(ds)
                self.measure_builds(ds)
                if "datasets" in self.phases:
                    self.measure_am_reads(ds)
                    self.measure_am_inserts(ds)
                    self.measure_sql_inserts(ds)
                    if ds in self.pgbench_datasets:
                        self.measure_pgbench(ds)
                self.drop_dataset(ds)
                self.sql("CHECKPOINT")
            if "update-growth" in self.phases:
                self.measure_update_growth()
            if "oom" in self.phases:
                self.measure_oom()
            if "cold" in self.phases:
                self.measure_cold()
        finally:
            if self.library:
                now = library_id()
                if now != self.library:
                    self.warnings.append(
                        "pagebtree.so was replaced during the run (sha256 %s, %s at the start; now %s): "
                        "the server loads the library at (re)start, so phases after a restart may have "
                        "measured another build" % (self.library["sha256"], self.library["mtime_utc"],
                                                    ("%s, %s" % (now["sha256"], now["mtime_utc"])) if now else "gone"))
            self.elapsed = time.time() - T0
            self.started = started
            try:
                if self.conn is not None and not self.conn.closed:
                    self.conn.close()
            except Exception:
                pass
            self.cluster.cleanup()

    def raw(self):
        return {
            "meta": {
                "name": self.args.name,
                "mode": self.args.mode,
                "command": self.args.command_line,
                "started_utc": self.started.isoformat(timespec="seconds"),
                "elapsed_s": round(self.elapsed, 1),
                "seed": self.seed,
                "params": self.p,
                "datasets": {d: DATASETS[d]["desc"] for d in self.datasets},
                "dataset_order": self.datasets,
                "pgbench_datasets": self.pgbench_datasets,
                "access_methods": self.ams,
                "variants": {a: {"am": v["am"], "options": v["options"],
                                 "settings": v["settings"]}
                             for a, v in self.variants.items() if a in self.ams},
                "pagebtree_installed": self.pagebtree_installed,
                "pagebtree_library": getattr(self, "library", None),
                "server_settings": self.settings,
                "oom_settings": getattr(self, "oom_settings", None),
                "update_growth_settings": getattr(self, "ug_settings", None),
                "server_version": getattr(self, "server_version", None),
                "git_commit": self.git_commit,
                "host": {"cpus": os.cpu_count(), "machine": platform.machine(),
                         "kernel": platform.release()},
            },
            "results": self.results,
            "update_growth": self.update_growth,
            "info": self.info,
            "errors": self.errors,
            "warnings": self.warnings,
        }


def plan_shape(node):
    """Compact plan text: 'Limit > Index Only Scan(x_url_btree)'."""
    label = node.get("Node Type", "?")
    if node.get("Index Name"):
        label += "(%s)" % node["Index Name"]
    elif node.get("Relation Name"):
        label += "(%s)" % node["Relation Name"]
    kids = node.get("Plans") or []
    if len(kids) == 1:
        return label + " > " + plan_shape(kids[0])
    if kids:
        return label + " [" + ", ".join(plan_shape(k) for k in kids) + "]"
    return label


def library_id(name="pagebtree.so"):
    """sha256 prefix and mtime of an installed library: the git commit says
    what is in the repository, not what the server loads."""
    import hashlib
    path = os.path.join(pg_config("--pkglibdir"), name)
    try:
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        mtime = datetime.datetime.fromtimestamp(os.stat(path).st_mtime, datetime.timezone.utc)
        return {"path": path, "sha256": digest, "mtime_utc": mtime.isoformat(timespec="seconds")}
    except OSError:
        return None


def git_commit():
    try:
        rev = subprocess.check_output(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                      text=True, stderr=subprocess.DEVNULL).strip()
        dirty = subprocess.run(["git", "-C", REPO, "diff", "--quiet", "HEAD", "--", "src"],
                               stderr=subprocess.DEVNULL).returncode != 0
        return rev + ("+dirty(src)" if dirty else "")
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=sorted(MODES), default="quick")
    ap.add_argument("--name", help="results name (default: the mode)")
    ap.add_argument("--datasets", type=lambda s: [x for x in s.split(",") if x],
                    help="comma-separated subset of: " + ",".join(DATASETS))
    ap.add_argument("--pgbench-datasets", help="data sets that also get pgbench runs ('' for none)")
    ap.add_argument("--rows", type=int, help="rows per data set (scale)")
    ap.add_argument("--inserts", type=int, help="new keys per insert measurement")
    ap.add_argument("--probes", type=int, help="lookup keys per pass")
    ap.add_argument("--reps", type=int, help="repetitions of AM-level measurements")
    ap.add_argument("--pgbench-secs", type=int, help="seconds per read-only pgbench run")
    ap.add_argument("--pgbench-tx", type=int, help="transactions per client of each write pgbench run")
    ap.add_argument("--pgbench-reps", type=int, help="repetitions of each pgbench run")
    ap.add_argument("--clients", type=int, help="pgbench clients (and threads)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--port", type=int, default=55490)
    ap.add_argument("--phases", default=",".join(PHASES),
                    type=lambda s: [x.strip() for x in s.split(",") if x.strip()],
                    help="comma-separated phases to run, in their fixed order: %s (default: all; "
                         "'datasets' is every per-data-set measurement)" % ",".join(PHASES))
    ap.add_argument("--no-oom", action="store_true", help="skip the out-of-memory phase")
    ap.add_argument("--oom-keys", choices=sorted(OOM_KEYS), default="int8",
                    help="keys of the out-of-memory phase (default int8: sparse int8; text: URL-like)")
    ap.add_argument("--no-update-growth", action="store_true", help="skip the update-growth phase")
    ap.add_argument("--update-growth-rows", dest="ug_rows", type=int, metavar="N",
                    help="rows per table in the update-growth phase (quick 100000, full 1000000)")
    ap.add_argument("--update-growth-secs", dest="ug_secs", type=int, metavar="S",
                    help="seconds of the update-growth pgbench run (quick 30, full 120)")
    ap.add_argument("--pbt-layouts", metavar="LIST",
                    help="comma-separated pagebtree layouts (reloption layout), each measured as its "
                         "own variant pagebtree[<layout>] created WITH (layout = '<layout>'); "
                         "'default' is the index without the reloption, labelled pagebtree "
                         "(default: just that one); bpa-l<L>-b<B> is layout = 'bpa' with "
                         "bpa_log_size = L and bpa_block_size = B; heads-nohints is layout = 'heads' "
                         "measured with pagebtree.ablate_leaf_hints = on (heads leaves searched "
                         "without their hints)")
    ap.add_argument("--without-pagebtree", action="store_true",
                    help="measure btree and hash only, even if pagebtree is installed")
    ap.add_argument("--keep", action="store_true", help="keep the cluster directory")
    ap.add_argument("--no-preload", action="store_true",
                    help="do not preload pagebtree (generic WAL instead of its resource manager)")
    ap.add_argument("--results-dir", default=os.path.join(HERE, "results"))
    ap.add_argument("--command-line", default=" ".join(sys.argv), help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.name = args.name or args.mode
    for d in args.datasets or []:
        if d not in DATASETS:
            ap.error("unknown data set %s (known: %s)" % (d, ",".join(DATASETS)))
    for ph in args.phases:
        if ph not in PHASES:
            ap.error("unknown phase %s (known: %s)" % (ph, ",".join(PHASES)))
    if args.pbt_layouts is not None:
        layouts = []
        for x in args.pbt_layouts.split(","):
            x = x.strip().lower()
            if not x:
                continue
            if x != "default" and not (LAYOUT_NAME.match(x) and len(x) <= 24):
                ap.error("--pbt-layouts: %r is not a layout name (a letter, then letters, digits "
                         "_ or -; at most 24: it becomes part of table and index names)" % x)
            x = None if x == "default" else x
            if x not in layouts:
                layouts.append(x)
        if not layouts:
            ap.error("--pbt-layouts: empty list")
        if args.without_pagebtree:
            ap.error("--pbt-layouts and --without-pagebtree exclude each other")
        args.pbt_layouts = layouts

    bench = Bench(args)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    try:
        bench.run()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except SetupError as e:
        print("harness.py: error: %s" % e, file=sys.stderr)
        return 2
    raw = bench.raw()
    os.makedirs(args.results_dir, exist_ok=True)
    base = os.path.join(args.results_dir, args.name)
    with open(base + ".json", "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True, default=str)
    import report
    md = report.write_report(raw, base)
    print()
    print(md)
    log("wrote %s.md, %s.json and plots" % (base, base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
