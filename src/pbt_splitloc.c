/*-------------------------------------------------------------------------
 *
 * pbt_splitloc.c
 *	  Choosing where a page splits: the split point that balances the
 *	  halves (or packs an ascending load by fillfactor), the shortest
 *	  separator near it, the nearest point where both halves of a
 *	  normalized-key leaf fit as they will be rebuilt, and partition
 *	  detection.
 *
 * Nothing here changes a page: pbt_insert.c's split_page asks for a split
 * point and then builds and writes the halves.  What a half takes is the
 * layout's space_needed; which layout a rebuilt leaf half gets is
 * pbt_choose_leaf_layout's (pbt_policy.c) choice.
 *
 *-------------------------------------------------------------------------
 */
#include "pbt_insert.h"

/*
 * Choose the split point: left keeps items [0, s).  Normally the bytes are
 * halved; when appending at the end of the rightmost page (ascending keys),
 * the left page keeps fillfactor of the space, so sequential loads pack
 * pages like a bulk build.  The layout says what each half would take
 * (with a prefix-truncating layout that depends on the half's first and
 * last keys); left grows and right shrinks with s, so a binary search finds
 * the balance point.
 */
typedef struct SplitPlan
{
	const PbtLayout *layout;
	const PbtItem *items;
	int			n;
	int			hikeylen;
	int			downlink;		/* 0 on leaves (see space_needed) */
	bool		append_rightmost;
	int			target;
	bool		bytewise;		/* normalized leaf items: unaligned, and
								 * separators are prefixes */
	/* what each half takes at split point s, once asked (else -1) */
	int		   *left_bytes;
	int		   *right_bytes;
} SplitPlan;

/*
 * Bytes the left (right) half takes at split point s.  Each answer costs
 * the layout a pass over the half's items, and the search asks for most
 * split points it probes more than once, so the answers are kept.
 */
static int
left_bytes(const SplitPlan *sp, int s)
{
	if (sp->left_bytes[s] < 0)
		sp->left_bytes[s] = sp->layout->space_needed(sp->items, s, sp->downlink);
	return sp->left_bytes[s];
}

static int
right_bytes(const SplitPlan *sp, int s)
{
	if (sp->right_bytes[s] < 0)
		sp->right_bytes[s] = sp->layout->space_needed(sp->items + s,
													  sp->n - s, sp->downlink);
	return sp->right_bytes[s];
}

/* length of the shortest separator between items[s - 1] and items[s] */
static int
separator_len(const PbtItem *items, int s)
{
	return pbt_common_prefix(items[s - 1].data, items[s - 1].len,
							 items[s].data, items[s].len) + 1;
}

/* signed distance of split point s from the goal */
static int
split_offset(const SplitPlan *sp, int s)
{
	if (sp->append_rightmost)
		return left_bytes(sp, s) - sp->target;
	return left_bytes(sp, s) - right_bytes(sp, s);
}

/*
 * Both halves fit, with high keys: the separator (at most as long as
 * items[s]; on a bytewise leaf exactly separator_len, unaligned, as inserts
 * fill such pages to the last byte) and the old high key.
 */
static bool
split_fits(const SplitPlan *sp, int s)
{
	int			seplen = sp->bytewise ? separator_len(sp->items, s) :
		MAXALIGN(sp->items[s].len);
	int			hikeylen = sp->bytewise ? sp->hikeylen : MAXALIGN(sp->hikeylen);

	return left_bytes(sp, s) + seplen <= PBT_USABLE_SPACE &&
		right_bytes(sp, s) + hikeylen <= PBT_USABLE_SPACE;
}

/*
 * The first s in [1, n-1] at or past the goal (n-1 if none).  Each new
 * probe costs the layout's space_needed over up to a page of items, so the
 * search gallops from where the items' raw bytes balance, which is usually
 * within a few items of the answer, before it bisects.
 */
static int
balance_point(const SplitPlan *sp)
{
	int			n = sp->n;
	int			guess = Max(1, Min((int64) n * sp->target / PBT_USABLE_SPACE, n - 1));
	int			low;
	int			high;
	int			step = 1;

	if (!sp->append_rightmost)
	{
		int			total = 0;
		int			left = 0;

		/* an item takes its bytes and a slot */
		for (int i = 0; i < n; i++)
			total += sp->items[i].len + sizeof(PbtSlot);
		for (int s = 1; s < n; s++)
		{
			left += sp->items[s - 1].len + sizeof(PbtSlot);
			if (2 * left >= total)
			{
				guess = s;
				break;
			}
		}
	}

	/* bracket the answer: [low, high] with high at or past the goal */
	if (split_offset(sp, guess) >= 0)
	{
		high = guess;
		low = guess - step;
		while (low >= 1 && split_offset(sp, low) >= 0)
		{
			high = low;
			step *= 2;
			low = high - step;
		}
		low = Max(low + 1, 1);
	}
	else
	{
		low = Min(guess + 1, n - 1);
		high = Min(guess + step, n - 1);
		while (high < n - 1 && split_offset(sp, high) < 0)
		{
			low = high + 1;
			step *= 2;
			high = Min(low - 1 + step, n - 1);
		}
	}
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (split_offset(sp, mid) >= 0)
			high = mid;
		else
			low = mid + 1;
	}
	return low;
}

int
pbt_choose_split(const PbtLayout *layout, const PbtItem *items, int n,
				 int hikeylen, int downlink, bool append_rightmost,
				 int fillfactor, bool bytewise, bool tid_last)
{
	SplitPlan	sp = {layout, items, n, hikeylen, downlink, append_rightmost,
	PBT_USABLE_SPACE * fillfactor / 100, bytewise};
	int			low;
	int			best = -1;
	int			bestdiff = INT_MAX;

	sp.left_bytes = palloc(2 * sizeof(int) * n);
	sp.right_bytes = sp.left_bytes + n;
	memset(sp.left_bytes, -1, 2 * sizeof(int) * n);	/* every int -1 */
	low = balance_point(&sp);

	/* that point or the one before it; further out only if neither fits */
	for (int dist = 0; dist < n && best < 0; dist++)
	{
		for (int s = low - 1 - dist; s <= low + dist; s += 2 * dist + 1)
		{
			int			diff;

			if (s < 1 || s > n - 1 || !split_fits(&sp, s))
				continue;
			diff = abs(split_offset(&sp, s));
			if (diff < bestdiff)
			{
				bestdiff = diff;
				best = s;
			}
		}
	}

	/*
	 * A split inside one key's entries (items ending in their heap TIDs):
	 * split at the key boundary nearest the balance point where both halves
	 * fit instead (nbtree's "many duplicates" strategy).  The key's later
	 * entries, which arrive with ascending TIDs, then fill the page that
	 * holds only that key (a posting leaf) instead of splitting the page
	 * that also holds the next key, which would leave half-empty pages of
	 * the key behind for good.  A page of one key splits where it would.
	 */
	if (best > 0 && tid_last && !append_rightmost &&
		pbt_items_same_key(items[best - 1].data, items[best - 1].len,
						   items[best].data, items[best].len))
	{
		int			center = best;

		for (int dist = 1; dist < n && best == center; dist++)
		{
			for (int s = center - dist; s <= center + dist; s += 2 * dist)
			{
				if (s >= 1 && s <= n - 1 &&
					!pbt_items_same_key(items[s - 1].data, items[s - 1].len,
										items[s].data, items[s].len) &&
					split_fits(&sp, s))
				{
					best = s;
					break;
				}
			}
		}
		if (best != center)
		{
			pfree(sp.left_bytes);
			return best;
		}
	}

	/*
	 * Suffix truncation: with byte-string keys, take the shortest separator
	 * within a window of n/16 split points around the balance point ("B-Trees
	 * Are Back"), which shortens inner pages' keys and leaves the halves
	 * longer common prefixes.  Not when packing an ascending load.
	 */
	if (best > 0 && bytewise && !append_rightmost)
	{
		int			w = n / 32;
		int			center = best;
		int			bestlen = separator_len(items, best);

		for (int s = Max(1, center - w); s <= Min(n - 1, center + w); s++)
		{
			int			len = separator_len(items, s);

			if ((len < bestlen ||
				 (len == bestlen && abs(s - center) < abs(best - center))) &&
				split_fits(&sp, s))
			{
				best = s;
				bestlen = len;
			}
		}
	}
	pfree(sp.left_bytes);
	return best;				/* -1: no split point fits */
}

/*
 * The layout a split's half gets (fallback unless the policy rebuilds it in
 * a PBT_LF_REBUILT layout: dense, semidense, posting, lists), and whether
 * the half fits so.  A rebuilt layout is only chosen for items that qualify
 * for it, which means that they fit.  A half that fits neither keeps own,
 * the page's layout, if it can (pbt_fit_kept_layout).
 */
static bool
half_fits(PbtState *st, PbtItem *items, int n, PbtItem *hikey,
		  uint8 fallback, uint8 own, uint8 *tag)
{
	*tag = pbt_choose_leaf_layout(st, items, n, hikey, true);
	if (pbt_layout_by_tag(*tag)->flags & PBT_LF_REBUILT)
		return true;
	*tag = fallback;
	return pbt_layout_by_tag(fallback)->fits(items, n, hikey, NULL) ||
		(own != fallback &&
		 pbt_fit_kept_layout(1 << own, items, n, hikey, tag, NULL));
}

/*
 * Leaves with normalized keys are rebuilt in the layout that
 * pbt_choose_leaf_layout picks for each half, which may differ from the
 * page's: a half of a heads page may become dense (or semidense), and the
 * half of a dense page that gets an item breaking the pattern becomes
 * heads.  So the costs that pbt_choose_split balanced (the page's own) are
 * only a guide: check that both halves fit as they will be rebuilt and
 * otherwise take the nearest split point where they do.  Halves that are
 * neither dense nor semidense get fallback, the layout pbt_choose_split
 * planned with, or own, the page's layout (see half_fits).  Returns the
 * split point; sep gets the separator, ltag and rtag the halves' layouts.
 */
int
pbt_fit_leaf_split(PbtState *st, PbtItem *items, int n, int s0,
				   PbtItem *oldhikey, uint8 fallback, uint8 own,
				   StringInfo sep, uint8 *ltag, uint8 *rtag)
{
	for (int d = 0; d < n; d++)
	{
		for (int side = 0; side < (d == 0 ? 1 : 2); side++)
		{
			int			s = side == 0 ? s0 - d : s0 + d;
			PbtItem		hikey;

			if (s < 1 || s >= n)
				continue;
			pbt_separator(st, &items[s - 1], &items[s], sep);
			hikey.data = sep->data;
			hikey.len = sep->len;
			if (half_fits(st, items, s, &hikey, fallback, own, ltag) &&
				half_fits(st, items + s, n - s, oldhikey, fallback, own, rtag))
				return s;
		}
	}
	elog(ERROR, "pagebtree: could not find a split point");
	return 0;					/* keep compiler quiet */
}

/*
 * Does a leaf half of these items fit: as half_fits with normalized keys;
 * in comparator mode in fallback, the layout it planned with.
 */
static bool
leaf_half_fits(PbtState *st, PbtItem *items, int n, PbtItem *hikey,
			   uint8 fallback, uint8 own, uint8 *tag)
{
	if (st->normalized)
		return half_fits(st, items, n, hikey, fallback, own, tag);
	*tag = fallback;
	return pbt_layout_by_tag(fallback)->space_needed(items, n, 0) +
		(hikey ? MAXALIGN(hikey->len) : 0) <= PBT_USABLE_SPACE;
}

/*
 * A leaf and its run whose entries fit in no two pages (pbt_choose_split
 * found no point): a page of one key's duplicates, which a prefix-truncating
 * layout stores in a few bytes each, with pending entries on both sides that
 * do not share their prefix, would need three.  Then the left half may keep
 * its share of the run pending instead of taking it in: items[0..n) are the
 * page's items and the run's, sorted (pending[] marks the run's).  Returns
 * the split point nearest the balance of bytes where the right half (all
 * items from it) fits and the left half either takes all items below it
 * (*keep = false) or only the page's (*keep = true: the run's entries below
 * it stay pending); -1 if none.  sep, ltag and rtag as pbt_fit_leaf_split.
 */
int
pbt_split_keeping_run(PbtState *st, PbtItem *items, const bool *pending,
					  int n, PbtItem *oldhikey, uint8 fallback, uint8 own,
					  StringInfo sep, uint8 *ltag, uint8 *rtag, bool *keep)
{
	PbtItem    *pageitems = palloc(sizeof(PbtItem) * n);
	int		   *npage = palloc(sizeof(int) * (n + 1));
	int			total = 0;
	int			left = 0;
	int			s0 = 1;
	int			found = -1;

	/* npage[s]: how many of the page's items are below split point s */
	npage[0] = 0;
	for (int i = 0; i < n; i++)
	{
		if (!pending[i])
			pageitems[npage[i]] = items[i];
		npage[i + 1] = npage[i] + (pending[i] ? 0 : 1);
		total += items[i].len;
	}
	while (s0 < n - 1 && 2 * (left += items[s0 - 1].len) < total)
		s0++;

	for (int d = 0; d < n && found < 0; d++)
	{
		for (int side = 0; side < (d == 0 ? 1 : 2) && found < 0; side++)
		{
			int			s = side == 0 ? s0 - d : s0 + d;
			PbtItem		hikey;

			if (s < 1 || s >= n ||
				!leaf_half_fits(st, items + s, n - s, oldhikey, fallback, own, rtag))
				continue;
			pbt_separator(st, &items[s - 1], &items[s], sep);
			hikey.data = sep->data;
			hikey.len = sep->len;
			*keep = !leaf_half_fits(st, items, s, &hikey, fallback, own, ltag);
			if (!*keep ||
				(npage[s] > 0 && npage[s] < s &&
				 leaf_half_fits(st, pageitems, npage[s], &hikey, fallback, own, ltag)))
				found = s;
		}
	}
	pfree(pageitems);
	pfree(npage);
	return found;
}

/*
 * If items [0, s) could make one page of layout (filled by runs: dense, see
 * PbtLayout.run_span) and items[s] starts another partition (its key
 * differs before the numeric tail, or its tail is more than a page's worth
 * of keys away: a gap), s; else 0.
 */
int
pbt_partition_end(const PbtLayout *layout, const PbtItem *items, int n)
{
	int			cap;
	int			prev = 1;

	Assert(layout->run_span != NULL);
	if (layout->run_span(items[0].data, items[0].len, items[0].data, items[0].len) != 1)
		return 0;
	cap = layout->run_capacity(items[0].data, items[0].len);
	for (int s = 1; s < n; s++)
	{
		int			span = layout->run_span(items[0].data, items[0].len,
											items[s].data, items[s].len);

		if (span == 0 && items[s].len == items[0].len &&
			memcmp(items[s].data, items[0].data, items[0].len) > 0)
			return s;			/* a new prefix, or a gap */
		/* a span too wide, or equal tails (one key twice): not a run */
		if (span <= prev || span > cap)
			return 0;
		prev = span;
	}
	return 0;
}
