#!/usr/bin/env python3
"""Print the key pagebtree/btree ratios of a harness result as a Markdown
table (the one cited in README.md).

    python3 bench/summary.py bench/results/full.json
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
    ("pgbench SELECT", "pgb_select_uniform_cpu"),
]


def ratio(result, key):
    figures = result.get(key)
    if not figures or not figures.get("btree") or not figures.get("pagebtree"):
        return "—"
    return "%.2f" % (statistics.median(figures["pagebtree"]) /
                     statistics.median(figures["btree"]))


def main(path):
    results = json.load(open(path))["results"]
    print("| data set | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for name, result in results.items():
        print("| %s | %s |" % (name, " | ".join(ratio(result, key) for _, key in COLUMNS)))


if __name__ == "__main__":
    main(sys.argv[1])
