#!/usr/bin/env python3
"""Pages rewritten by rebalances, growths and group splits, simulated.

A finer model than bench/groups-fill-sim.py: each group is a list of
subnodes of `page` entries.  Keys are uniform in [0, 1); a group's key
range is divided among its subnodes by their entries.  When an insert
overfills a subnode, the group is rebalanced (its k subnodes rewritten) if
it stays at most 97% full, and otherwise:

  split   splits into two groups of N subnodes (groups today)
  grow    takes one more subnode if it has fewer than N (k + 1 rewritten
          into new blocks), else splits into two groups of N/2

Prints, per policy, the pages rewritten per insert (beside the page every
insert writes), the leaf fill at the end, and the counts of each step.

    python3 bench/groups-writes-sim.py [entries] [page] [N]

(default 1,000,000 entries, pages of 300 int8 entries, groups of 16)
"""
import bisect
import random
import sys


def even(total, k):
    return [total // k + (1 if j < total % k else 0) for j in range(k)]


def simulate(policy, total, page, n, split_fill=0.97, seed=1):
    rng = random.Random(seed)
    lows = [0.0]                # each group's lower key bound
    groups = [[0] * n]          # entries per subnode, per group
    rewritten = 0
    steps = {'rebalance': 0, 'grow': 0, 'split': 0}
    for _ in range(total):
        x = rng.random()
        g = bisect.bisect_right(lows, x) - 1
        high = lows[g + 1] if g + 1 < len(lows) else 1.0
        sub = groups[g]
        entries = sum(sub)
        pos = (x - lows[g]) / (high - lows[g]) * entries
        s = 0
        while s < len(sub) - 1 and pos >= sub[s]:
            pos -= sub[s]
            s += 1
        sub[s] += 1
        if sub[s] <= page:
            continue
        entries += 1
        k = len(sub)
        if entries <= split_fill * k * page:
            groups[g] = even(entries, k)
            rewritten += k
            steps['rebalance'] += 1
        elif policy == 'grow' and k < n:
            groups[g] = even(entries, k + 1)
            rewritten += k + 1
            steps['grow'] += 1
        else:
            half_size = n // 2 if policy == 'grow' else n
            half = entries // 2
            groups[g] = even(half, half_size)
            groups.insert(g + 1, even(entries - half, half_size))
            lows.insert(g + 1, (lows[g] + high) / 2)
            rewritten += 2 * half_size
            steps['split'] += 1
    pages = sum(len(sub) for sub in groups)
    return rewritten / total, total / (pages * page), steps


def main():
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    page = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    print("| policy | pages rewritten per insert | fill at the end | rebalances | growths | splits |")
    print("|---|---|---|---|---|---|")
    for policy in ('split', 'grow'):
        per_insert, fill, steps = simulate(policy, total, page, n)
        print("| %s | %.4f | %.3f | %d | %d | %d |" % (
            policy, per_insert, fill, steps['rebalance'], steps['grow'],
            steps['split']))


if __name__ == '__main__':
    main()
