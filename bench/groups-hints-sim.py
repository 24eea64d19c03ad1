#!/usr/bin/env python3
"""Second-subnode reads of group hints, simulated.

A model of the hints of leaf groups (pbt_group.c) without a server: groups
of `keys` uniform int8 keys (the spacing of 10M keys of bench/groups.sh in
groups of 16 subnodes, 4,897 keys a group), split evenly into `subnodes`
subnodes.  For each width b it compares

  prefix  the b bits after the bits the group's first and last keys share
          (pagebtree before metapage version 6)
  based   the group's first key's window as a base and each subnode's
          place against it, in the window that ends where the group's keys
          span between half and all of 2^b values (version 6)

and prints the subnode reads beyond the first per lookup of every 7th key,
in %: a guess one subnode too far right costs a read, too far left a move
right per subnode.

    python3 bench/groups-hints-sim.py [groups] [keys] [subnodes]

(default 400 groups of 4,897 keys, 16 subnodes)
"""
import bisect
import random
import sys

GROUPS = int(sys.argv[1]) if len(sys.argv) > 1 else 400
KEYS = int(sys.argv[2]) if len(sys.argv) > 2 else 4897
SUBNODES = int(sys.argv[3]) if len(sys.argv) > 3 else 16
KEY_BITS = 64
SPAN = int(2 ** 63 / 10_000_000 * KEYS)


def hints(scheme, bits, first, last):
    """(hint of a key, the hints' bound for keys past the group)"""
    shared = KEY_BITS - (first ^ last).bit_length()
    if scheme == 'prefix':
        end = shared + bits
        return lambda k: (k >> (KEY_BITS - end)) & ((1 << bits) - 1)
    end = shared + bits
    while end < KEY_BITS and \
            (last >> (KEY_BITS - end - 1)) - (first >> (KEY_BITS - end - 1)) < (1 << bits):
        end += 1
    shift = KEY_BITS - end
    base = first >> shift
    return lambda k: min(max((k >> shift) - base, -1), 1 << bits)


def extra_reads(scheme, bits, rng):
    extra = lookups = 0
    for _ in range(GROUPS):
        low = rng.randrange(0, 2 ** 63 - SPAN)
        keys = sorted(rng.randrange(low, low + SPAN) for _ in range(KEYS))
        firsts = [keys[i * KEYS // SUBNODES] for i in range(SUBNODES)]
        place = hints(scheme, bits, keys[0], keys[-1])
        placed = [place(f) for f in firsts[1:]]
        for key in keys[::7]:
            k = place(key)
            j = 0
            while j + 1 < SUBNODES and placed[j] < k:
                j += 1
            if j + 1 < SUBNODES and placed[j] == k:
                j += 1
            extra += abs(j - (bisect.bisect_right(firsts, key) - 1))
            lookups += 1
    return 100.0 * extra / lookups


print("| bits | prefix % | based % |")
print("|---|---|---|")
for bits in (10, 11, 12, 14, 16):
    print("| %d | %.2f | %.2f |" % (bits, extra_reads('prefix', bits, random.Random(1)),
                                    extra_reads('based', bits, random.Random(1))))
