/*-------------------------------------------------------------------------
 *
 * pbt_policy.c
 *	  Which layout a page gets: the layout reloption and what it maps to,
 *	  the layout of rebuilt leaves (split halves, bulk-built leaves, leaves
 *	  converted instead of split), and the adaptive layout's choice between
 *	  heads and fingerprint leaves.
 *
 * The engine asks this file for a layout and then builds the page through
 * the layout's PbtLayout (pbt_page_rebuild_as); layouts never choose each
 * other, except the one each PBT_LF_REBUILT layout converts to when an
 * insert breaks its pattern, which is part of the page format
 * (PbtLayout.convert_to).
 *
 * The adaptive layout ("B-Trees Are Back", section 5), in indexes with
 * layout = auto whose keys are normalized, have a text or bytea column and
 * no INCLUDE columns:
 *
 * Key-adaption.  When a leaf is written whole (a split's halves, a leaf of
 * a bulk build), its keys are tested.  If more than n/16 adjacent pairs
 * have equal 4-byte heads after the prefix all keys share, heads do not
 * tell the keys apart: they are string-like, and the leaf's operation
 * counter is enabled.  Otherwise the counter is off and the leaf stays a
 * comparison (heads) leaf.
 *
 * Operation-adaption.  A scan that reads a leaf in key order raises its
 * counter with probability 15%, a point lookup lowers it with probability
 * 5%: per the paper, a scan costs a fingerprint leaf about three times
 * what a lookup gains.  The counter is a hint, written under the share
 * lock like dead-entry hints and not WAL-logged.  When a point lookup
 * leaves a heads leaf at 0, or a scan leaves a fingerprint leaf at
 * PBT_OPS_MAX, the reader converts the leaf once it has released its share
 * lock (pbt_adapt_convert, pbt_adapt.c): it takes the exclusive lock if
 * nobody holds the page, checks that the leaf still asks for the
 * conversion and that its items fit the other layout, and rewrites it as
 * one WAL-logged change.  A conversion that would not fit is abandoned
 * (and the counter steps back); readers never change the tree's structure.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "access/reloptions.h"
#include "access/xlog.h"
#include "common/pg_prng.h"
#include "storage/bufmgr.h"

/* ----------------------------------------------------------------
 * The layout reloption
 * ----------------------------------------------------------------
 */
typedef enum PbtLayoutOption
{
	PBT_LAYOUT_OPTION_DEFAULT,	/* heads where keys are normalized, dense
								 * or semidense where that is smaller,
								 * fingerprint where operations ask */
	PBT_LAYOUT_OPTION_PLAIN,
	PBT_LAYOUT_OPTION_HEADS,
	PBT_LAYOUT_OPTION_DENSE,
	PBT_LAYOUT_OPTION_SEMIDENSE,
	PBT_LAYOUT_OPTION_BPA,
	PBT_LAYOUT_OPTION_FINGERPRINT,
	PBT_LAYOUT_OPTION_RETIRED_HEADS_NOHINTS /* retired ablation: heads */
} PbtLayoutOption;

/*
 * The values users may give.  A retired value stays in the list, so that
 * indexes created with it keep their option and their dumps restore; it is
 * ignored with a NOTICE at every build (pbt_layout_option_conflict).
 * Pages it made stay readable: see the retired tags in pbt_registry.c.
 */
static relopt_enum_elt_def pbt_layout_values[] = {
	{"auto", PBT_LAYOUT_OPTION_DEFAULT},
	{"plain", PBT_LAYOUT_OPTION_PLAIN},
	{"heads", PBT_LAYOUT_OPTION_HEADS},
	{"dense", PBT_LAYOUT_OPTION_DENSE},
	{"semidense", PBT_LAYOUT_OPTION_SEMIDENSE},
	{"bpa", PBT_LAYOUT_OPTION_BPA},
	{"fingerprint", PBT_LAYOUT_OPTION_FINGERPRINT},
	{"heads-nohints", PBT_LAYOUT_OPTION_RETIRED_HEADS_NOHINTS},
	{NULL}
};

/* define the layout reloption for the relation kinds in kinds (_PG_init) */
void
pbt_add_layout_reloption(bits32 kinds)
{
	add_enum_reloption(kinds, "layout",
					   "Layout of new leaf pages",
					   pbt_layout_values, PBT_LAYOUT_OPTION_DEFAULT,
					   "Valid values are \"auto\", \"plain\", \"heads\", \"dense\", \"semidense\", \"bpa\" and \"fingerprint\".",
					   ShareUpdateExclusiveLock);
}

/* the reloption value that names a PbtLayoutOption */
const char *
pbt_layout_option_name(int option)
{
	for (relopt_enum_elt_def *v = pbt_layout_values; v->string_val; v++)
		if (v->symbol_val == option)
			return v->string_val;
	return "unknown";
}

/*
 * Why this index's layout reloption cannot apply to it, or NULL if it can.
 * The validator sees only the value (ALTER INDEX SET passes no relation),
 * so a forced layout whose needs the index's columns do not meet is
 * ignored, with a NOTICE at build time, rather than refused: a rebuild
 * (TRUNCATE, REINDEX, VACUUM FULL, CLUSTER, a restored dump) must never
 * fail on an option that was accepted.  pbt_set_layouts() falls back the
 * same way.
 */
const char *
pbt_layout_option_conflict(PbtState *st, int option)
{
	if (option == PBT_LAYOUT_OPTION_DEFAULT || option == PBT_LAYOUT_OPTION_PLAIN)
		return NULL;
	if (option == PBT_LAYOUT_OPTION_RETIRED_HEADS_NOHINTS)
		return "The heads-nohints ablation is retired: leaves take the layout auto gives, and the setting pagebtree.ablate_leaf_hints measures hints.";
	if (!st->normalized)
		return "Its keys are compared with the operator classes' comparison functions, not as byte strings.";
	if ((option == PBT_LAYOUT_OPTION_DENSE ||
		 option == PBT_LAYOUT_OPTION_FINGERPRINT) && st->has_include)
		return "Those leaves cannot hold INCLUDE columns.";
	if (option == PBT_LAYOUT_OPTION_SEMIDENSE && !st->has_include)
		return "Semidense leaves are for indexes with INCLUDE columns.";
	return NULL;
}

/*
 * The layouts of an index's pages, from its reloptions (NULL: defaults) and
 * the key state pbt_build_state() has derived (normalized, has_include);
 * has_string_column: a key column is text or bytea.
 */
void
pbt_set_layouts(PbtState *st, const PbtOptions *opts, bool has_string_column)
{
	int			option = opts ? opts->layout : PBT_LAYOUT_OPTION_DEFAULT;

	/* a forced layout the columns cannot use is ignored: auto's layouts */
	if (pbt_layout_option_conflict(st, option) != NULL)
		option = PBT_LAYOUT_OPTION_DEFAULT;
	/* heads need byte-string keys (see pbt_layout_option_conflict) */
	st->leaf_layout = st->inner_layout = PBT_LAYOUT_PLAIN;
	if (st->normalized && option != PBT_LAYOUT_OPTION_PLAIN)
		st->leaf_layout = st->inner_layout = PBT_LAYOUT_HEADS;
	/* BPA leaves compare items as bytes too; inner pages stay heads */
	if (st->normalized && option == PBT_LAYOUT_OPTION_BPA)
		st->leaf_layout = PBT_LAYOUT_BPA;
	/* fingerprints hash the key, which only items without a payload end */
	if (st->normalized && !st->has_include &&
		option == PBT_LAYOUT_OPTION_FINGERPRINT)
		st->leaf_layout = PBT_LAYOUT_FINGERPRINT;

	/*
	 * Fingerprint leaves where operations ask for them (see above), for
	 * keys with a text or bytea column.  On int8 keys forced fingerprint
	 * leaves look up no faster than heads and scan and insert more slowly
	 * (docs/decisions.md), so fixed-width keys never convert.
	 */
	st->adaptive = st->normalized && !st->has_include && has_string_column &&
		option == PBT_LAYOUT_OPTION_DEFAULT;

	/*
	 * Layouts made only by page rebuilds, so new leaves still start in
	 * leaf_layout: dense leaves hold key || TID items compared as bytes,
	 * normalized keys without an INCLUDE payload; semidense leaves store an
	 * item's TID, INCLUDE payload and payload length as one entry, which
	 * they find by the payload length at the item's end, so indexes with
	 * INCLUDE columns, where dense does not apply.  An index has at most one
	 * of the two.  By default a leaf takes it where that is smaller than
	 * heads; forced, wherever its items qualify.
	 */
	st->rebuilt_layout = 0;
	st->rebuilt_when = 0;
	if (st->normalized && !st->has_include &&
		(option == PBT_LAYOUT_OPTION_DEFAULT ||
		 option == PBT_LAYOUT_OPTION_DENSE))
		st->rebuilt_layout = PBT_LAYOUT_DENSE;
	if (st->normalized && st->has_include &&
		(option == PBT_LAYOUT_OPTION_DEFAULT ||
		 option == PBT_LAYOUT_OPTION_SEMIDENSE))
		st->rebuilt_layout = PBT_LAYOUT_SEMIDENSE;
	if (st->rebuilt_layout != 0)
		st->rebuilt_when = option == PBT_LAYOUT_OPTION_DEFAULT ?
			PBT_REBUILT_SMALLER : PBT_REBUILT_ELIGIBLE;

	/*
	 * Posting leaves (one key's entries, the key stored once) where they
	 * are smaller, by default: items must end in the heap TID, so not with
	 * INCLUDE columns, and a forced layout stays what it was asked to be.
	 */
	st->posting = st->normalized && !st->has_include &&
		option == PBT_LAYOUT_OPTION_DEFAULT &&
		(opts == NULL || opts->deduplicate_items);

	/* every layout's page parameter (BPA: geometry), kept by rebuilds */
	for (int tag = 0; tag < PBT_MAX_LAYOUTS; tag++)
	{
		const PbtLayout *layout = pbt_layout_by_tag(tag);

		st->layout_param[tag] = layout && layout->param ?
			layout->param(opts) : 0;
	}
}

/* ----------------------------------------------------------------
 * Rebuilt leaves
 * ----------------------------------------------------------------
 */

/*
 * A leaf becomes a lists leaf only where that takes at most this percentage
 * of its bytes in the leaf layout: a page that would gain a few bytes stays
 * heads (whose hints narrow lookups), and the split halves of such pages do
 * not switch back and forth.
 */
#define PBT_LISTS_MAX_PCT	90

/* bytes of the items in the leaf layout, computed once per choice */
static int
leaf_layout_bytes(PbtState *st, PbtItem *items, int n, int *cached)
{
	if (*cached < 0)
		*cached = pbt_layout_by_tag(st->leaf_layout)->space_needed(items, n, 0);
	return *cached;
}

/*
 * The layout of a leaf rebuilt to hold these sorted items and high key
 * (NULL: none) after a split, instead of a split, or at the end of a
 * bulk-built page: posting where the items are one key's and that is
 * smaller (deduplicate_items); else the index's rebuilt layout (dense or
 * semidense) where the items qualify and, by default, take fewer bytes than
 * in the index's leaf layout (heads, wherever there is a rebuilt layout);
 * else lists where keys repeat enough to save a tenth of the bytes
 * (deduplicate_items); else the leaf layout.
 *
 * one_page: the leaf is one page whatever its layout (a split's half, or a
 * leaf rebuilt instead of split), not one of the pages that a bulk build
 * or a rebalance fills with as many items as fit.  With a high key it then
 * takes a rebuilt layout that keeps room for its whole window (dense)
 * wherever its items qualify, smaller or not: such a page takes every key
 * of its window, which ends at the high key, without splitting again,
 * where a heads page splits when its bytes run out; and it takes later
 * entries without shifting the others, which generic WAL would log.
 * Without a high key (the rightmost leaf) the window starts at the first
 * item, and keys arriving above it would break its pattern.
 */
uint8
pbt_choose_leaf_layout(PbtState *st, PbtItem *items, int n, PbtItem *hikey,
					   bool one_page)
{
	int			bytes;
	int			leaf_bytes = -1;

	if (st->posting &&
		pbt_layout_by_tag(PBT_LAYOUT_POSTING)->fits(items, n, hikey, &bytes) &&
		bytes < leaf_layout_bytes(st, items, n, &leaf_bytes))
		return PBT_LAYOUT_POSTING;
	if (st->rebuilt_layout != 0)
	{
		const PbtLayout *rebuilt = pbt_layout_by_tag(st->rebuilt_layout);

		Assert(rebuilt->flags & PBT_LF_REBUILT);
		if (rebuilt->fits(items, n, hikey, &bytes) &&
			(st->rebuilt_when == PBT_REBUILT_ELIGIBLE ||
			 (one_page && hikey && (rebuilt->flags & PBT_LF_WHOLE_WINDOW)) ||
			 bytes < leaf_layout_bytes(st, items, n, &leaf_bytes)))
			return rebuilt->tag;
	}
	if (st->posting &&
		pbt_layout_by_tag(PBT_LAYOUT_LISTS)->fits(items, n, hikey, &bytes) &&
		bytes * 100 <
		leaf_layout_bytes(st, items, n, &leaf_bytes) * PBT_LISTS_MAX_PCT)
		return PBT_LAYOUT_LISTS;
	return st->leaf_layout;
}

/*
 * A layout that the pages these items come from already have (kept: a mask
 * of their layout tags) and that holds them on one page, for items that fit
 * no page in the layouts the policy picks: after ALTER INDEX ... SET
 * (deduplicate_items = off) or (layout = ...), a full posting or dense leaf
 * holds entries that would take several pages in heads or BPA (a heads
 * leaf of long shared prefixes, in plain), and a split or rebalance has
 * only its pages at hand.  Such a page keeps its layout until a rebuild
 * (REINDEX) or until its entries fit the new one.  A layout that a page of
 * the index has suits its items (a rebuilt one's fits() checks that they
 * qualify); retired layouts make no new pages.  *bytes (if not NULL): what
 * the items take there.
 */
bool
pbt_fit_kept_layout(uint16 kept, PbtItem *items, int n, PbtItem *hikey,
					uint8 *tag, int *bytes)
{
	for (int t = 0; t < PBT_MAX_LAYOUTS; t++)
	{
		const PbtLayout *layout;

		if (!(kept & (1 << t)))
			continue;
		layout = pbt_layout_by_tag(t);
		if (!(layout->flags & PBT_LF_RETIRED) &&
			layout->fits(items, n, hikey, bytes))
		{
			*tag = t;
			return true;
		}
	}
	return false;
}

/*
 * The layout of the right page of an appending split of a leaf in layout
 * from (split_rightmost_append), which gets these sorted items and no high
 * key.  A layout whose left pages keep all their items (dense: its window
 * past the high key could never be used) starts the right page in itself
 * when the items qualify, smaller or not, since ascending keys will fill
 * it; otherwise as any rebuilt leaf.
 */
uint8
pbt_choose_append_layout(PbtState *st, const PbtLayout *from, PbtItem *items,
						 int n)
{
	if ((from->flags & PBT_LF_APPEND_KEEPS_ALL) &&
		from->fits(items, n, NULL, NULL))
		return from->tag;
	return pbt_choose_leaf_layout(st, items, n, NULL, false);
}

/* ----------------------------------------------------------------
 * The adaptive layout: heads and fingerprint leaves
 * ----------------------------------------------------------------
 */

#define HEAD_BYTES	4

/* the chance of a counter step, out of 2^32 */
#define SCAN_STEP_CHANCE	((uint32) (0.15 * PG_UINT32_MAX))
#define POINT_STEP_CHANCE	((uint32) (0.05 * PG_UINT32_MAX))

/*
 * Are these sorted keys string-like?  Adjacent keys have equal heads when
 * their common prefix reaches past the head that follows the prefix of all
 * keys.  The keys are byte strings in order (adaptive indexes are
 * normalized), so that prefix is the first and last keys' common prefix.
 * Entries of one key (they differ only in the heap TID, the last
 * PBT_TID_BYTES of an item without INCLUDE columns) do not count: heads
 * tell distinct keys apart, which is all a lookup needs of them, and a
 * fingerprint would not tell duplicates apart either.
 */
static bool
string_like(const PbtItem *items, int n)
{
	int			prefix;
	int			collisions = 0;

	if (n < 2)
		return false;
	prefix = pbt_common_prefix(items[0].data, items[0].len,
							   items[n - 1].data, items[n - 1].len);
	for (int i = 1; i < n; i++)
	{
		const PbtItem *a = &items[i - 1];
		const PbtItem *b = &items[i];

		if (a->len >= prefix + HEAD_BYTES && b->len >= prefix + HEAD_BYTES &&
			memcmp(a->data + prefix, b->data + prefix, HEAD_BYTES) == 0 &&
			!(a->len == b->len &&
			  memcmp(a->data, b->data, a->len - PBT_TID_BYTES) == 0) &&
			++collisions * 16 > n)
			return true;
	}
	return false;
}

/* string_like for the items of a page */
static bool
page_string_like(Page page)
{
	int			n = pbt_layout(page)->count(page);
	PbtItem    *items = pbt_page_copy_items(page, n);
	bool		result = string_like(items, n);

	pbt_free_items(items, n);
	return result;
}

/*
 * Key-adaption of a leaf just written whole with these items and high key
 * (NULL: none), which inherits counter from the page it came from
 * (PBT_OPS_OFF if none): set its counter, and rebuild a heads leaf whose
 * counter is below PBT_OPS_FP_BELOW as a fingerprint leaf if the items fit
 * (a fresh counter starts at PBT_OPS_START, so callers that pass
 * PBT_OPS_OFF may pass no items).  The caller logs the page.  Returns
 * whether the page was rebuilt.
 */
bool
pbt_adapt_leaf(PbtState *st, Page page, uint8 counter,
			   PbtItem *items, int n, PbtItem *hikey)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(page);

	/* without items, the leaf is never rebuilt: only a fresh counter (OFF) */
	Assert(items != NULL || counter == PBT_OPS_OFF);
	if (!st->adaptive || !PbtIsLeaf(opaque))
		return false;
	if ((opaque->layout != PBT_LAYOUT_HEADS &&
		 opaque->layout != PBT_LAYOUT_FINGERPRINT) ||
		!(items ? string_like(items, n) : page_string_like(page)))
		counter = PBT_OPS_OFF;
	else if (counter == PBT_OPS_OFF)
		counter = PBT_OPS_START;
	opaque->op_counter = counter;
	if (opaque->layout == PBT_LAYOUT_HEADS && counter < PBT_OPS_FP_BELOW &&
		pbt_layout_by_tag(PBT_LAYOUT_FINGERPRINT)->fits(items, n, hikey, NULL))
	{
		pbt_page_rebuild_as(page, PBT_LAYOUT_FINGERPRINT, st, items, n, hikey);
		return true;
	}
	return false;
}

/*
 * The layout a leaf's counter asks for (0: its own): a heads leaf at 0
 * becomes a fingerprint leaf, a fingerprint leaf at PBT_OPS_MAX a heads
 * leaf.
 */
uint8
pbt_adapt_target(PbtPageOpaque opaque)
{
	if (opaque->op_counter == 0 && opaque->layout == PBT_LAYOUT_HEADS)
		return PBT_LAYOUT_FINGERPRINT;
	if (opaque->op_counter == PBT_OPS_MAX &&
		opaque->layout == PBT_LAYOUT_FINGERPRINT)
		return PBT_LAYOUT_HEADS;
	return 0;
}

/*
 * A conversion to tag that pbt_adapt_target asked for does not fit: step
 * the counter back, so that the next readers do not try again at once.
 */
void
pbt_adapt_abandon(PbtPageOpaque opaque, uint8 tag)
{
	opaque->op_counter = tag == PBT_LAYOUT_FINGERPRINT ? 1 : PBT_OPS_MAX - 1;
	pbt_note_unlogged_hint(opaque, 0);
}

/*
 * A reader's step of the counter of the share-locked leaf in buf (of an
 * adaptive index), for a point lookup or an ordered scan.  Returns the
 * layout the reader should convert the leaf to when it is done with it, or
 * 0: point lookups ask only for fingerprint leaves, scans only for heads
 * leaves.
 */
uint8
pbt_adapt_on_read(Buffer buf, bool point)
{
	PbtPageOpaque opaque = PbtPageGetOpaque(BufferGetPage(buf));
	uint8		counter = opaque->op_counter;
	uint8		target;
	bool		step;

	if (counter == PBT_OPS_OFF || RecoveryInProgress() ||
		!pbt_unlogged_hints_allowed())
		return 0;
	if (point)
		step = counter > 0 &&
			pg_prng_uint32(&pg_global_prng_state) < POINT_STEP_CHANCE;
	else
		step = counter < PBT_OPS_MAX &&
			pg_prng_uint32(&pg_global_prng_state) < SCAN_STEP_CHANCE;
	if (step)
	{
		counter = point ? counter - 1 : counter + 1;
		opaque->op_counter = counter;
		pbt_note_unlogged_hint(opaque, 0);
		MarkBufferDirtyHint(buf, true);
	}

	/*
	 * pbt_adapt_target's rule, for the layout this kind of read asks for,
	 * spelled out on the local counter: every read of an adaptive leaf
	 * passes here, and most return at the first test.  (Other readers may
	 * step the counter meanwhile, under their share locks; the conversion
	 * checks pbt_adapt_target again under the exclusive lock.)
	 */
	if (point)
		target = counter == 0 && opaque->layout == PBT_LAYOUT_HEADS ?
			PBT_LAYOUT_FINGERPRINT : 0;
	else
		target = counter == PBT_OPS_MAX &&
			opaque->layout == PBT_LAYOUT_FINGERPRINT ? PBT_LAYOUT_HEADS : 0;
	return target;
}
