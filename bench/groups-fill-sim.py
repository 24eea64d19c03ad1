#!/usr/bin/env python3
"""Leaf fill under random inserts into an empty index, simulated.

A model of bench/groups-fill.sh without a server: nodes (a leaf, or a leaf
group of N leaves) hold up to `capacity` entries and split or share their
entries with a neighbour by one of these policies when an insert would
pass `split_fill` of it:

  split   split in two halves (pagebtree's leaves; groups today, after
          rebalancing inside the group up to 97%)
  jitter  split in two at a point drawn from [0.45, 0.55] of the entries
          (so that nodes made together do not fill and split together)
  right   first try to even out with the right neighbour, if both stay at
          most `share_fill` full (moves entries right only: what Lehman-Yao
          readers tolerate without a low key)
  right+3 as right, else split with the right neighbour into three nodes
          (entries still move right only)
  both    the right neighbour, else the left one
  both+3  as both, else split with the right neighbour into three nodes
          (B*-tree)
  grow    a node of k < N pages takes one more page (its entries are
          rewritten into a new run of k + 1 contiguous blocks); a node of
          N pages splits into two of N/2 (groups whose size varies)

Keys are uniform in [0, 1); a node's key range is split where its entries
are divided (so its share of inserts follows its entries).  Prints, per
policy, the mean fill and its range over the last three quarters of the
growth, sampled at `samples` equal steps.

    python3 bench/groups-fill-sim.py [entries] [capacity] [samples] [pages]

(default 2,000,000 entries; capacity 4,800: 16 pages of 300 int8 entries)
"""
import bisect
import random
import sys


def simulate(policy, total, capacity, samples, pages_per_node,
             split_fill=0.97, share_fill=0.95, seed=1):
    rng = random.Random(seed)
    lows = [0.0]                # each node's lower key bound
    count = [0]
    # pages of each node: all pages_per_node but under 'grow'
    pages = [1 if policy == 'grow' else pages_per_node]
    page_capacity = capacity / pages_per_node
    limit = int(capacity * split_fill)
    share = 2 * share_fill * capacity
    fills = []

    def high(i):
        return lows[i + 1] if i + 1 < len(lows) else 1.0

    def even_out(left, right):
        # the boundary moves to where the entries divide evenly, assuming
        # the entries are spread evenly over the nodes' ranges
        tot = count[left] + count[right]
        half = tot // 2
        if count[left] > half:
            lo, hi, n = lows[left], high(left), count[left]
            lows[right] = lo + (hi - lo) * half / n
        else:
            lo, hi, n = lows[right], high(right), count[right]
            lows[right] = lo + (hi - lo) * (half - count[left]) / n
        count[left], count[right] = half, tot - half

    for i in range(1, total + 1):
        g = bisect.bisect_right(lows, rng.random()) - 1
        count[g] += 1
        if policy == 'grow':
            if count[g] > int(pages[g] * page_capacity * split_fill):
                if pages[g] < pages_per_node:
                    pages[g] += 1
                else:
                    half = count[g] // 2
                    lows.insert(g + 1, (lows[g] + high(g)) / 2)
                    count.insert(g + 1, count[g] - half)
                    count[g] = half
                    pages.insert(g + 1, max(pages_per_node // 2, 1))
                    pages[g] = pages_per_node - pages_per_node // 2
        elif count[g] > limit:
            right_ok = g + 1 < len(count) and count[g] + count[g + 1] <= share
            left_ok = g > 0 and count[g] + count[g - 1] <= share
            if policy not in ('split', 'jitter') and right_ok:
                even_out(g, g + 1)
            elif policy in ('both', 'both+3') and left_ok:
                even_out(g - 1, g)
            elif policy in ('right+3', 'both+3') and g + 1 < len(count):
                lo, hi = lows[g], high(g + 1)
                tot = count[g] + count[g + 1]
                lows[g + 1] = lo + (hi - lo) / 3
                lows.insert(g + 2, lo + 2 * (hi - lo) / 3)
                count[g] = count[g + 1] = tot // 3
                count.insert(g + 2, tot - 2 * (tot // 3))
                pages.insert(g + 2, pages_per_node)
            else:
                f = rng.uniform(0.45, 0.55) if policy == 'jitter' else 0.5
                half = int(count[g] * f)
                lows.insert(g + 1, lows[g] + (high(g) - lows[g]) * f)
                count.insert(g + 1, count[g] - half)
                count[g] = half
                pages.insert(g + 1, pages_per_node)
        if i % (total // samples) == 0:
            fills.append(i / (sum(pages) * page_capacity))
    return fills[samples // 4:]


def main():
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 2000000
    capacity = int(sys.argv[2]) if len(sys.argv) > 2 else 4800
    samples = int(sys.argv[3]) if len(sys.argv) > 3 else 32
    pages_per_node = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    print("| policy | mean fill | lowest | highest |")
    print("|---|---|---|---|")
    for policy in ('split', 'jitter', 'right', 'right+3', 'both', 'both+3',
                   'grow'):
        f = simulate(policy, total, capacity, samples, pages_per_node)
        print("| %s | %.3f | %.3f | %.3f |" % (policy, sum(f) / len(f),
                                                min(f), max(f)))


if __name__ == '__main__':
    main()
