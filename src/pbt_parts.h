/*-------------------------------------------------------------------------
 *
 * pbt_parts.h
 *	  Items in two pieces, for leaf layouts that store a prefix once per
 *	  page (fingerprint, BPA): a stored entry after the page's prefix, or an
 *	  item given whole.  Rebuilding such a page sorts, measures and copies
 *	  items as parts, without assembling them (no palloc: inserts run in
 *	  critical sections).  Also what every layout with a page prefix (heads,
 *	  dense, semidense too) asks of it: does an item or a search key start
 *	  with it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_PARTS_H
#define PBT_PARTS_H

#include "pagebtree.h"

/* whole = head || tail */
typedef struct PbtPart
{
	const char *head;
	int			headlen;
	const char *tail;
	int			taillen;
} PbtPart;

static inline int
pbt_part_len(const PbtPart *p)
{
	return p->headlen + p->taillen;
}

static inline char
pbt_part_byte(const PbtPart *p, int i)
{
	return i < p->headlen ? p->head[i] : p->tail[i - p->headlen];
}

/* the contiguous bytes of the part from byte i on, and how many */
static inline const char *
pbt_part_run(const PbtPart *p, int i, int *run)
{
	if (i < p->headlen)
	{
		*run = p->headlen - i;
		return p->head + i;
	}
	*run = pbt_part_len(p) - i;
	return p->tail + (i - p->headlen);
}

static inline int
pbt_part_cmp(const PbtPart *a, const PbtPart *b)
{
	int			n = Min(pbt_part_len(a), pbt_part_len(b));

	for (int i = 0; i < n;)
	{
		int			arun;
		int			brun;
		const char *pa = pbt_part_run(a, i, &arun);
		const char *pb = pbt_part_run(b, i, &brun);
		int			run = Min(Min(arun, brun), n - i);
		int			c = memcmp(pa, pb, run);

		if (c != 0)
			return c < 0 ? -1 : 1;
		i += run;
	}
	return (pbt_part_len(a) > n) - (pbt_part_len(b) > n);
}

/* bytes [from, to) of the part, to out */
static inline void
pbt_part_copy(const PbtPart *p, int from, int to, char *out)
{
	int			hend = Min(to, p->headlen);

	if (from < hend)
	{
		memcpy(out, p->head + from, hend - from);
		out += hend - from;
	}
	if (to > p->headlen)
	{
		int			tfrom = Max(from, p->headlen) - p->headlen;

		memcpy(out, p->tail + tfrom, to - p->headlen - tfrom);
	}
}

/*
 * The prefix a page of sorted items gets: what the first and the last
 * share, but never into the heap TID of the shortest, so that every entry
 * keeps its key's rest and its whole TID (an equality probe then finds the
 * TID on the page).
 */
static inline int
pbt_prefix_between(const PbtPart *first, const PbtPart *last, int shortest)
{
	int			q = Min(Min(pbt_part_len(first), pbt_part_len(last)),
						shortest - PBT_TID_BYTES);
	int			i = 0;

	while (i < q && pbt_part_byte(first, i) == pbt_part_byte(last, i))
		i++;
	return Max(i, 0);
}

static inline int
pbt_parts_prefix(const PbtPart *parts, int n)
{
	int			shortest = INT_MAX;

	if (n == 0)
		return 0;
	for (int i = 0; i < n; i++)
		shortest = Min(shortest, pbt_part_len(&parts[i]));
	return pbt_prefix_between(&parts[0], &parts[n - 1], shortest);
}

static inline int
pbt_items_as_parts(const PbtItem *items, int n, PbtPart *parts)
{
	Assert(n <= PBT_MAX_ITEMS_PER_PAGE);	/* the callers' arrays */
	for (int i = 0; i < n; i++)
	{
		parts[i].head = items[i].data;
		parts[i].headlen = items[i].len;
		parts[i].taillen = 0;
	}
	return n;
}

/* bytes the parts take as entries after a prefix of q bytes */
static inline int
pbt_parts_entry_bytes(const PbtPart *parts, int n, int q)
{
	int			bytes = 0;

	for (int i = 0; i < n; i++)
		bytes += pbt_part_len(&parts[i]) - q;
	return bytes;
}

/*
 * Insert new among the n sorted parts, after every smaller one; returns the
 * new count.
 */
static inline int
pbt_parts_add(PbtPart *parts, int n, const PbtPart *new)
{
	int			lo = 0;
	int			hi = n;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (pbt_part_cmp(&parts[mid], new) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&parts[lo + 1], &parts[lo], sizeof(PbtPart) * (n - lo));
	parts[lo] = *new;
	return n + 1;
}

/* pbt_parts_add of an item given whole (an insert's) */
static inline int
pbt_parts_add_item(PbtPart *parts, int n, const char *data, int len)
{
	PbtPart		new = {data, len, NULL, 0};

	return pbt_parts_add(parts, n, &new);
}

/*
 * Does the byte string (data, len) start with a page's prefix?  An insert
 * asks of its item, an equality probe of its key; fingerprint and BPA pass
 * an item's length without its heap TID, which their prefix never reaches
 * into.  Inline: inserts and point lookups ask it every time.
 */
static inline bool
pbt_has_prefix(const char *data, int len, const char *prefix, int plen)
{
	return len >= plen && memcmp(data, prefix, plen) == 0;
}

/*
 * An equality probe's key after a page's prefix: false if the key does not
 * start with it.
 */
static inline bool
pbt_skip_prefix(const char **key, int *keylen, const char *prefix, int plen)
{
	if (!pbt_has_prefix(*key, *keylen, prefix, plen))
		return false;
	*key += plen;
	*keylen -= plen;
	return true;
}

/*
 * A search key against the prefix that every item of a page starts with:
 * < 0 if the key sorts before every item, > 0 if after every one (a key
 * that is a prefix of the page prefix: after them with nextkey, else
 * before), 0 if the key's rest decides (see pbt_key_rest).
 */
static inline int
pbt_key_prefix_cmp(const PbtSearchKey *key, const char *prefix, int plen)
{
	int			c = memcmp(key->bytes, prefix, Min(key->len, plen));

	if (c == 0 && key->len <= plen)
		c = key->nextkey ? 1 : -1;
	return c;
}

/*
 * The normalized key's bytes after a page prefix of plen bytes, as a key to
 * compare with the page's entries (pbt_compare reads nothing else of a
 * normalized key).
 */
static inline void
pbt_key_rest(const PbtSearchKey *key, int plen, PbtSearchKey *rest)
{
	rest->nextkey = key->nextkey;
	rest->bytes = key->bytes + plen;
	rest->len = key->len - plen;
}

/*
 * The whole item of a stored entry: on the page if there is no prefix, else
 * assembled in out (where the prefix already is if primed).
 */
static inline void
pbt_whole_item(const char *prefix, int plen, const char *entry, int len,
			   PbtItem *item, char *out, bool primed)
{
	if (plen == 0)
	{
		item->data = (char *) entry;
		item->len = len;
		return;
	}
	if (!primed)
		memcpy(out, prefix, plen);
	memcpy(out + plen, entry, len);
	item->data = out;
	item->len = plen + len;
}

#endif							/* PBT_PARTS_H */
