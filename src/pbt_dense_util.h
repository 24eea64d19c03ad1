/*-------------------------------------------------------------------------
 *
 * pbt_dense_util.h
 *	  Helpers shared by the dense and semi-dense leaf layouts: big-endian
 *	  key tails, and bitmaps of whole 8-byte words (bit i in byte i / 8,
 *	  bit i % 8) with rank, select and stepping to the next set bit.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_DENSE_UTIL_H
#define PBT_DENSE_UTIL_H

#include "pagebtree.h"

#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"

static inline bool
bit_is_set(const uint8 *map, int i)
{
	return (map[i / 8] & (1 << (i % 8))) != 0;
}

static inline uint64
read_tail(const char *p, int tlen)
{
	uint64		t = 0;

	if (tlen == 4)
	{
		/* the usual tail (int8, timestamps): one load, not a byte loop */
		uint32		w;

		memcpy(&w, p, sizeof(w));
		return pg_ntoh32(w);
	}
	for (int i = 0; i < tlen; i++)
		t = (t << 8) | (uint8) p[i];
	return t;
}

static inline void
write_tail(char *p, int tlen, uint64 t)
{
	for (int i = tlen - 1; i >= 0; i--)
	{
		p[i] = (char) (t & 0xFF);
		t >>= 8;
	}
}

/* 8 map bytes as a word whose bit j is bit j % 8 of byte j / 8 */
static inline uint64
load_word(const uint8 *p)
{
	uint64		w;

	memcpy(&w, p, sizeof(w));
#ifdef WORDS_BIGENDIAN
	w = pg_bswap64(w);
#endif
	return w;
}

/* number of set bits before bit i */
static inline int
map_rank(const uint8 *map, int i)
{
	int			words = i / 64;
	int			r = 0;

	for (int w = 0; w < words; w++)
		r += pg_popcount64(load_word(map + 8 * w));
	if (i % 64)
		r += pg_popcount64(load_word(map + 8 * words) &
						   ((UINT64CONST(1) << (i % 64)) - 1));
	return r;
}

/* number of set bits in [i, nbits); bits past nbits are clear */
static inline int
map_rank_from(const uint8 *map, int i, int nbits)
{
	int			r = pg_popcount64(load_word(map + 8 * (i / 64)) >> (i % 64));

	for (int w = i / 64 + 1; w < (nbits + 63) / 64; w++)
	{
		uint64		x = load_word(map + 8 * w);

		/* (ascending keys leave the top words empty: no popcount for those) */
		if (x != 0)
			r += pg_popcount64(x);
	}
	return r;
}

/* the bit that is the pos-th set bit (from 0), or -1 */
static inline int
map_select(const uint8 *map, int nbytes, int pos)
{
	int			b = 0;

	for (; b + 8 <= nbytes; b += 8)
	{
		int			c = pg_popcount64(load_word(map + b));

		if (pos < c)
			break;
		pos -= c;
	}
	for (; b < nbytes; b++)
	{
		int			c = pg_number_of_ones[map[b]];

		if (pos < c)
		{
			uint32		bits = map[b];

			while (pos-- > 0)
				bits &= bits - 1;
			return b * 8 + pg_rightmost_one_pos32(bits);
		}
		pos -= c;
	}
	return -1;
}

/* the first set bit at or after bit i, or -1 */
static inline int
map_next(const uint8 *map, int nbits, int i)
{
	while (i < nbits)
	{
		uint32		bits = map[i / 8] >> (i % 8);

		if (bits)
			return i + pg_rightmost_one_pos32(bits);
		i = (i / 8 + 1) * 8;
		/* skip empty words */
		while (i % 64 == 0 && i + 64 <= nbits && load_word(map + i / 8) == 0)
			i += 64;
	}
	return -1;
}

/* the last set bit at or before bit i, or -1 */
static inline int
map_prev(const uint8 *map, int i)
{
	while (i >= 0)
	{
		uint32		bits = map[i / 8] & (0xFF >> (7 - i % 8));

		if (bits)
			return (i / 8) * 8 + pg_leftmost_one_pos32(bits);
		i = (i / 8) * 8 - 1;
	}
	return -1;
}

/*
 * The largest tail an item starting with prefix can have below the high
 * key: the high key's tail bytes, zero-padded, if it shares the prefix;
 * else any tail.
 */
static inline uint64
tail_limit(PbtItem *hikey, const char *prefix, int plen, int tlen)
{
	uint64		domain = UINT64CONST(1) << (8 * tlen);
	uint64		hi = 0;

	if (hikey->len <= plen || memcmp(hikey->data, prefix, plen) != 0)
		return domain - 1;
	for (int i = 0; i < tlen; i++)
		hi = (hi << 8) | (plen + i < hikey->len ? (uint8) hikey->data[plen + i] : 0);
	return hi;
}

/*
 * What a dense or semidense page's window looks like to a search: the
 * prefix all its keys share, the tail length, and the present tails.
 */
typedef struct DenseWindow
{
	const char *prefix;
	int			plen;
	int			tlen;
	uint64		base;
	int			capacity;
	int			count;
	const uint8 *present;
} DenseWindow;

/* number of present tails below tail */
static inline int
window_rank(const DenseWindow *w, uint64 tail)
{
	int			slot;

	if (tail <= w->base)
		return 0;
	if (tail - w->base >= (uint64) w->capacity)
		return w->count;
	slot = (int) (tail - w->base);
	/* count from the nearer end (ascending keys arrive near the top) */
	if (slot > w->capacity / 2)
		return w->count - map_rank_from(w->present, slot, w->capacity);
	return map_rank(w->present, slot);
}

/*
 * First position whose item is >= key, as far as the prefix and tail
 * decide it, with exactly the semantics of pbt_compare() on whole items
 * (memcmp over the shorter length, then nextkey or the lengths decide).
 * Returns the position, with *slot = -1; or, if the key's tail is present,
 * the position of that item with *slot set to it and *rest, *restlen to the
 * key's bytes after the tail: the caller compares them with the item's
 * bytes after its tail, adding one if the item is below the key.
 */
static inline int
window_search(const DenseWindow *w, PbtSearchKey *key, int *slot,
			  const char **rest, int *restlen)
{
	const char *k;
	int			kb;
	int			c;
	uint64		tail;

	*slot = -1;
	if (w->count == 0)
		return 0;
	c = memcmp(key->bytes, w->prefix, Min(key->len, w->plen));
	if (c != 0)
		return c < 0 ? 0 : w->count;
	if (key->len <= w->plen)
	{
		/* the key is a prefix of every item */
		return key->nextkey ? w->count : 0;
	}
	k = key->bytes + w->plen;
	kb = key->len - w->plen;
	if (kb < w->tlen)
	{
		/* the key ends within the tail: it is a prefix of the tails it matches */
		int			shift = 8 * (w->tlen - kb);
		uint64		lo = read_tail(k, kb) << shift;

		return window_rank(w, key->nextkey ? lo + (UINT64CONST(1) << shift) : lo);
	}
	tail = read_tail(k, w->tlen);
	if (tail >= w->base && tail - w->base < (uint64) w->capacity &&
		bit_is_set(w->present, (int) (tail - w->base)))
	{
		*slot = (int) (tail - w->base);
		*rest = k + w->tlen;
		*restlen = kb - w->tlen;
	}
	return window_rank(w, tail);
}

/*
 * One step of an iteration over a dense or semidense page: the next present
 * slot after (forward) or before it->cursor in the presence bitmap, with
 * the page prefix copied into it->buf on the first step.
 */
static inline int
window_iter_step(PbtIter *it, const uint8 *present, int capacity,
				 const char *prefix, int plen)
{
	int			slot = it->step > 0 ?
		map_next(present, capacity, it->cursor + 1) :
		map_prev(present, it->cursor - 1);

	if (slot < 0)
		elog(ERROR, "pagebtree: bitmap has fewer items than the page's count");
	if (!it->primed)
	{
		memcpy(it->buf.data, prefix, plen);
		it->primed = true;
	}
	it->cursor = slot;
	it->pos += it->step;
	return slot;
}

#endif							/* PBT_DENSE_UTIL_H */
