/*-------------------------------------------------------------------------
 *
 * pbt_dense_util.h
 *	  Helpers shared by the dense and semi-dense leaf layouts: big-endian
 *	  key tails, bitmaps of whole 8-byte words (bit i in byte i / 8, bit
 *	  i % 8) with rank, select and stepping to the next set bit, searches in
 *	  a window of tails, and what turning into the layout they convert to
 *	  (heads) takes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_DENSE_UTIL_H
#define PBT_DENSE_UTIL_H

#include "pagebtree.h"
#include "pbt_parts.h"

#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"

/* bytes of a bitmap of nbits bits, in whole 8-byte words */
static inline int
map_bytes(int nbits)
{
	return ((nbits + 63) / 64) * (int) sizeof(uint64);
}

static inline bool
bit_is_set(const uint8 *map, int i)
{
	return (map[i / 8] & (1 << (i % 8))) != 0;
}

static inline void
bit_set(uint8 *map, int i)
{
	map[i / 8] |= (1 << (i % 8));
}

static inline void
bit_clear(uint8 *map, int i)
{
	map[i / 8] &= ~(1 << (i % 8));
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
	if (tlen == 4)
	{
		/* (as read_tail: dense iteration writes one per entry) */
		uint32		w = pg_hton32((uint32) t);

		memcpy(p, &w, sizeof(w));
		return;
	}
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
 * Slots a window gets in space bytes: nmaps bitmaps with a bit per slot,
 * and slot_bytes bytes per slot, at most max slots.
 */
static inline int
window_capacity(int space, int nmaps, int slot_bytes, int max)
{
	int			map_word = nmaps * (int) sizeof(uint64);
	int			per_word = map_word + 64 * slot_bytes;
	int			words;
	int			cap;
	int			rest;

	if (space <= 0)
		return 0;
	words = space / per_word;
	cap = words * 64;
	rest = space - words * per_word;
	if (rest > map_word)
		cap += Min(63, (rest - map_word) / slot_bytes);
	return Min(cap, max);
}

/*
 * The slot of the window (tails [base, base + capacity)) for the tail of
 * an item, tlen bytes after its plen bytes of prefix; false if the tail is
 * outside the window.
 */
static inline bool
window_tail_slot(const char *data, int plen, int tlen, uint64 base,
				 int capacity, int *slot)
{
	uint64		tail = read_tail(data + plen, tlen);

	if (tail < base || tail - base >= (uint64) capacity)
		return false;
	*slot = (int) (tail - base);
	return true;
}

/*
 * The slot holding the item at ordered position pos of a page of count
 * items: the pos-th set bit of its presence bitmap.
 */
static inline int
window_select(const uint8 *present, int capacity, int count, int pos)
{
	int			slot;

	Assert(pos >= 0 && pos < count);
	slot = map_select(present, map_bytes(capacity), pos);
	if (slot < 0)
		pbt_page_damaged("has fewer items than its count");
	return slot;
}

/*
 * A conversion reads every item of the presence bitmap inside the
 * critical section of its insert, where an error is a PANIC: its size
 * computation, which the fit test runs before, checks the bitmap's count.
 */
static inline void
window_check_count(const uint8 *present, int capacity, int count)
{
	if ((capacity > 0 ? map_rank_from(present, 0, capacity) : 0) != count)
		pbt_page_damaged("has a presence bitmap that disagrees with its count");
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
	c = pbt_key_prefix_cmp(key, w->prefix, w->plen);
	if (c != 0)
		return c < 0 ? 0 : w->count;
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
		pbt_page_damaged("has fewer items than its count");
	if (!it->primed)
	{
		pbt_check_copy(prefix - (const char *) it->page, plen, plen);
		memcpy(it->buf.data, prefix, plen);
		it->primed = true;
	}
	it->cursor = slot;
	it->pos += it->step;
	return slot;
}

/*
 * The layout that a dense or semidense page converts to when an insert
 * breaks its pattern (PbtLayout.convert_to), and that measures split halves
 * that are not eligible any more.
 */
static inline const PbtLayout *
window_target(uint8 convert_to)
{
	const PbtLayout *to = pbt_layout_by_tag(convert_to);

	Assert(to != NULL && to->prefix_bytes != NULL && to->suffix_bytes != NULL);
	return to;
}

/*
 * Bytes a dense or semidense page of count items would take as a page of
 * its conversion target to holding them and the new item (data, len), and
 * its high key, as the target's load lays them out: all but the bytes of
 * the page's own items (to->suffix_bytes of each one's length after *q),
 * which the caller adds as its layout knows those lengths.  The target's
 * prefix *q is the common prefix of the first and last items, which for
 * sorted items and one more is the shortest common prefix among first,
 * last and new.  get is the layout's.
 */
static inline int
window_converted_bytes(Page page, const PbtLayout *to, int count,
					   const char *data, int len,
					   void (*get) (Page page, int pos, PbtItem *item,
									PbtItemBuf *buf),
					   int *q)
{
	int			p = len;
	int			bytes;
	PbtItem		hikey;

	if (count > 0)
	{
		PbtItemBuf	fbuf,
					lbuf;
		PbtItem		first,
					last;

		get(page, 0, &first, &fbuf);
		get(page, count - 1, &last, &lbuf);
		p = pbt_common_prefix(first.data, first.len, last.data, last.len);
		p = Min(p, pbt_common_prefix(first.data, first.len, data, len));
		p = Min(p, pbt_common_prefix(last.data, last.len, data, len));
	}
	*q = p;
	bytes = to->prefix_bytes(p) + to->suffix_bytes(len - p);
	if (pbt_page_get_hikey(page, &hikey))
		bytes += hikey.len;
	return bytes;
}

/*
 * An insert that the window cannot take: the page becomes a page of its
 * conversion target holding its items and the new one at pos, if they fit
 * there (converted: the bytes that takes, as the layout's converted_bytes
 * counts them); else false, the page unchanged, and the engine splits.
 */
static inline bool
window_convert_insert(Page page, int pos, const char *data, int len,
					  int converted)
{
	if (converted > ((PageHeader) page)->pd_special - SizeOfPageHeaderData)
		return false;
	pbt_page_convert(page, pos, data, len);
	return true;
}

/*
 * Split planning: what sorted items take on a leaf of the layout whose
 * fits test this is, or, for a half that is not eligible any more, on a
 * leaf of the conversion target to (pbt_fit_leaf_split in pbt_splitloc.c
 * picks each half's layout exactly).
 */
static inline int
window_space_needed(const PbtItem *items, int n, int downlink,
					bool (*fits) (PbtItem *items, int n, PbtItem *hikey,
								  int *bytes),
					const PbtLayout *to)
{
	int			bytes;

	Assert(downlink == 0);
	if (fits((PbtItem *) items, n, NULL, &bytes))
		return bytes;
	return to->space_needed(items, n, 0);
}

#endif							/* PBT_DENSE_UTIL_H */
