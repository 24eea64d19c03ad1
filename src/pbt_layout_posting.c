/*-------------------------------------------------------------------------
 *
 * pbt_layout_posting.c
 *	  Posting layout: a leaf of one key's entries, the key stored once and
 *	  the heap TIDs as a sorted array (leaves of normalized-key indexes
 *	  without INCLUDE columns; nbtree's deduplication, one list per page).
 *
 * An item is key (K bytes) || heap TID (PBT_TID_BYTES, big-endian block
 * and offset), and every item on a posting page has the same key.  The key
 * and the first bytes that all the page's TIDs share (the TID prefix: at
 * most the block number's three high bytes) are stored once; each TID keeps
 * the rest, width = PBT_TID_BYTES - TID prefix bytes (3 to 6):
 *
 *   PageHeader | PostingHeader | tids[count] (width bytes each)
 *   -> pd_lower ... free ... pd_upper <- key || TID prefix, high key | special
 *
 * An int8 key then costs 3 or 4 bytes per entry where heads costs a slot
 * (8 bytes) and the remainder, and btree's posting lists 6; a page holds at
 * most PBT_MAX_ITEMS_PER_PAGE entries.  The dead-entry
 * hint is the top bit of the offset number's high byte (offsets stay below
 * 2^15), not WAL-logged and cleared by mask.
 *
 * The engine builds posting leaves like dense ones (PBT_LF_REBUILT): a
 * split half, a leaf that would split or a bulk-built leaf whose items are
 * all one key becomes one where that is smaller (pbt_choose_leaf_layout).
 * An insert of the same key takes its place in the array (widening the
 * TIDs first if the new TID does not share the TID prefix); an insert of
 * another key converts the page in place to heads holding all items plus
 * the new one, or fails, leaving the page unchanged, if they do not fit
 * there either; the engine then splits.  All of it is deterministic, for
 * WAL redo, and allocates nothing: inserts run inside critical sections.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_dense_util.h"
#include "pbt_slots.h"
#include "pbt_tids.h"

#define POSTING_CONVERT_TO		PBT_LAYOUT_HEADS

typedef struct PostingHeader
{
	uint16		count;
	uint16		key_len;		/* 0: no key yet (an empty page) */
	uint16		prefix_off;		/* key || TID prefix */
	uint8		width;			/* stored bytes per TID */
	uint8		reserved;
} PostingHeader;

#define POSTING_TIDS_START	(SizeOfPageHeaderData + sizeof(PostingHeader))

static inline PostingHeader *
posting_header(Page page)
{
	return (PostingHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline char *
tid_at(Page page, int pos)
{
	return (char *) page + POSTING_TIDS_START + pos * posting_header(page)->width;
}

/* bytes of key || TID prefix */
static inline int
prefix_len(const PostingHeader *hdr)
{
	return hdr->key_len + PBT_TID_BYTES - hdr->width;
}

static inline const char *
prefix_at(Page page)
{
	return (char *) page + posting_header(page)->prefix_off;
}

/* do these items all have one key (and no INCLUDE payload to tell)? */
static bool
one_key(const PbtItem *items, int n)
{
	if (n < 1 || items[0].len <= PBT_TID_BYTES)
		return false;
	for (int i = 1; i < n; i++)
		if (!pbt_items_same_key(items[i].data, items[i].len,
								items[0].data, items[0].len))
			return false;
	return true;
}

/* the width that sorted items of one key get: their TIDs' first and last */
static int
width_for(const PbtItem *items, int n)
{
	int			klen = items[0].len - PBT_TID_BYTES;

	return PBT_TID_BYTES - pbt_tids_common(items[0].data + klen,
										   items[n - 1].data + klen);
}

static int
posting_bytes(int klen, int width, int n)
{
	return sizeof(PostingHeader) + klen + PBT_TID_BYTES - width + n * width;
}

static void
posting_init(Page page)
{
	memset(posting_header(page), 0, sizeof(PostingHeader));
	((PageHeader) page)->pd_lower = POSTING_TIDS_START;
}

static int
posting_count(Page page)
{
	return pbt_checked_count(posting_header(page)->count);
}

static void
posting_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	PostingHeader *hdr = posting_header(page);
	int			plen = prefix_len(hdr);

	Assert(pos >= 0 && pos < hdr->count);
	pbt_check_copy(hdr->prefix_off, plen, hdr->key_len + PBT_TID_BYTES);
	memcpy(buf->data, prefix_at(page), plen);
	pbt_tids_copy(buf->data + plen, tid_at(page, pos), hdr->width);
	item->data = buf->data;
	item->len = hdr->key_len + PBT_TID_BYTES;
}

/* item bytes still referenced: key || TID prefix, the high key */
static int
live_bytes(Page page)
{
	PostingHeader *hdr = posting_header(page);

	return (hdr->key_len > 0 ? prefix_len(hdr) : 0) + pbt_page_hikey_bytes(page);
}

static int
posting_garbage(Page page)
{
	PageHeader	phdr = (PageHeader) page;

	return phdr->pd_special - phdr->pd_upper - live_bytes(page);
}

static int
posting_free_space(Page page)
{
	return pbt_tids_free_space(page, posting_header(page)->count,
							   posting_garbage(page));
}

/* drop the garbage above pd_upper: rewrite the prefix and the high key */
static void
posting_compact(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	PostingHeader *hdr = posting_header(page);
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	char		prefix[PBT_MAX_ITEM_SIZE];
	char		hikey[PBT_MAX_ITEM_SIZE];
	int			plen = hdr->key_len > 0 ? prefix_len(hdr) : 0;
	int			hlen = opaque->hikey_len;

	memcpy(prefix, prefix_at(page), plen);
	memcpy(hikey, (char *) page + opaque->hikey_off, hlen);
	phdr->pd_upper = phdr->pd_special;
	if (hlen > 0)
		pbt_page_set_hikey(page, hikey, hlen);
	phdr->pd_upper -= plen;
	memcpy((char *) page + phdr->pd_upper, prefix, plen);
	hdr->prefix_off = phdr->pd_upper;
	memset((char *) page + phdr->pd_lower, 0, phdr->pd_upper - phdr->pd_lower);
}

/* make room for bytes more between pd_lower and pd_upper; false if none */
static bool
make_room(Page page, int bytes)
{
	PageHeader	phdr = (PageHeader) page;

	if (phdr->pd_upper - phdr->pd_lower - (int) sizeof(PbtSlot) >= bytes)
		return true;
	if (posting_free_space(page) < bytes)
		return false;
	posting_compact(page);
	return true;
}

/*
 * Widen the stored TIDs to width bytes, in place from the last one (the
 * array grows): the bytes each gains are the last of the old TID prefix.
 */
static void
widen(Page page, int width)
{
	PostingHeader *hdr = posting_header(page);

	pbt_tids_widen((char *) page + POSTING_TIDS_START, hdr->count, hdr->width,
				   width, prefix_at(page) + prefix_len(hdr) - (width - hdr->width));
	hdr->width = width;
	((PageHeader) page)->pd_lower = POSTING_TIDS_START + hdr->count * width;
}

/*
 * The width an item needs on this page, or 0 if it is another key (or the
 * page has none).
 */
static int
width_needed(Page page, const char *data, int len)
{
	PostingHeader *hdr = posting_header(page);
	const char *prefix = prefix_at(page);

	if (hdr->key_len == 0 || len != hdr->key_len + PBT_TID_BYTES ||
		memcmp(data, prefix, hdr->key_len) != 0)
		return 0;
	return Max(hdr->width,
			   PBT_TID_BYTES - pbt_tids_common(data + hdr->key_len,
											   prefix + hdr->key_len));
}

/* bytes the page's items and (data, len) would take as heads, high key too */
static int
converted_bytes(Page page, const char *data, int len)
{
	const PbtLayout *to = window_target(POSTING_CONVERT_TO);
	PostingHeader *hdr = posting_header(page);
	int			q;
	int			bytes = window_converted_bytes(page, to, hdr->count, data, len,
											   posting_get, &q);

	return bytes + hdr->count * to->suffix_bytes(hdr->key_len + PBT_TID_BYTES - q);
}

/*
 * What an insert costs, consistent with posting_free_space and
 * posting_insert (the engine inserts only when cost <= free space, and
 * insert must then succeed): its stored TID, plus the growth of every TID
 * if it widens them; an item of another key converts the page to heads,
 * which fits iff its bytes H are at most the usable space U, and free space
 * is U less the header, the TIDs, the live bytes and the slot that
 * pbt_page_alloc keeps free, so the cost is H less those.
 */
static int
posting_item_cost(Page page, const char *data, int len)
{
	PostingHeader *hdr = posting_header(page);
	int			width = width_needed(page, data, len);

	if (hdr->count >= PBT_MAX_ITEMS_PER_PAGE)
		return PBT_USABLE_SPACE;
	if (width > 0)
		return width + hdr->count * (width - hdr->width);
	return Max(0, converted_bytes(page, data, len) -
			   (int) (sizeof(PostingHeader) + sizeof(PbtSlot)) -
			   hdr->count * hdr->width - live_bytes(page));
}

static bool
posting_insert(Page page, int pos, const char *data, int len)
{
	PostingHeader *hdr = posting_header(page);
	int			width = width_needed(page, data, len);
	char	   *t;

	Assert(pos >= 0 && pos <= hdr->count);
	if (width == 0)
		return window_convert_insert(page, pos, data, len,
									 converted_bytes(page, data, len));
	if (hdr->count >= PBT_MAX_ITEMS_PER_PAGE ||
		!make_room(page, width + hdr->count * (width - hdr->width)))
		return false;
	if (width > hdr->width)
		widen(page, width);
	t = tid_at(page, pos);
	memmove(t + width, t, (hdr->count - pos) * width);
	memcpy(t, data + len - width, width);
	hdr->count++;
	((PageHeader) page)->pd_lower += width;
	return true;
}

/*
 * The bytes posting_insert changes when the TID takes the array's width and
 * the gap has room: the header and the TIDs from pos on (those after it
 * shift; the array's new end is in the hole).
 */
static int
posting_insert_ranges(Page page, int pos, const char *data, int len,
					  PbtByteRange *ranges)
{
	PageHeader	phdr = (PageHeader) page;
	PostingHeader *hdr = posting_header(page);
	int			width = width_needed(page, data, len);

	if (width == 0 || width != hdr->width ||
		hdr->count >= PBT_MAX_ITEMS_PER_PAGE ||
		phdr->pd_upper - phdr->pd_lower - (int) sizeof(PbtSlot) < hdr->width)
		return -1;				/* converts, widens or compacts */
	ranges[0].off = SizeOfPageHeaderData;
	ranges[0].len = sizeof(PostingHeader);
	if (pos == hdr->count)
		return 1;
	ranges[1].off = tid_at(page, pos) - (char *) page;
	ranges[1].len = (hdr->count - pos) * hdr->width;
	return 2;
}

/* fill the empty page (its high key, if any, already set) */
static void
posting_load(Page page, PbtItem *items, int n)
{
	PageHeader	phdr = (PageHeader) page;
	PostingHeader *hdr = posting_header(page);
	int			klen;
	int			width;
	int			plen;
	int			off;

	if (hdr->count != 0 || hdr->key_len != 0)
		elog(ERROR, "pagebtree posting layout: load into a page that is not empty");
	if (n == 0)
		return;
	if (!one_key(items, n) || n > PBT_MAX_ITEMS_PER_PAGE)
		elog(ERROR, "pagebtree posting layout: %d items do not make a posting page", n);
	klen = items[0].len - PBT_TID_BYTES;
	width = width_for(items, n);
	plen = klen + PBT_TID_BYTES - width;
	off = pbt_page_alloc(page, plen);
	if (off < 0 || off - (int) sizeof(PbtSlot) < (int) (POSTING_TIDS_START + n * width))
		elog(ERROR, "pagebtree posting layout: %d items do not fit", n);
	memcpy((char *) page + off, items[0].data, plen);
	hdr->key_len = klen;
	hdr->width = width;
	hdr->prefix_off = off;
	hdr->count = n;
	for (int i = 0; i < n; i++)
		memcpy(tid_at(page, i), items[i].data + plen, width);
	phdr->pd_lower = POSTING_TIDS_START + n * width;
}

static void
posting_delete(Page page, const int *positions, int n)
{
	PostingHeader *hdr = posting_header(page);

	hdr->count = pbt_array_delete(tid_at(page, 0), hdr->width, hdr->count,
								  positions, n);
	((PageHeader) page)->pd_lower = POSTING_TIDS_START + hdr->count * hdr->width;
}

static void
posting_truncate(Page page, int n)
{
	PostingHeader *hdr = posting_header(page);

	Assert(n <= hdr->count);
	hdr->count = n;
	((PageHeader) page)->pd_lower = POSTING_TIDS_START + n * hdr->width;
}

/*
 * Would a posting page loaded with exactly these sorted items and high key
 * (NULL: none) hold them?  They must all be one key, and more than one
 * entry of it.
 */
static bool
posting_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	int			need;

	if (n < 2 || !one_key(items, n) || n > PBT_MAX_ITEMS_PER_PAGE)
		return false;
	need = posting_bytes(items[0].len - PBT_TID_BYTES, width_for(items, n), n);
	if (bytes)
		*bytes = need;
	/* pbt_page_alloc keeps a slot's bytes free */
	return need + (hikey ? hikey->len : 0) + (int) sizeof(PbtSlot) <=
		(int) PBT_USABLE_SPACE;
}

static int
posting_space_needed(const PbtItem *items, int n, int downlink)
{
	return window_space_needed(items, n, downlink, posting_fits,
							   window_target(POSTING_CONVERT_TO));
}

/*
 * The build fills a posting page while items are its key (room, widening
 * included: the engine asks item_cost)
 */
static bool
posting_takes(Page page, const char *data, int len)
{
	return posting_header(page)->count < PBT_MAX_ITEMS_PER_PAGE &&
		width_needed(page, data, len) > 0;
}

/* byte order of (rest, rlen) and a stored TID, as pbt_compare has it */
static int
tid_cmp(const char *rest, int rlen, const char *t, int width, bool nextkey)
{
	char		tid[PBT_TID_BYTES];
	int			c;

	pbt_tids_copy(tid, t, width);
	c = memcmp(rest, tid, Min(rlen, width));
	if (c != 0)
		return c;
	if (nextkey)
		return 1;
	return (rlen > width) - (rlen < width);
}

/* the first position whose item is >= key (> with nextkey) */
static int
posting_search(PbtState *st, Page page, PbtSearchKey *key)
{
	PostingHeader *hdr = posting_header(page);
	int			plen = prefix_len(hdr);
	int			low = 0;
	int			high = hdr->count;
	int			c;

	Assert(st->normalized);
	if (hdr->count == 0)
		return 0;
	c = memcmp(key->bytes, prefix_at(page), Min(key->len, plen));
	if (c != 0)
		return c < 0 ? 0 : hdr->count;
	if (key->len <= plen)
		return key->nextkey ? hdr->count : 0;
	while (low < high)
	{
		int			mid = low + (high - low) / 2;

		if (tid_cmp(key->bytes + plen, key->len - plen, tid_at(page, mid),
					hdr->width, key->nextkey) > 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

static void
posting_set_dead(Page page, int pos)
{
	pbt_tids_set_dead(tid_at(page, pos), posting_header(page)->width);
}

static bool
posting_is_dead(Page page, int pos)
{
	return pbt_tids_is_dead(tid_at(page, pos), posting_header(page)->width);
}

static void
posting_mask(Page page)
{
	PostingHeader *hdr = posting_header(page);

	pbt_tids_clear_dead(tid_at(page, 0), hdr->count, hdr->width);
}

/* scans call these for every row: the key and TID prefix are copied once */
static void
posting_iter_start(PbtIter *it)
{
	PostingHeader *hdr = posting_header(it->page);
	int			shared = PBT_TID_BYTES - hdr->width;	/* leading TID bytes */
	uint64		tid_prefix = 0;

	pbt_check_copy(hdr->prefix_off, prefix_len(hdr), hdr->key_len + PBT_TID_BYTES);
	memcpy(it->buf.data, prefix_at(it->page), prefix_len(hdr));
	/* the shared TID bytes in place in a word: iter_next ORs in the rest */
	memcpy(&tid_prefix, it->buf.data + hdr->key_len, shared);
	StaticAssertStmt(sizeof(it->state) >= sizeof(uint64), "no room");
	memcpy(it->state.data, &tid_prefix, sizeof(tid_prefix));
	it->primed = true;
}

static void
posting_iter_next(PbtIter *it, PbtItem *item)
{
	PostingHeader *hdr = posting_header(it->page);
	uint64		tid_prefix;
	uint64		word;

	it->pos += it->step;
	memcpy(&tid_prefix, it->state.data, sizeof(tid_prefix));
	word = pbt_tids_load(tid_at(it->page, it->pos), hdr->width, tid_prefix,
						 &it->dead);

	/*
	 * One 8-byte store of the whole TID, so that the caller's reads of any
	 * of its bytes are served from that one store: a read that straddled
	 * two stores (or stores byte by byte) stalled.  The bytes past the TID
	 * fall in the buffer's slack.
	 */
	StaticAssertStmt(sizeof(it->buf.data) >= PBT_MAX_ITEM_SIZE + sizeof(word),
					 "no slack for the TID store");
	memcpy(it->buf.data + hdr->key_len, &word, sizeof(word));
	item->data = it->buf.data;
	item->len = hdr->key_len + PBT_TID_BYTES;
}

static void
posting_iter_tids(PbtIter *it, int n, ItemPointerData *tids, bool *dead)
{
	PostingHeader *hdr = posting_header(it->page);
	uint64		tid_prefix;

	Assert(n >= 0 && n <= (it->stop - it->pos) * it->step - 1);
	memcpy(&tid_prefix, it->state.data, sizeof(tid_prefix));
	pbt_tids_decode(tid_at(it->page, it->pos), it->step * hdr->width, n,
					hdr->width, tid_prefix, tids, dead);
	it->pos += n * it->step;
}

static const char *
posting_check_header(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	PostingHeader *hdr = posting_header(page);

	if (hdr->key_len == 0)
		return hdr->count == 0 ? NULL : "posting page has entries but no key";
	if (hdr->width < PBT_TIDS_MIN_WIDTH || hdr->width > PBT_TID_BYTES ||
		hdr->key_len > PBT_MAX_ITEM_SIZE)
		return "posting key length or TID width out of range";
	if (hdr->count > PBT_MAX_ITEMS_PER_PAGE ||
		phdr->pd_lower != POSTING_TIDS_START + hdr->count * hdr->width)
		return "posting entry count disagrees with pd_lower";
	if (!pbt_in_item_space(page, hdr->prefix_off, prefix_len(hdr)))
		return "posting key out of bounds";
	return NULL;
}

static const char *
posting_check(Page page)
{
	PostingHeader *hdr = posting_header(page);
	char		prev[PBT_TID_BYTES];
	const char *problem = posting_check_header(page);

	if (problem)
		return problem;
	for (int i = 0; i < hdr->count; i++)
	{
		char		tid[PBT_TID_BYTES];

		pbt_tids_copy(tid, tid_at(page, i), hdr->width);
		if (i > 0 && memcmp(prev, tid, hdr->width) >= 0)
			return "posting TIDs out of order";
		memcpy(prev, tid, hdr->width);
	}
	return NULL;
}

const PbtLayout pbt_layout_posting = {
	.name = "posting",
	.tag = PBT_LAYOUT_POSTING,
	.flags = PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_NO_INCLUDE | PBT_LF_REBUILT,
	.init = posting_init,
	.count = posting_count,
	.get = posting_get,
	.search = posting_search,
	.insert = posting_insert,
	.insert_ranges = posting_insert_ranges,
	.load = posting_load,
	.delete = posting_delete,
	.truncate = posting_truncate,
	.item_cost = posting_item_cost,
	.space_needed = posting_space_needed,
	.fits = posting_fits,
	.free_space = posting_free_space,
	.garbage = posting_garbage,
	.compact = posting_compact,
	.set_dead = posting_set_dead,
	.is_dead = posting_is_dead,
	.mask = posting_mask,
	.check = posting_check,
	.check_header = posting_check_header,
	.iter_start = posting_iter_start,
	.iter_next = posting_iter_next,
	.iter_tids = posting_iter_tids,
	.convert_to = POSTING_CONVERT_TO,
	.takes = posting_takes,
};
