#!/usr/bin/env python3
"""Print the key pagebtree/btree ratios of a harness result as a Markdown
table (the one cited in README.md).

    python3 bench/summary.py bench/results/full.json

With several pagebtree variants (harness --pbt-layouts) there is one row per
data set and variant (pagebtree, pagebtree[plain], ...).  When the run has
an update-growth phase, a second table gives its index sizes relative to
btree.
"""
import json
import statistics
import sys

COLUMNS = [
    ("lookups/s", "am_lookup_uniform_ops"),
    ("lookups/s, Zipf", "am_lookup_zipf_ops"),
    ("short scans/s", "am_scan_short_ops"),
    ("long scans, rows/s", "am_scan_long_rows"),
    ("inserts/s, random", "am_ins_random_ops"),
    ("inserts/s, ascending", "am_ins_asc_ops"),
    ("index size", "size_mb"),
    ("WAL bytes/insert", "am_ins_random_wal"),
    ("WAL bytes/insert without FPIs", "am_ins_random_wal_nofpi"),
    ("pgbench SELECT", "pgb_select_uniform_cpu"),
]


def variants_of(meta):
    ams = meta.get("access_methods", [])
    if meta.get("variants"):
        # the JSON is written with sorted keys: the order is access_methods'
        return [a for a in ams if a in meta["variants"]] + [a for a in meta["variants"] if a not in ams]
    vs = [a for a in ams if a not in ("btree", "hash", "noindex")]
    return vs or ["pagebtree"]


def ratio(result, key, variant="pagebtree"):
    figures = result.get(key)
    if not figures or not figures.get("btree") or not figures.get(variant):
        return "—"
    return "%.2f" % (statistics.median(figures[variant]) /
                     statistics.median(figures["btree"]))


def main(path):
    raw = json.load(open(path))
    results = raw["results"]
    variants = variants_of(raw["meta"])
    several = len(variants) > 1
    if results:
        print("| data set | " + ("variant | " if several else "")
              + " | ".join(c[0] for c in COLUMNS) + " |")
        print("|---" * (len(COLUMNS) + 1 + several) + "|")
        for name, result in results.items():
            for v in variants:
                cells = [ratio(result, key, v) for _, key in COLUMNS]
                if all(c == "—" for c in cells):
                    continue    # a phase with none of these figures (cold reads)
                print("| %s | %s%s |" % (name, (v + " | ") if several else "",
                                         " | ".join(cells)))
    ug = raw.get("update_growth")
    if ug and ug.get("per_am"):
        if results:
            print()
        print("Update growth (%s rows, %d clients, %d s, %s transactions): index pages after / btree's"
              % ("{:,}".format(ug["rows"]), ug["clients"], ug["seconds"],
                 "{:,}".format(ug["transactions"]) if ug.get("transactions") is not None else "?"))
        print()
        print("| variant | id index | v index | both |")
        print("|---|---|---|---|")
        for v in variants:
            r = (ug["per_am"].get(v) or {}).get("ratio_after")
            if r:
                print("| %s | %.2f | %.2f | %.2f |" % (v, r["id"], r["v"], r["both"]))


if __name__ == "__main__":
    main(sys.argv[1])
