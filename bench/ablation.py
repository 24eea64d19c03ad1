#!/usr/bin/env python3
"""Ablation table from a harness run with several pagebtree layouts.

    python3 bench/ablation.py bench/results/ablation.json > bench/results/ablation.md

The run must measure the variants of --pbt-layouts plain,heads-nohints,heads,default.
pagebtree[heads-nohints] is a heads index measured with the setting
pagebtree.ablate_leaf_hints = on (searches ignore the leaf hints, which are
still maintained), so the hints step shows what hints save reads; their
insert-side upkeep is in both rows (bench/instr.py's profiles show it).
Each step adds optimizations to the one before it; the table gives, per data
set and operation, the ratio to btree (medians of the run) and the change
over the previous step, next to the direction the paper's Table 1 reports for
the corresponding optimization on lookups (other operations: its text).
"""
import json
import statistics
import sys

STEPS = [
    ("pagebtree[plain]", "baseline: sorted slots, whole normalized keys, suffix-truncated separators"),
    ("pagebtree[heads-nohints]", "+ prefix truncation and 4-byte heads"),
    ("pagebtree[heads]", "+ hints (16 per leaf; searches only: the row before keeps them up to date "
     "but does not read them)"),
    ("pagebtree", "+ dense leaves (adaptive default)"),
]

METRICS = [
    ("am_lookup_uniform_ops", "lookups/s", True),
    ("am_ins_random_ops", "inserts/s (random)", True),
    ("am_scan_short_ops", "short scans/s", True),
    ("size_mb", "size", False),
]

# paper (Table 1, lookups) per data set: prefix, heads, hints, dense
PAPER = {
    "url": ("+", "+", "≈", "≈"),
    "title": ("≈", "++", "≈", "≈"),
    "sparse": ("≈", "++", "+", "≈"),
    "dense": ("≈", "++", "+", "+++"),
}
PAPER_NAME = {"url": "urls", "title": "wiki", "sparse": "sparse", "dense": "dense"}


def median(v):
    return statistics.median(v) if v else None


def main():
    data = json.load(open(sys.argv[1]))
    res = data["results"]
    meta = data.get("meta", {})
    out = []
    out.append("# Ablation: the layout optimizations one at a time\n")
    out.append("Command: `%s`  " % meta.get("command", "?"))
    out.append("Commit: %s, %s rows per data set. Ratios are pagebtree variant / btree "
               "(medians of alternating repetitions in one run; above 1 is better for rates, "
               "below 1 for size). 'step' is the ratio to the previous row: the effect of the "
               "optimization that row adds.\n" % (meta.get("git_commit", "?"), meta.get("params", {}).get("rows", "?")))
    out.append("Steps:\n")
    for i, (v, what) in enumerate(STEPS):
        out.append("%d. `%s`: %s" % (i, v, what))
    out.append("")
    for ds in sorted(res):
        if ds == "oom":
            continue
        r = res[ds]
        out.append("## %s\n" % ds)
        hdr = "| step | " + " | ".join("%s | step" % m[1] for m in METRICS)
        if ds in PAPER:
            hdr += " | paper, lookups (%s)" % PAPER_NAME[ds]
        out.append(hdr + " |")
        out.append("|---" * (1 + 2 * len(METRICS) + (1 if ds in PAPER else 0)) + "|")
        prev = {}
        for i, (v, _) in enumerate(STEPS):
            row = ["%d" % i]
            for key, _, higher in METRICS:
                b = median(r.get(key, {}).get("btree", []))
                x = median(r.get(key, {}).get(v, []))
                if b and x:
                    row.append("%.2f" % (x / b))
                    row.append("%.2f" % (x / prev[key]) if prev.get(key) else "—")
                    prev[key] = x
                else:
                    row += ["—", "—"]
            if ds in PAPER:
                row.append("" if i == 0 else PAPER[ds][i] +
                           (" (heads; prefix: %s)" % PAPER[ds][0] if i == 1 else ""))
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
