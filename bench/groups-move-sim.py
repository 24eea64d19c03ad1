#!/usr/bin/env python3
"""Relation size of groups whose size varies, simulated block by block.

bench/groups-fill-sim.py's `grow` policy counts the pages groups use.  A
group's blocks are contiguous and the block after it belongs to another
group, so a group grows by moving: its entries are rewritten into k + step
free contiguous blocks and its k old blocks are freed.  This model places
every group on blocks of one relation and counts what the moves leave
behind:

  - a group of k < N blocks whose entries would pass 97% of them moves to
    k + step blocks (at most N): the smallest free run that holds them
    (free runs next to each other merge), else new blocks at the end;
  - a full group of N blocks splits in place into two groups of N/2 (no
    move: both halves are contiguous already);
  - freed blocks are reused at once (`immediate`: a protocol that lets a
    new group take blocks that readers may still reach, which needs every
    subnode to carry its low fence), or only after the load
    (`after-load`: VACUUM recycles deleted pages once no snapshot can
    reach them, and a load's own snapshot can, so within one INSERT ...
    SELECT nothing is reused).

Keys are uniform in [0, 1); a group's key range is divided among its
subnodes by their entries.  Prints, per policy, the fill of the blocks
that groups use and of the whole relation, averaged over `samples` equal
steps of the last three quarters of the load, and the blocks rewritten by
moves per insert.  The reference rows are single leaves that split in two
(pagebtree without groups) and groups of N that split in two (groups
today).

    python3 bench/groups-move-sim.py [entries] [page] [N] [samples]

(default 1,000,000 entries, pages of 300 int8 entries, N = 16, 16 samples)
"""
import bisect
import random
import sys


def even(total, k):
    return [total // k + (1 if j < total % k else 0) for j in range(k)]


class FreeRuns:
    """Free runs of contiguous blocks, merged with their neighbours."""

    def __init__(self):
        self.length = {}        # first block -> length
        self.start_of_end = {}  # block after the run -> first block

    def add(self, start, length):
        if start in self.start_of_end:
            before = self.start_of_end.pop(start)
            length += self.length.pop(before)
            start = before
        after = start + length
        if after in self.length:
            more = self.length.pop(after)
            del self.start_of_end[after + more]
            length += more
        self.length[start] = length
        self.start_of_end[start + length] = start

    def take(self, want):
        """First block of the smallest run of at least want, or None."""
        best = None
        for start, length in self.length.items():
            if length >= want and (best is None or length < self.length[best]):
                best = start
                if length == want:
                    break
        if best is None:
            return None
        length = self.length.pop(best)
        del self.start_of_end[best + length]
        if length > want:
            self.length[best + want] = length - want
            self.start_of_end[best + length] = best + want
        return best

    def blocks(self):
        return sum(self.length.values())


def simulate(total, page, n, grow_step, reuse, samples, split_fill=0.97,
             seed=1):
    """grow_step 0: groups of n blocks that split in two (no moves)."""
    rng = random.Random(seed)
    first_size = n if grow_step == 0 else max(1, n // 2)
    lows = [0.0]
    groups = [[0] * first_size]     # entries per subnode
    starts = [0]
    free = FreeRuns()
    relation = first_size
    dead = 0                        # freed, not reusable during the load
    moved = 0
    used_fills, relation_fills = [], []
    sample_at = {total // 4 + (3 * total // 4) * (i + 1) // samples
                 for i in range(samples)}

    for done in range(1, total + 1):
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
        if sub[s] > page:
            entries += 1
            k = len(sub)
            if entries <= split_fill * k * page:
                groups[g] = even(entries, k)
            elif grow_step and k < n:
                want = min(n, k + grow_step)
                start = free.take(want) if reuse else None
                if start is None:
                    start = relation
                    relation += want
                if reuse:
                    free.add(starts[g], k)
                else:
                    dead += k
                starts[g] = start
                moved += k
                groups[g] = even(entries, want)
            else:
                # in place into two halves, or today into two groups of k
                left, right = (k // 2, k - k // 2) if grow_step else (k, k)
                first_half = entries // 2
                groups[g] = even(first_half, left)
                groups.insert(g + 1, even(entries - first_half, right))
                lows.insert(g + 1, (lows[g] + high) / 2)
                if grow_step:
                    starts.insert(g + 1, starts[g] + left)
                else:
                    starts.insert(g + 1, relation)
                    relation += k
        if done in sample_at:
            used = sum(len(sub) for sub in groups)
            used_fills.append(done / (used * page))
            relation_fills.append(done / (relation * page))
    return (sum(used_fills) / len(used_fills),
            sum(relation_fills) / len(relation_fills),
            min(relation_fills), max(relation_fills), moved / total)


def main():
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    page = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    samples = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    rows = [('single leaves, split in two', 1, 0, True),
            ('groups of %d, split in two (today)' % n, n, 0, True)]
    for step in sorted({1, 2, n // 2}):
        for reuse in (True, False):
            rows.append(('grow by %d, %s' % (step, 'immediate' if reuse
                                             else 'after-load'),
                         n, step, reuse))
    reference = None
    print('| policy | fill of blocks in use | fill of the relation '
          '(lowest, highest) | size against single leaves '
          '| blocks moved per insert |')
    print('|---|---|---|---|---|')
    for name, size, step, reuse in rows:
        used, rel, lo, hi, moved = simulate(total, page, size, step, reuse,
                                            samples)
        if reference is None:
            reference = rel
        print('| %s | %.3f | %.3f (%.3f, %.3f) | %.2f | %.4f |' % (
            name, used, rel, lo, hi, reference / rel, moved))


if __name__ == '__main__':
    main()
