#!/usr/bin/env python3
"""Turn the harness's raw JSON into bench/results/<name>.md and PNG plots.

    python3 bench/report.py bench/results/quick.json     # regenerate
"""

import json
import os
import statistics
import sys

# (metric key, label, unit, better) -- better: "high", "low" or None (informative)
SECTIONS = [
    ("Structure", [
        ("build_s", "build time (backend CPU)", "s", "low"),
        ("build_wall_s", "build time (wall clock)", "s", "low"),
        ("size_mb", "index size", "MB", "low"),
        ("height", "tree height (levels)", "", None),
        ("leaf_pages", "leaf pages", "", "low"),
        ("inner_pages", "inner pages", "", "low"),
        ("leaf_fill_pct", "avg leaf fill", "%", None),
    ]),
    ("AM level: lookups and scans (pagebtree_bench: index_rescan + index_getnext_tid; rates per backend CPU-second)", [
        ("am_lookup_uniform_ops", "lookups/s, uniform", "/s", "high"),
        ("am_lookup_zipf_ops", "lookups/s, Zipf 0.99", "/s", "high"),
        ("am_lookup_uniform_ops_wall", "lookups/s, uniform (wall clock)", "/s", "high"),
        ("am_lookup_uniform_bufs", "buffer accesses/lookup, uniform", "", "low"),
        ("am_lookup_zipf_bufs", "buffer accesses/lookup, Zipf", "", "low"),
        ("am_scan_short_ops", "short scans/s (1-50 rows)", "/s", "high"),
        ("am_scan_short_bufs", "buffer accesses/short scan", "", "low"),
        ("am_scan_long_rows", "long scans (10,000 rows): rows/s", "/s", "high"),
        ("am_scan_long_bufs", "buffer accesses/long scan", "", "low"),
    ]),
    ("AM level: inserts (pagebtree_bench: index_insert into a freshly built index; rates per backend CPU-second)", [
        ("am_ins_random_ops", "inserts/s, random", "/s", "high"),
        ("am_ins_asc_ops", "inserts/s, ascending", "/s", "high"),
        ("am_ins_random_ops_wall", "inserts/s, random (wall clock)", "/s", "high"),
        ("am_ins_random_bufs", "buffer accesses/insert, random", "", "low"),
        ("am_ins_random_wal", "WAL bytes/1000 random inserts", "B", "low"),
        ("am_ins_random_wal_nofpi", "WAL bytes/1000 random inserts, without full-page images", "B", "low"),
        ("am_ins_random_fpi", "FPIs/1000 random inserts", "", "low"),
        ("am_ins_random_dirtied", "pages dirtied/1000 random inserts", "", "low"),
        ("am_ins_random_written", "pages written/1000 random inserts", "", "low"),
        ("am_ins_asc_wal", "WAL bytes/1000 ascending inserts", "B", "low"),
        ("am_ins_asc_wal_nofpi", "WAL bytes/1000 ascending inserts, without full-page images", "B", "low"),
        ("am_ins_asc_fpi", "FPIs/1000 ascending inserts", "", "low"),
        ("am_ins_asc_dirtied", "pages dirtied/1000 ascending inserts", "", "low"),
        ("am_ins_asc_written", "pages written/1000 ascending inserts", "", "low"),
        ("am_ins_random_size_mb", "index size after random inserts", "MB", "low"),
        ("am_ins_asc_size_mb", "index size after ascending inserts", "MB", "low"),
    ]),
    ("SQL level: INSERT ... SELECT (EXPLAIN ANALYZE, WAL, BUFFERS; rows per backend CPU-second); 'no index' is the ceiling", [
        ("sql_load_rows_per_sec", "load phase: rows/s into empty table", "/s", "high"),
        ("sql_load_rows_per_sec_wall", "load phase: rows/s (wall clock)", "/s", "high"),
        ("sql_load_wal", "load: WAL bytes/1000 rows", "B", "low"),
        ("sql_load_fpi", "load: FPIs/1000 rows", "", "low"),
        ("sql_load_dirtied", "load: pages dirtied/1000 rows", "", "low"),
        ("sql_load_written", "load: pages written/1000 rows", "", "low"),
        ("sql_random_rows_per_sec", "random inserts into loaded table: rows/s", "/s", "high"),
        ("sql_random_rows_per_sec_wall", "random inserts: rows/s (wall clock)", "/s", "high"),
        ("sql_random_wal", "random: WAL bytes/1000 rows", "B", "low"),
        ("sql_random_fpi", "random: FPIs/1000 rows", "", "low"),
        ("sql_random_dirtied", "random: pages dirtied/1000 rows", "", "low"),
        ("sql_random_written", "random: pages written/1000 rows", "", "low"),
    ]),
    ("End to end: pgbench (tps = wall clock; /CPU-s = transactions per second of server CPU)", [
        ("pgb_select_uniform", "point SELECT, uniform: tps", "tps", "high"),
        ("pgb_select_uniform_cpu", "point SELECT, uniform: tx/CPU-s", "tps", "high"),
        ("pgb_ycsb_c", "YCSB-C (Zipf point SELECT): tps", "tps", "high"),
        ("pgb_ycsb_c_cpu", "YCSB-C: tx/CPU-s", "tps", "high"),
        ("pgb_range", "ORDER BY k LIMIT 1-50 (index-only): tps", "tps", "high"),
        ("pgb_range_cpu", "ORDER BY k LIMIT 1-50: tx/CPU-s", "tps", "high"),
        ("pgb_ycsb_e", "YCSB-E (95% scans 1-100, 5% inserts): tps", "tps", "high"),
        ("pgb_ycsb_e_cpu", "YCSB-E: tx/CPU-s", "tps", "high"),
        ("pgb_ycsb_d", "YCSB-D (95% read-latest, 5% inserts): tps", "tps", "high"),
        ("pgb_ycsb_d_cpu", "YCSB-D: tx/CPU-s", "tps", "high"),
        ("pgb_insert", "INSERT one row: tps", "tps", "high"),
        ("pgb_insert_cpu", "INSERT one row: tx/CPU-s", "tps", "high"),
    ]),
]

OOM_SECTION = ("Out of memory: index >= 4x shared_buffers, CHECKPOINT at a fixed insert interval", [
    ("am_lookup_uniform_ops", "lookups/s per CPU-s, uniform", "/s", "high"),
    ("am_lookup_uniform_ops_wall", "lookups/s, uniform (wall clock)", "/s", "high"),
    ("am_lookup_uniform_bufs", "buffer accesses/lookup", "", "low"),
    ("am_lookup_uniform_reads", "buffer reads/lookup", "", "low"),
    ("am_ins_random_ops", "inserts/s per CPU-s, random", "/s", "high"),
    ("am_ins_random_ops_wall", "inserts/s, random (wall clock)", "/s", "high"),
    ("am_ins_random_reads", "buffer reads/insert", "", "low"),
    ("am_ins_random_wal", "WAL bytes/1000 inserts", "B", "low"),
    ("am_ins_random_fpi", "FPIs/1000 inserts", "", "low"),
    ("am_ins_random_dirtied", "pages dirtied/1000 inserts", "", "low"),
    ("am_ins_random_written", "pages written/1000 inserts", "", "low"),
    ("am_ins_random_folds", "delta area: runs folded/1000 inserts", "", "low"),
    ("am_ins_random_pending", "delta area: entries still pending/1000 inserts", "", "low"),
    ("size_after_inserts_mb", "index size after the inserts (side pages included)", "MB", "low"),
    ("am_after_lookup_uniform_ops", "after the inserts: lookups/s per CPU-s, uniform", "/s", "high"),
    ("am_after_lookup_zipf_ops", "after the inserts: lookups/s per CPU-s, Zipf 0.99", "/s", "high"),
    ("am_after_lookup_uniform_bufs", "after the inserts: buffer accesses/lookup", "", "low"),
    ("am_after_scan_long_rows", "after the inserts: scans of 10,000 rows, rows/s per CPU-s", "/s", "high"),
    ("am_after_scan_long_rows_wall", "after the inserts: scans of 10,000 rows, rows/s (wall clock)", "/s", "high"),
    ("am_after_scan_long_bufs", "after the inserts: buffer accesses/scan", "", "low"),
])

COLD_SECTION = ("With the OS cache dropped and shared buffers empty before each measurement", [
    ("cold_scan_rows_wall", "long scans: rows/s (wall clock)", "/s", "high"),
    ("cold_scan_reads", "long scans: buffer reads/scan", "", "low"),
    ("cold_backward_secs", "index-only backward scan, as many rows as a long scan: seconds", "s", "low"),
    ("cold_any_secs", "index-only scan of k = ANY(keys of 0.1% of the rows): seconds", "s", "low"),
    ("cold_vacuum_secs", "VACUUM after deleting 1% of the rows: seconds", "s", "low"),
])

COLUMN_TITLES = {"noindex": "no index"}


def variants_of(meta):
    """Labels of the pagebtree variants, in the harness's order: pagebtree,
    pagebtree[plain], ... (older JSON files: every AM but btree and hash)."""
    ams = meta.get("access_methods", [])
    if meta.get("variants"):
        # the JSON is written with sorted keys: the order is access_methods'
        return [a for a in ams if a in meta["variants"]] + [a for a in meta["variants"] if a not in ams]
    return [a for a in ams if a not in ("btree", "hash", "noindex")]


def column_order(meta):
    return ["btree"] + variants_of(meta) + ["hash", "noindex"]


def am_of(meta, label):
    v = (meta.get("variants") or {}).get(label)
    return v["am"] if v else label.split("[")[0]


def variant_desc(meta, label):
    """'pagebtree[plain] (WITH (layout = 'plain'))'; a variant measured under
    session settings adds them: 'pagebtree[heads-nohints] (WITH (layout =
    'heads'), SET pagebtree.ablate_leaf_hints = on)'"""
    v = (meta.get("variants") or {}).get(label) or {}
    opts = v.get("options") or {}
    parts = []
    if opts:
        parts.append("WITH (%s)" % ", ".join("%s = '%s'" % kv for kv in opts.items()))
    parts += ["SET %s = %s" % kv for kv in (v.get("settings") or {}).items()]
    if not parts:
        return label
    return "%s (%s)" % (label, ", ".join(parts))


def med(xs):
    xs = [x for x in (xs or []) if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs):
    """Relative median absolute deviation: robust to a single outlier run."""
    xs = [x for x in (xs or []) if x is not None]
    if len(xs) < 2:
        return None
    m = statistics.median(xs)
    return statistics.median([abs(x - m) for x in xs]) / abs(m) if m else None


def fmt(v, unit=""):
    if v is None:
        return "—"
    a = abs(v)
    if unit in ("/s", "tps"):
        if a >= 1e6:
            return "%.2fM" % (v / 1e6)
        if a >= 1e3:
            return "%.1fk" % (v / 1e3)
        return "%.0f" % v
    if unit == "B":
        if a >= 1e6:
            return "%.2f MB" % (v / 1e6)
        if a >= 1e3:
            return "%.1f kB" % (v / 1e3)
        return "%.0f B" % v
    if unit == "s":
        return "%.3f s" % v if a < 10 else "%.1f s" % v
    if unit == "MB":
        return "%.2f MB" % v
    if unit == "%":
        return "%.1f%%" % v
    if a >= 1000 or (v == int(v) and a >= 10):
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    return "%.2f" % v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r, better, noise=0.0):
    if r is None:
        return "—"
    s = "%.2f" % r
    if better and abs(r - 1) >= max(0.05, 2 * (noise or 0.0)):
        good = (r > 1) == (better == "high")
        s += " ✓" if good else " ✗"
    return s


def table(res, metrics, ams_present, meta):
    """Medians per access method (btree, each pagebtree variant, hash, no
    index), then one ratio column <variant>/btree per pagebtree variant."""
    cols = [c for c in column_order(meta) if c in ams_present]
    rcols = [c for c in variants_of(meta) if c in ams_present]
    if not rcols and "pagebtree" not in ams_present:
        rcols = ["pagebtree"]      # keep the column (all '—') for btree-only runs
    head = (["metric"] + [COLUMN_TITLES.get(c, c) for c in cols]
            + ["%s/btree" % c for c in rcols] + ["spread"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, label, unit, better in metrics:
        vals = res.get(key)
        if not vals:
            continue
        meds = {c: med(vals.get(c)) for c in cols}
        sp = [spread(vals.get(c)) for c in cols]
        sp = [x for x in sp if x is not None]
        ratios = []
        for c in rcols:
            r = ratio(meds.get(c), meds.get("btree"))
            pair = [x for x in (spread(vals.get("btree")), spread(vals.get(c))) if x is not None]
            ratios.append(fmt_ratio(r, better, max(pair) if pair else 0.0))
        row = [label] + [fmt(meds[c], unit) for c in cols] + ratios + [
            ("±%.0f%%" % (100 * max(sp))) if sp else ""]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def update_growth_section(raw):
    """Markdown for the update-growth phase (raw["update_growth"])."""
    ug = raw.get("update_growth")
    if not ug:
        return []
    meta = raw["meta"]
    per = ug.get("per_am", {})
    labels = [a for a in column_order(meta) if a in per] + [a for a in per if a not in column_order(meta)]
    lines = ["## Update growth (index size under an update-heavy workload)", ""]
    lines.append(
        "Workload: one table per access method, each loaded with the same %s rows (id int8, v int4 "
        "with %d distinct values, 84-byte text pad) and two indexes of that access method, on id "
        "(unique, never updated) and on v; pgbench, %d clients, %d threads, %d s: each transaction "
        "picks a random id and a random new v and updates that row in every table (same "
        "transaction, so every access method sees the same updates); autovacuum on with default "
        "settings (autovacuum_naptime 1 min, counted from the start of the run: a short run may "
        "see none; see the last column). %s transactions%s%s." % (
            "{:,}".format(ug["rows"]), ug["distinct_v"], ug["clients"], ug["threads"], ug["seconds"],
            "{:,}".format(ug["transactions"]) if ug.get("transactions") is not None else "?",
            (" (%.0f tps)" % ug["tps"]) if ug.get("tps") else "",
            (", %d failed" % ug["failed_transactions"]) if ug.get("failed_transactions") else ""))
    lines.append("")
    head = ["access method", "id index pages: before → after", "v index pages: before → after",
            "both after", "after / btree: id", "v", "both", "autovacuums"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for a in labels:
        e = per[a]
        r = e.get("ratio_after") or {}
        rf = lambda k: ("%.2f" % r[k]) if k in r else ("1.00" if a == "btree" else "—")
        lines.append("| %s | %d → %d (%+.0f%%) | %d → %d (%+.0f%%) | %d | %s | %s | %s | %s |" % (
            variant_desc(meta, a),
            e["id_pages_before"], e["id_pages_after"],
            100.0 * (e["id_pages_after"] / max(e["id_pages_before"], 1) - 1),
            e["v_pages_before"], e["v_pages_after"],
            100.0 * (e["v_pages_after"] / max(e["v_pages_before"], 1) - 1),
            e["id_pages_after"] + e["v_pages_after"], rf("id"), rf("v"), rf("both"),
            e.get("autovacuum_count", "?")))
    lines.append("")
    hot = ["%s %.0f%%" % (a, 100.0 * per[a]["n_tup_hot_upd"] / per[a]["n_tup_upd"])
           for a in labels if per[a].get("n_tup_upd")]
    heap = ["%s %d → %d" % (a, per[a]["heap_pages_before"], per[a]["heap_pages_after"]) for a in labels]
    lines.append("Heap pages: %s. HOT updates: %s." % ("; ".join(heap), "; ".join(hot) or "—"))
    lines.append("")
    return lines


def consistency(raw):
    """Same probes must find the same number of TIDs in every AM."""
    notes = []
    for ds, res in raw["results"].items():
        for key in sorted(res):
            if not (key.endswith("_found") or key.endswith("_nrows")):
                continue
            # hash is lossy (the executor rechecks): it may return extra TIDs
            vals = {am: med(v) for am, v in res[key].items() if am != "hash"}
            base = vals.get("btree")
            for am, v in vals.items():
                if base is not None and v is not None and abs(v - base) > 1e-9:
                    notes.append("%s: %s: %s gives %s, btree gives %s" % (ds, key, am, v, base))
    return notes


def present_ams(res):
    s = set()
    for vals in res.values():
        s.update(vals)
    return s


def write_report(raw, base):
    meta = raw["meta"]
    lines = []
    name = meta["name"]
    lines.append("# pagebtree benchmark: %s" % name)
    lines.append("")
    lines.append("Command: `%s`  " % meta["command"])
    lines.append("Mode: %s, seed %s, started %s UTC, took %.0f s; git %s; %s CPUs.  " % (
        meta["mode"], meta["seed"], meta["started_utc"], meta["elapsed_s"], meta.get("git_commit"),
        meta["host"]["cpus"]))
    lines.append("Server: %s  " % meta.get("server_version"))
    if meta.get("pagebtree_library"):
        lines.append("pagebtree.so: sha256 %s…, installed %s UTC  " % (
            meta["pagebtree_library"]["sha256"], meta["pagebtree_library"]["mtime_utc"]))
    lines.append("Access methods: %s%s" % (", ".join(variant_desc(meta, a) for a in meta["access_methods"]),
                                           "" if meta["pagebtree_installed"] else
                                           " (pagebtree not installed)"))
    lines.append("")
    has_ds = bool(raw["results"])
    if has_ds:
        lines.append("Figures are medians of %d repetitions (SQL-level: %d, pgbench: %d); the access "
                     "methods alternate within a repetition (A B, then B A). Ratio = pagebtree/btree "
                     "of the medians (one ratio column per pagebtree variant); ✓/✗ mark a difference in pagebtree's favour or against it that is "
                     "at least 5%% and at least twice the spread of btree's and that pagebtree variant's figures. 'spread' is the largest relative median absolute deviation among the "
                     "row's columns: ratios closer to 1 than about twice that are noise. Throughput is "
                     "given per CPU-second of the server backend (steady on a shared machine) and, in "
                     "the rows so marked, per wall-clock second. Compare ratios, not absolute "
                     "figures." % (
                         meta["params"]["reps"], meta["params"]["sql_reps"], meta["params"]["pgbench_reps"]))
        lines.append("")
    p = meta["params"]
    if has_ds:
        lines.append("Scale: %d rows per data set; %d lookup keys x %d passes; %d short scans; %d long "
                     "scans; %d new keys per insert run; pgbench %d clients, %d s (read-only) / %d "
                     "transactions per client (writes), on: %s." % (
                         p["rows"], p["probes"], p["lookup_loops"], p["short_scans"], p["long_scans"],
                         p["inserts"], p["clients"], p["pgbench_secs"], p["pgbench_tx"],
                         ", ".join(meta["pgbench_datasets"]) or "none"))
        lines.append("")
    order = list(meta.get("dataset_order") or meta["datasets"]) + \
        [d for d in ("oom", "cold") if d in raw["results"]]
    for ds in order:
        res = raw["results"].get(ds, {})
        if not res:
            continue
        if ds == "oom":
            oi = raw["info"].get("oom", {})
            lines.append("## Out-of-memory mode (%s)" % oi.get("keys", "sparse int8"))
            lines.append("")
            lines.append("%d rows; shared_buffers %d kB; index sizes %s; %d random inserts via "
                         "index_insert with a CHECKPOINT every %d; full_page_writes on." % (
                             oi.get("rows", 0), oi.get("shared_buffers_kb", 0),
                             ", ".join("%s %.1f MB (%.1fx)" % (a, s, s * 1024 / max(oi.get("shared_buffers_kb", 1), 1))
                                       for a, s in oi.get("index_mb", {}).items()),
                             oi.get("inserts", 0), oi.get("checkpoint_every", 0)))
            lines.append("")
            t = table(res, OOM_SECTION[1], present_ams(res), meta)
            if t:
                lines.append(t)
                lines.append("")
            continue
        if ds == "cold":
            ci = raw["info"].get("cold", {})
            lines.append("## Cold reads (sparse int8, index built by random inserts)")
            lines.append("")
            lines.append("%d rows; long scans of %d rows from %d start keys; effective_io_concurrency %s, "
                         "maintenance_io_concurrency %s (pagebtree[noprefetch]: 0); before each measurement "
                         "the server restarts and the OS cache is dropped (sync; echo 1 > "
                         "/proc/sys/vm/drop_caches)." % (
                             ci.get("rows", 0), ci.get("scan_rows", 0), ci.get("scans", 0),
                             ci.get("effective_io_concurrency"), ci.get("maintenance_io_concurrency")))
            lines.append("")
            t = table(res, COLD_SECTION[1], present_ams(res), meta)
            if t:
                lines.append(t)
                lines.append("")
            continue
        lines.append("## %s — %s" % (ds, meta["datasets"][ds]))
        lines.append("")
        ams = present_ams(res)
        for title, metrics in SECTIONS:
            t = table(res, metrics, ams, meta)
            if t:
                lines.append("**%s**" % title)
                lines.append("")
                lines.append(t)
                lines.append("")
        info = raw["info"].get(ds, {})
        ppl, lays = [], []
        for am in ["btree"] + variants_of(meta):
            st = info.get(am, {}).get("structure", {})
            if st.get("pages_per_level"):
                ppl.append("%s %s" % (am, " / ".join(str(c) for c in st["pages_per_level"])))
            # leaf pages per layout tag (pagebtree_page_stats), to see what a layout option did
            leaf = {}
            for pg in st.get("pages", []):
                if pg.get("level") == 0 and pg.get("layout") and pg.get("count"):
                    leaf[pg["layout"]] = leaf.get(pg["layout"], 0) + pg["count"]
            if leaf:
                lays.append("%s %s" % (am, ", ".join("%s %d" % kv for kv in sorted(leaf.items()))))
        if ppl:
            lines.append("Pages per level, leaf level first: " + "; ".join(ppl) + ".")
            lines.append("")
        if lays:
            lines.append("Leaf pages by layout: " + "; ".join(lays) + ".")
            lines.append("")
        facts = []
        plans = {}
        for am in column_order(meta):
            for metric, shape in info.get(am, {}).get("plans", {}).items():
                plans.setdefault(metric, []).append("%s: `%s`" % (am, shape))
        if plans:
            lines.append("Generic plans of the pgbench statements (as run with -M prepared, "
                         "plan_cache_mode=force_generic_plan):")
            lines.append("")
            for metric, entries in plans.items():
                lines.append("- %s — %s" % (metric[4:], "; ".join(entries)))
            lines.append("")
        for am in variants_of(meta):
            i = info.get(am, {})
            m = i.get("structure", {}).get("meta")
            if am_of(meta, am) == "pagebtree" and m:
                facts.append("%s metapage: key_mode=%s, wal_mode=%s, level=%s" % (
                    am, m.get("key_mode"), m.get("wal_mode"), m.get("level")))
        if facts:
            lines.append("; ".join(facts) + ".")
            lines.append("")
    lines += update_growth_section(raw)
    notes = consistency(raw)
    lines.append("## Checks")
    lines.append("")
    failed, passed = [], 0
    for ds, per_am in raw["info"].items():
        if not isinstance(per_am, dict):
            continue
        for am, i in per_am.items():
            if not isinstance(i, dict):
                continue
            for c in i.get("checks", []):
                if c.endswith("FAILED"):
                    failed.append("%s/%s %s" % (ds, am, c))
                else:
                    passed += 1
    lines.append("Structural checks (amcheck bt_index_check for btree, pagebtree_check for "
                 "pagebtree; after build, pgbench and the update-growth run with heapallindexed): %d passed, %d failed%s" % (
                     passed, len(failed), (": " + "; ".join(failed)) if failed else "."))
    lines.append("")
    if not has_ds:
        pass
    elif notes:
        lines.append("Result mismatches between access methods (same probes, different answers):")
        lines += ["- " + n for n in notes]
    else:
        lines.append("btree and pagebtree (every variant) returned the same number of TIDs for the same lookup and "
                     "scan probes (hash is lossy and not compared).")
    if has_ds:
        lines.append("")
    if raw["warnings"]:
        lines.append("Warnings:")
        lines += ["- " + w for w in raw["warnings"]]
        lines.append("")
    if raw["errors"]:
        lines.append("## Errors")
        lines.append("")
        for e in raw["errors"]:
            lines.append("- %s / %s / %s: %s%s" % (e["dataset"], e["am"], e["step"],
                                                   ("[%s] " % e["sqlstate"]) if e.get("sqlstate") else "",
                                                   e["message"].replace("\n", " ")[:600]))
        lines.append("")
    lines.append("## Settings")
    lines.append("")
    lines.append("Private cluster (initdb into a temporary directory, Unix socket only), "
                 "postgresql.auto.conf:")
    lines.append("")
    lines.append("```")
    for k, v in sorted((meta.get("server_settings") or {}).items()):
        lines.append("%s = %s" % (k, v))
    if meta.get("oom_settings"):
        lines.append("# out-of-memory phase: shared_buffers = %s" % meta["oom_settings"]["shared_buffers"])
    if meta.get("update_growth_settings"):
        lines.append("# update-growth phase: autovacuum = %s" % meta["update_growth_settings"].get("autovacuum"))
    lines.append("```")
    lines.append("")
    lines.append("Harness parameters: `%s`" % json.dumps(meta["params"], sort_keys=True))
    lines.append("")
    plots = make_plots(raw, base)
    if plots:
        lines.append("Plots: " + ", ".join("[%s](%s)" % (os.path.basename(pl), os.path.basename(pl))
                                            for pl in plots))
        lines.append("")
    md = "\n".join(lines)
    with open(base + ".md", "w") as f:
        f.write(md)
    return md


PLOT_METRICS = [
    ("build_s", "build time", "low"),
    ("size_mb", "size", "low"),
    ("am_lookup_uniform_ops", "lookups/s uni", "high"),
    ("am_lookup_zipf_ops", "lookups/s zipf", "high"),
    ("am_scan_short_ops", "short scans/s", "high"),
    ("am_scan_long_rows", "long scan rows/s", "high"),
    ("am_ins_random_ops", "inserts/s rand", "high"),
    ("am_ins_asc_ops", "inserts/s asc", "high"),
    ("am_ins_random_wal", "WAL/ins rand", "low"),
    ("am_ins_random_fpi", "FPI/ins rand", "low"),
    ("am_ins_random_written", "written/ins rand", "low"),
    ("sql_load_rows_per_sec", "SQL load rows/s", "high"),
    ("sql_random_rows_per_sec", "SQL rand ins rows/s", "high"),
    ("pgb_select_uniform_cpu", "pgb select /CPU", "high"),
    ("pgb_ycsb_c_cpu", "pgb YCSB-C /CPU", "high"),
    ("pgb_range_cpu", "pgb range /CPU", "high"),
    ("pgb_ycsb_e_cpu", "pgb YCSB-E /CPU", "high"),
    ("pgb_ycsb_d_cpu", "pgb YCSB-D /CPU", "high"),
    ("pgb_insert_cpu", "pgb insert /CPU", "high"),
    ("am_lookup_uniform_reads", "reads/lookup", "low"),
    ("am_ins_random_reads", "reads/insert", "low"),
]


def make_plots(raw, base):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return []
    out = []
    results = raw["results"]
    meta = raw["meta"]
    variants = variants_of(meta) or ["pagebtree"]
    colors = series_colors(meta)
    ug = plot_update_growth(raw, base, plt)
    if ug:
        out.append(ug)
    dss = [d for d in list(raw["meta"].get("dataset_order") or raw["meta"]["datasets"]) + ["oom"]
           if results.get(d)]
    if not dss:
        return out
    # 1. ratio to btree, one panel per data set
    ncol = 3
    nrow = (len(dss) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(6 * ncol, 6.5 * nrow), squeeze=False)
    series = variants + ["hash"]
    for ax, ds in zip(axes.flat, dss):
        res = results[ds]
        labels = []
        vals = {s: [] for s in series}
        for key, label, better in PLOT_METRICS:
            if key not in res or "btree" not in res[key]:
                continue
            b = med(res[key]["btree"])
            rs = {s: ratio(med(res[key].get(s)), b) for s in series}
            if all(r is None for r in rs.values()):
                continue
            labels.append(label + (" ↑" if better == "high" else " ↓"))
            for s in series:
                vals[s].append(rs[s])
        present = [s for s in series if any(vals[s])]
        y = list(range(len(labels)))
        h = 0.8 / max(len(present), 1)
        # log scale, bars grow from 1.0: 2x better and 2x worse look alike
        for j, s in enumerate(present):
            off = (j - (len(present) - 1) / 2) * h
            ys = [yy + off for yy, v in zip(y, vals[s]) if v]
            vs = [v for v in vals[s] if v]
            ax.barh(ys, [v - 1 for v in vs], left=1, height=h, color=colors[s], label="%s / btree" % s)
            for yy, v in zip(ys, vs):
                ax.text(v, yy, " %.2f " % v, va="center", ha="left" if v >= 1 else "right",
                        fontsize=6 if len(present) <= 2 else 5)
        ax.set_xscale("log", base=2)
        allv = [v for s in present for v in vals[s] if v]
        lo = min(allv + [1.0]) / 1.6
        hi = max(allv + [1.0]) * 1.6
        ax.set_xlim(lo, hi)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v))
        ax.axvline(1.0, color="black", linewidth=1)
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_title(ds)
        ax.set_xlabel("ratio to btree (↑ higher is better, ↓ lower is better)", fontsize=8)
        ax.legend(fontsize=7, loc="lower right")
    for ax in list(axes.flat)[len(dss):]:
        ax.axis("off")
    fig.suptitle("pagebtree benchmark '%s': medians relative to btree" % raw["meta"]["name"])
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    path = base + "-ratios.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    out.append(path)
    dss = [d for d in dss if d != "oom"]
    # 2. absolute AM-level throughput per data set
    panels = [("am_lookup_uniform_ops", "AM lookups/s (uniform)"),
              ("am_lookup_zipf_ops", "AM lookups/s (Zipf)"),
              ("am_scan_short_ops", "AM short scans/s"),
              ("am_ins_random_ops", "AM inserts/s (random)"),
              ("am_ins_asc_ops", "AM inserts/s (ascending)"),
              ("size_mb", "index size (MB)")]
    fig, axes = plt.subplots(2, 3, figsize=(18, 9), squeeze=False)
    for ax, (key, title) in zip(axes.flat, panels):
        ams = [a for a in column_order(meta) if any(a in results[d].get(key, {}) for d in dss)]
        w = 0.8 / max(len(ams), 1)
        for j, am in enumerate(ams):
            xs, ys = [], []
            for i, d in enumerate(dss):
                v = med(results[d].get(key, {}).get(am))
                if v is not None:
                    xs.append(i + (j - (len(ams) - 1) / 2) * w)
                    ys.append(v)
            ax.bar(xs, ys, width=w, color=colors[am], label=am)
        ax.set_xticks(range(len(dss)))
        ax.set_xticklabels(dss, fontsize=8)
        ax.set_title(title)
        ax.legend(fontsize=7)
    fig.suptitle("pagebtree benchmark '%s': absolute medians (noisy machine: trust ratios)" % raw["meta"]["name"])
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    path = base + "-absolute.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    out.append(path)
    return out


def plot_update_growth(raw, base, plt):
    """Index pages before/after the update-growth run, per access method."""
    ug = raw.get("update_growth")
    if not ug or not ug.get("per_am"):
        return None
    meta = raw["meta"]
    per = ug["per_am"]
    labels = [a for a in column_order(meta) if a in per] + [a for a in per if a not in column_order(meta)]
    colors = series_colors(meta)
    fig, axes = plt.subplots(1, 2, figsize=(6 + 1.2 * len(labels), 4.5), squeeze=False)
    for ax, col in zip(axes.flat, ("id", "v")):
        xs = range(len(labels))
        before = [per[a]["%s_pages_before" % col] for a in labels]
        after = [per[a]["%s_pages_after" % col] for a in labels]
        ax.bar([x - 0.2 for x in xs], before, width=0.4, color=[colors.get(a, "#7f7f7f") for a in labels],
               alpha=0.35, label="before")
        ax.bar([x + 0.2 for x in xs], after, width=0.4, color=[colors.get(a, "#7f7f7f") for a in labels],
               label="after")
        for x, a, v in zip(xs, labels, after):
            r = (per[a].get("ratio_after") or {}).get(col)
            ax.text(x + 0.2, v, "%d%s" % (v, ("\n%.2fx btree" % r) if r else ""), ha="center", va="bottom",
                    fontsize=7)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title("%s index pages (faint: before, solid: after)" % col, fontsize=9)
        ax.set_ylim(0, max(after + before + [1]) * 1.25)
    fig.suptitle("pagebtree benchmark '%s': update growth, %s rows, %d s, %s transactions" % (
        meta["name"], "{:,}".format(ug["rows"]), ug["seconds"],
        "{:,}".format(ug["transactions"]) if ug.get("transactions") is not None else "?"), fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    path = base + "-update-growth.png"
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def series_colors(meta):
    """One colour per column: btree green, pagebtree variants in blues and
    purples (the default index keeps pagebtree's blue), hash orange."""
    palette = ["#1f77b4", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#d62728"]
    colors = {"btree": "#2ca02c", "hash": "#ff7f0e", "noindex": "#7f7f7f"}
    for i, v in enumerate(variants_of(meta) or ["pagebtree"]):
        colors[v] = palette[i % len(palette)]
    return colors


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        raw = json.load(f)
    base = sys.argv[1][:-5] if sys.argv[1].endswith(".json") else sys.argv[1]
    print(write_report(raw, base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
