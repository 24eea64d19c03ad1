/*-------------------------------------------------------------------------
 *
 * pbt_layout_lists.c
 *	  Lists layout: a leaf of several keys, each stored once with its heap
 *	  TIDs as a sorted list (leaves of normalized-key indexes without INCLUDE
 *	  columns; nbtree's deduplication where a page holds many keys).
 *
 * An item is key || heap TID (PBT_TID_BYTES, big-endian block and offset).
 * Items are sorted, and keys are prefix-free, so each key's entries are
 * one stretch of positions: the key directory gives each key's first
 * position and where its bytes are.  The first bytes that all the page's
 * TIDs share (the TID prefix: at most the block number's three high bytes)
 * are in the header; each TID keeps the rest, width = PBT_TID_BYTES - TID
 * prefix bytes (3 to 6):
 *
 *   PageHeader | ListsHeader | keys[nkeys] | tids[count] (width bytes each)
 *   -> pd_lower ... free ... pd_upper <- key bytes, high key | special
 *
 * A key of k bytes with d entries costs 6 + k bytes once and 3 or 4 bytes
 * per entry, where heads costs a slot (8 bytes) and the remainder per
 * entry: a foreign-key column of int8 with 20 entries a key takes about 5
 * bytes an entry, where btree's posting lists take 7 and heads 13.  The
 * dead-entry hint is the top bit of the offset number's high byte, as on
 * posting leaves.
 *
 * The engine makes lists leaves like posting ones (PBT_LF_REBUILT): a
 * split half, a leaf that would split or a bulk-built leaf becomes one
 * where that is smaller than the leaf layout (pbt_choose_leaf_layout).
 * Every insert fits in place while there is room (a new key adds a
 * directory entry, a TID that does not share the prefix widens the
 * others), so a lists page never converts; when it is full the engine
 * splits it and chooses each half's layout again.  All of it is
 * deterministic, for WAL redo, and allocates nothing: inserts run inside
 * critical sections.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"
#include "pbt_dense_util.h"
#include "pbt_tids.h"

#define LISTS_CONVERT_TO		PBT_LAYOUT_HEADS	/* never converts; the
													 * registry asks for one */

typedef struct ListsHeader
{
	uint16		count;			/* entries */
	uint16		nkeys;			/* keys, each with at least one entry */
	uint16		key_bytes;		/* the keys' bytes, all told */
	uint8		width;			/* stored bytes per TID */
	uint8		tid_prefix[PBT_TIDS_MAX_PREFIX];	/* the first
													 * PBT_TID_BYTES - width
													 * bytes of every TID */
} ListsHeader;

typedef struct ListsKey
{
	uint16		first;			/* position of the key's first entry */
	uint16		off;			/* the key's bytes */
	uint16		len;
} ListsKey;

#define LISTS_KEYS_START	(SizeOfPageHeaderData + sizeof(ListsHeader))

static inline ListsHeader *
lists_header(Page page)
{
	return (ListsHeader *) ((char *) page + SizeOfPageHeaderData);
}

static inline ListsKey *
key_dir(Page page)
{
	return (ListsKey *) ((char *) page + LISTS_KEYS_START);
}

static inline int
tids_start(const ListsHeader *hdr)
{
	return LISTS_KEYS_START + hdr->nkeys * sizeof(ListsKey);
}

static inline char *
tid_at(Page page, int pos)
{
	ListsHeader *hdr = lists_header(page);

	return (char *) page + tids_start(hdr) + pos * hdr->width;
}

static inline const char *
key_bytes(Page page, const ListsKey *key)
{
	return (const char *) page + key->off;
}

/*
 * Directory entry k, checked before its bytes are read or its first
 * position used (lists_check_header checks only the header): a damaged
 * entry costs an error, not a read past the page or a write at a wild
 * position.
 */
static inline const ListsKey *
dir_key(Page page, int k)
{
	const ListsKey *key = &key_dir(page)[k];

	if (unlikely(!pbt_in_item_space(page, key->off, key->len) ||
				 key->first >= lists_header(page)->count))
		pbt_page_damaged("has a key directory entry out of bounds");
	return key;
}

/*
 * Every directory entry checked, and the keys' bytes against the header's
 * sum and the item space: before a compaction copies them all to a page
 * buffer, inside an insert's critical section.
 */
static void
check_keys(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	int			total = 0;

	for (int k = 0; k < lists_header(page)->nkeys; k++)
		total += dir_key(page, k)->len;
	if (total != lists_header(page)->key_bytes ||
		total > phdr->pd_special - phdr->pd_upper)
		pbt_page_damaged("has keys whose bytes disagree with its header");
}

/* the position after key k's last entry */
static inline int
key_end(Page page, int k)
{
	ListsHeader *hdr = lists_header(page);

	return k + 1 < hdr->nkeys ? dir_key(page, k + 1)->first : hdr->count;
}

/* the key whose entries include position pos */
static int
key_of(Page page, int pos)
{
	ListsKey   *keys = key_dir(page);
	int			low = 0;
	int			high = lists_header(page)->nkeys - 1;

	Assert(pos >= 0 && pos < lists_header(page)->count);
	while (low < high)
	{
		int			mid = low + (high - low + 1) / 2;

		if (keys[mid].first <= pos)
			low = mid;
		else
			high = mid - 1;
	}
	return low;
}

/* does the page have the key (key, klen)?  (prefix-free: byte order) */
static bool
has_key(Page page, const char *key, int klen)
{
	int			low = 0;
	int			high = lists_header(page)->nkeys;

	while (low < high)
	{
		int			mid = low + (high - low) / 2;
		const ListsKey *mkey = dir_key(page, mid);
		int			c = pbt_bytes_cmp(key_bytes(page, mkey), mkey->len, key, klen);

		if (c == 0)
			return true;
		if (c < 0)
			low = mid + 1;
		else
			high = mid;
	}
	return false;
}

/* is key k (key, klen)? */
static inline bool
key_is(Page page, int k, const char *key, int klen)
{
	const ListsKey *dirk = dir_key(page, k);

	return dirk->len == klen && memcmp(key_bytes(page, dirk), key, klen) == 0;
}

/*
 * The key of an entry inserted at pos, found from the position instead of
 * a search: the key of the entries around pos, or a new key's index.
 * Key k is compared before key k - 1 because the search that found pos
 * checked k's directory entry, and k - 1's only where the key is not k
 * (its binary search passed over k - 1): inside the insert's critical
 * section a damaged entry must not be read.
 */
static int
key_at(Page page, int pos, const char *key, int klen, bool *found)
{
	ListsHeader *hdr = lists_header(page);
	int			k = pos < hdr->count ? key_of(page, pos) : hdr->nkeys;

	*found = true;
	if (k < hdr->nkeys && key_dir(page)[k].first < pos)
	{
		Assert(key_is(page, k, key, klen));
		return k;				/* among key k's entries */
	}
	if (k < hdr->nkeys && key_is(page, k, key, klen))
		return k;				/* before key k's first entry */
	if (k > 0 && key_is(page, k - 1, key, klen))
		return k - 1;			/* after key k - 1's last entry */
	*found = false;
	return k;					/* a new key */
}

/* the whole TID of the entry at pos, its dead hint cleared */
static inline void
tid_of(Page page, int pos, char *tid)
{
	ListsHeader *hdr = lists_header(page);
	int			shared = PBT_TID_BYTES - hdr->width;

	memcpy(tid, hdr->tid_prefix, shared);
	pbt_tids_copy(tid + shared, tid_at(page, pos), hdr->width);
}

/* the width a TID needs on this page */
static int
width_needed(Page page, const char *tid)
{
	ListsHeader *hdr = lists_header(page);

	if (hdr->count == 0)
		return PBT_TIDS_MIN_WIDTH;
	return Max(hdr->width,
			   PBT_TID_BYTES - pbt_tids_common(tid, (const char *) hdr->tid_prefix));
}

static int
lists_bytes(int nkeys, int keybytes, int width, int n)
{
	return sizeof(ListsHeader) + nkeys * sizeof(ListsKey) + keybytes + n * width;
}

static void
lists_init(Page page)
{
	memset(lists_header(page), 0, sizeof(ListsHeader));
	((PageHeader) page)->pd_lower = LISTS_KEYS_START;
}

static int
lists_count(Page page)
{
	return pbt_checked_count(lists_header(page)->count);
}

static void
lists_get(Page page, int pos, PbtItem *item, PbtItemBuf *buf)
{
	const ListsKey *key = dir_key(page, key_of(page, pos));

	pbt_check_copy(key->off, key->len, key->len + PBT_TID_BYTES);
	memcpy(buf->data, key_bytes(page, key), key->len);
	tid_of(page, pos, buf->data + key->len);
	item->data = buf->data;
	item->len = key->len + PBT_TID_BYTES;
}

static int
lists_garbage(Page page)
{
	PageHeader	phdr = (PageHeader) page;

	/* the item area less what is referenced: the keys, the high key */
	return phdr->pd_special - phdr->pd_upper -
		lists_header(page)->key_bytes - pbt_page_hikey_bytes(page);
}

static int
lists_free_space(Page page)
{
	return pbt_tids_free_space(page, lists_header(page)->count,
							   lists_garbage(page));
}

/* drop the garbage above pd_upper: rewrite the keys and the high key */
static void
lists_compact(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	ListsHeader *hdr = lists_header(page);
	ListsKey   *keys = key_dir(page);
	PbtPageOpaque opaque = PbtPageGetOpaque(page);
	PGAlignedBlock saved;
	char		hikey[PBT_MAX_ITEM_SIZE];
	int			hlen = opaque->hikey_len;
	int			used = 0;

	check_keys(page);
	for (int k = 0; k < hdr->nkeys; k++)
	{
		memcpy(saved.data + used, key_bytes(page, &keys[k]), keys[k].len);
		used += keys[k].len;
	}
	memcpy(hikey, (char *) page + opaque->hikey_off, hlen);
	phdr->pd_upper = phdr->pd_special;
	if (hlen > 0)
		pbt_page_set_hikey(page, hikey, hlen);
	used = 0;
	for (int k = 0; k < hdr->nkeys; k++)
	{
		phdr->pd_upper -= keys[k].len;
		memcpy((char *) page + phdr->pd_upper, saved.data + used, keys[k].len);
		keys[k].off = phdr->pd_upper;
		used += keys[k].len;
	}
	memset((char *) page + phdr->pd_lower, 0, phdr->pd_upper - phdr->pd_lower);
}

/*
 * Widen the stored TIDs to width bytes, in place from the last one (the
 * array grows): the bytes each gains are the last of the old TID prefix.
 */
static void
widen(Page page, int width)
{
	ListsHeader *hdr = lists_header(page);

	pbt_tids_widen((char *) page + tids_start(hdr), hdr->count, hdr->width,
				   width, (char *) hdr->tid_prefix + PBT_TID_BYTES - width);
	hdr->width = width;
	((PageHeader) page)->pd_lower = tids_start(hdr) + hdr->count * width;
}

/*
 * What inserting an entry costs, consistent with lists_free_space and
 * lists_insert (the engine inserts only when cost <= free space, and insert
 * must then succeed): its stored TID of width bytes (width_needed), the
 * growth of every TID if it widens them, and a directory entry and the
 * key's klen bytes for a new key (found: whether the page has the key).
 */
static int
insert_cost(Page page, int klen, int width, bool found)
{
	ListsHeader *hdr = lists_header(page);

	if (hdr->count >= PBT_MAX_ITEMS_PER_PAGE || klen <= 0)
		return PBT_USABLE_SPACE;
	return width + hdr->count * (width - hdr->width) +
		(found ? 0 : (int) sizeof(ListsKey) + klen);
}

static int
lists_item_cost(Page page, const char *data, int len)
{
	PageHeader	phdr = (PageHeader) page;
	int			klen = len - PBT_TID_BYTES;
	int			cost;

	if (klen <= 0)
		return PBT_USABLE_SPACE;
	cost = insert_cost(page, klen, width_needed(page, data + klen),
					   has_key(page, data, klen));
	/* the insert would compact the page: check it before its WAL record */
	if (phdr->pd_upper - phdr->pd_lower - (int) sizeof(PbtSlot) < cost)
		check_keys(page);
	return cost;
}

static bool
lists_insert(Page page, int pos, const char *data, int len)
{
	PageHeader	phdr = (PageHeader) page;
	ListsHeader *hdr = lists_header(page);
	int			klen = len - PBT_TID_BYTES;
	const char *tid = data + klen;
	bool		found = false;
	int			k = klen > 0 ? key_at(page, pos, data, klen, &found) : 0;
	int			width = width_needed(page, tid);
	int			need = insert_cost(page, klen, width, found);
	ListsKey   *keys = key_dir(page);
	char	   *t;

	Assert(pos >= 0 && pos <= hdr->count);
	if (phdr->pd_upper - phdr->pd_lower - (int) sizeof(PbtSlot) < need)
	{
		if (need > lists_free_space(page))
			return false;
		lists_compact(page);
	}
	if (hdr->count == 0)
	{
		hdr->width = width;
		memcpy(hdr->tid_prefix, tid, PBT_TID_BYTES - width);
	}
	else if (width > hdr->width)
		widen(page, width);

	if (!found)
	{
		int			off = pbt_page_alloc(page, klen);
		char	   *base = (char *) page + tids_start(hdr);

		Assert(off > 0);
		Assert(pos == (k < hdr->nkeys ? keys[k].first : hdr->count));
		memcpy((char *) page + off, data, klen);
		memmove(base + sizeof(ListsKey), base, hdr->count * hdr->width);
		memmove(&keys[k + 1], &keys[k], (hdr->nkeys - k) * sizeof(ListsKey));
		keys[k].first = pos;
		keys[k].off = off;
		keys[k].len = klen;
		hdr->nkeys++;
		hdr->key_bytes += klen;
		phdr->pd_lower += sizeof(ListsKey);
	}
	Assert(pos >= keys[k].first && pos <= key_end(page, k));
	t = tid_at(page, pos);
	memmove(t + hdr->width, t, (hdr->count - pos) * hdr->width);
	memcpy(t, tid + PBT_TID_BYTES - hdr->width, hdr->width);
	hdr->count++;
	phdr->pd_lower += hdr->width;
	for (int j = k + 1; j < hdr->nkeys; j++)
		keys[j].first++;
	return true;
}

/* the directory and TIDs that sorted items make: keys and their bytes */
static int
count_keys(const PbtItem *items, int n, int *keybytes)
{
	int			nkeys = 0;

	*keybytes = 0;
	for (int i = 0; i < n; i++)
	{
		if (i > 0 && pbt_items_same_key(items[i - 1].data, items[i - 1].len,
										items[i].data, items[i].len))
			continue;
		nkeys++;
		*keybytes += items[i].len - PBT_TID_BYTES;
	}
	return nkeys;
}

/* the width that items' TIDs get: what all of them share */
static int
width_for(const PbtItem *items, int n)
{
	const char *first = items[0].data + items[0].len - PBT_TID_BYTES;
	int			shared = PBT_TIDS_MAX_PREFIX;

	for (int i = 1; i < n && shared > 0; i++)
		shared = Min(shared, pbt_tids_common(first, items[i].data + items[i].len -
										PBT_TID_BYTES));
	return PBT_TID_BYTES - shared;
}

/* can these sorted items be entries of a lists page at all? */
static bool
items_qualify(const PbtItem *items, int n)
{
	if (n < 2 || n > PBT_MAX_ITEMS_PER_PAGE)
		return false;
	for (int i = 0; i < n; i++)
		if (items[i].len <= PBT_TID_BYTES)
			return false;
	return true;
}

/* fill the empty page (its high key, if any, already set) */
static void
lists_load(Page page, PbtItem *items, int n)
{
	PageHeader	phdr = (PageHeader) page;
	ListsHeader *hdr = lists_header(page);
	ListsKey   *keys = key_dir(page);
	int			keybytes;
	int			nkeys;
	int			width;
	int			k = 0;

	if (hdr->count != 0 || hdr->nkeys != 0)
		elog(ERROR, "pagebtree lists layout: load into a page that is not empty");
	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
		if (items[i].len <= PBT_TID_BYTES)
			elog(ERROR, "pagebtree lists layout: an item without a key");
	nkeys = count_keys(items, n, &keybytes);
	width = width_for(items, n);
	if (n > PBT_MAX_ITEMS_PER_PAGE ||
		phdr->pd_upper - keybytes - (int) sizeof(PbtSlot) <
		(int) (LISTS_KEYS_START + nkeys * sizeof(ListsKey) + n * width))
		elog(ERROR, "pagebtree lists layout: %d items do not fit", n);
	hdr->width = width;
	memcpy(hdr->tid_prefix, items[0].data + items[0].len - PBT_TID_BYTES,
		   PBT_TID_BYTES - width);
	hdr->nkeys = nkeys;
	hdr->key_bytes = keybytes;
	hdr->count = n;
	for (int i = 0; i < n; i++)
	{
		int			klen = items[i].len - PBT_TID_BYTES;

		if (i == 0 || !pbt_items_same_key(items[i - 1].data, items[i - 1].len,
										  items[i].data, items[i].len))
		{
			int			off = pbt_page_alloc(page, klen);

			memcpy((char *) page + off, items[i].data, klen);
			keys[k].first = i;
			keys[k].off = off;
			keys[k].len = klen;
			k++;
		}
		memcpy(tid_at(page, i), items[i].data + items[i].len - width, width);
	}
	Assert(k == nkeys);
	phdr->pd_lower = tids_start(hdr) + n * width;
}

/*
 * Delete entries at positions (ascending); keys left without entries leave
 * the directory, their bytes garbage.  The directory is rewritten first
 * (from the old one and the positions), then the TIDs move down to where
 * the shorter directory ends.
 */
static void
lists_delete(Page page, const int *positions, int n)
{
	ListsHeader *hdr = lists_header(page);
	ListsKey   *keys = key_dir(page);
	char	   *old_base = (char *) page + tids_start(hdr);
	char	   *new_base;
	int			nkeys = 0;
	int			gone_before = 0;
	int			d = 0;
	int			dst = 0;

	for (int k = 0; k < hdr->nkeys; k++)
	{
		int			first = keys[k].first;
		int			end = key_end(page, k);
		int			gone = 0;

		while (d < n && positions[d] < end)
		{
			gone++;
			d++;
		}
		if (gone < end - first)
		{
			ListsKey	key = keys[k];

			key.first = first - gone_before;
			keys[nkeys++] = key;
		}
		else
			hdr->key_bytes -= keys[k].len;
		gone_before += gone;
	}
	Assert(d == n);
	new_base = (char *) page + LISTS_KEYS_START + nkeys * sizeof(ListsKey);
	d = 0;
	for (int src = 0; src < hdr->count; src++)
	{
		if (d < n && positions[d] == src)
		{
			d++;
			continue;
		}
		memmove(new_base + dst++ * hdr->width, old_base + src * hdr->width,
				hdr->width);
	}
	hdr->count = dst;
	hdr->nkeys = nkeys;
	((PageHeader) page)->pd_lower = tids_start(hdr) + dst * hdr->width;
}

/* keep only the first n entries (split) */
static void
lists_truncate(Page page, int n)
{
	ListsHeader *hdr = lists_header(page);
	char	   *old_base = (char *) page + tids_start(hdr);
	int			nkeys = n > 0 ? key_of(page, n - 1) + 1 : 0;

	Assert(n <= hdr->count);
	for (int k = nkeys; k < hdr->nkeys; k++)
		hdr->key_bytes -= key_dir(page)[k].len;
	hdr->nkeys = nkeys;
	memmove((char *) page + tids_start(hdr), old_base, n * hdr->width);
	hdr->count = n;
	((PageHeader) page)->pd_lower = tids_start(hdr) + n * hdr->width;
}

/*
 * Would a lists page loaded with exactly these sorted items and high key
 * (NULL: none) hold them?  They qualify where keys repeat, at least two
 * entries a key on average: a few distinct keys (the right half of an
 * appending split) would take fewer bytes than on a heads page, whose
 * header has the hints, but keep the layout as more distinct keys arrive.
 * The policy takes the layout only where it is the smaller.
 */
static bool
lists_fits(PbtItem *items, int n, PbtItem *hikey, int *bytes)
{
	int			keybytes;
	int			nkeys;
	int			need;

	if (!items_qualify(items, n))
		return false;
	nkeys = count_keys(items, n, &keybytes);
	if (nkeys * 2 > n)
		return false;
	need = lists_bytes(nkeys, keybytes, width_for(items, n), n);
	if (bytes)
		*bytes = need;
	/* pbt_page_alloc keeps a slot's bytes free */
	return need + (hikey ? hikey->len : 0) + (int) sizeof(PbtSlot) <=
		(int) PBT_USABLE_SPACE;
}

static int
lists_space_needed(const PbtItem *items, int n, int downlink)
{
	return window_space_needed(items, n, downlink, lists_fits,
							   window_target(LISTS_CONVERT_TO));
}

/* the build fills a lists page while it has room (the engine asks item_cost) */
static bool
lists_takes(Page page, const char *data, int len)
{
	return lists_header(page)->count < PBT_MAX_ITEMS_PER_PAGE &&
		len > PBT_TID_BYTES;
}

/*
 * Byte order of (rest, rlen), the search key's bytes after an entry's key,
 * and the entry's TID, as pbt_compare has it
 */
static int
tid_cmp(const char *rest, int rlen, const char *tid, bool nextkey)
{
	int			c = memcmp(rest, tid, Min(rlen, PBT_TID_BYTES));

	if (c != 0)
		return c;
	if (nextkey)
		return 1;
	return (rlen > PBT_TID_BYTES) - (rlen < PBT_TID_BYTES);
}

/*
 * The first position whose item is >= key (> with nextkey).  A key's
 * entries compare alike with the search key unless the search key reaches
 * past the key's bytes (into the TID): find the first key that does not
 * sort wholly below the search key, then, if the search key reaches into
 * its TIDs, the TID.
 */
static int
lists_search(PbtState *st, Page page, PbtSearchKey *key)
{
	ListsHeader *hdr = lists_header(page);
	ListsKey   *keys = key_dir(page);
	int			low = 0;
	int			high = hdr->nkeys;
	int			k;

	Assert(st->normalized);
	while (low < high)
	{
		int			mid = low + (high - low) / 2;
		int			klen = dir_key(page, mid)->len;
		int			c = memcmp(key->bytes, key_bytes(page, &keys[mid]),
							   Min(key->len, klen));

		/* c > 0: every entry of the key is below the search key */
		if (c > 0 || (c == 0 && (key->len > klen || key->nextkey)))
		{
			if (c == 0 && key->len > klen)
			{
				/* the search key reaches into this key's TIDs */
				low = mid;
				break;
			}
			low = mid + 1;
		}
		else
			high = mid;
	}
	if (low >= hdr->nkeys)
		return hdr->count;
	k = low;
	(void) dir_key(page, k);
	if (key->len <= keys[k].len ||
		memcmp(key->bytes, key_bytes(page, &keys[k]), keys[k].len) != 0)
		return keys[k].first;

	/* within key k's entries, by TID */
	low = keys[k].first;
	high = key_end(page, k);
	while (low < high)
	{
		int			mid = low + (high - low) / 2;
		char		tid[PBT_TID_BYTES];

		tid_of(page, mid, tid);
		if (tid_cmp(key->bytes + keys[k].len, key->len - keys[k].len, tid,
					key->nextkey) > 0)
			low = mid + 1;
		else
			high = mid;
	}
	return low;
}

static void
lists_set_dead(Page page, int pos)
{
	pbt_tids_set_dead(tid_at(page, pos), lists_header(page)->width);
}

static bool
lists_is_dead(Page page, int pos)
{
	return pbt_tids_is_dead(tid_at(page, pos), lists_header(page)->width);
}

static void
lists_mask(Page page)
{
	ListsHeader *hdr = lists_header(page);

	pbt_tids_clear_dead(tid_at(page, 0), hdr->count, hdr->width);
}

/*
 * Iteration: the key is copied into the item buffer when the iteration
 * enters its entries, and each entry writes its whole TID after it in one
 * 8-byte store, as on posting leaves.
 */
typedef struct ListsIterState
{
	int			key;			/* the key in it->buf, -1 if none */
	int			first;			/* its entries: [first, end) */
	int			end;
	int			key_len;
	uint64		tid_prefix;		/* the shared TID bytes in place in a word */
} ListsIterState;

static void
lists_iter_start(PbtIter *it)
{
	ListsIterState *state = (ListsIterState *) it->state.data;
	ListsHeader *hdr = lists_header(it->page);

	StaticAssertStmt(sizeof(ListsIterState) <= PBT_ITER_STATE_SIZE, "no room");
	state->key = -1;
	state->first = state->end = 0;
	state->tid_prefix = 0;
	memcpy(&state->tid_prefix, hdr->tid_prefix, PBT_TID_BYTES - hdr->width);
}

static void
lists_iter_next(PbtIter *it, PbtItem *item)
{
	ListsIterState *state = (ListsIterState *) it->state.data;
	uint64		word;

	it->pos += it->step;
	if (it->pos < state->first || it->pos >= state->end)
	{
		const ListsKey *key;

		state->key = key_of(it->page, it->pos);
		key = dir_key(it->page, state->key);
		state->first = key->first;
		state->end = key_end(it->page, state->key);
		state->key_len = key->len;
		pbt_check_copy(key->off, key->len, key->len + PBT_TID_BYTES);
		memcpy(it->buf.data, key_bytes(it->page, key), key->len);
	}
	word = pbt_tids_load(tid_at(it->page, it->pos),
						 lists_header(it->page)->width, state->tid_prefix,
						 &it->dead);
	StaticAssertStmt(sizeof(it->buf.data) >= PBT_MAX_ITEM_SIZE + sizeof(word),
					 "no slack for the TID store");
	memcpy(it->buf.data + state->key_len, &word, sizeof(word));
	item->data = it->buf.data;
	item->len = state->key_len + PBT_TID_BYTES;
}

static void
lists_iter_tids(PbtIter *it, int n, ItemPointerData *tids, bool *dead)
{
	ListsIterState *state = (ListsIterState *) it->state.data;
	int			width = lists_header(it->page)->width;

	Assert(n >= 0 && n <= (it->stop - it->pos) * it->step - 1);
	pbt_tids_decode(tid_at(it->page, it->pos), it->step * width, n, width,
					state->tid_prefix, tids, dead);
	it->pos += n * it->step;
}

static int
lists_iter_key_run(PbtIter *it)
{
	ListsIterState *state = (ListsIterState *) it->state.data;

	Assert(it->pos >= state->first && it->pos < state->end);
	return it->step > 0 ? state->end - 1 - it->pos : it->pos - state->first;
}

static const char *
lists_check_header(Page page)
{
	PageHeader	phdr = (PageHeader) page;
	ListsHeader *hdr = lists_header(page);

	if (hdr->count == 0)
		return hdr->nkeys == 0 && hdr->key_bytes == 0 ? NULL :
			"lists page has keys but no entries";
	if (hdr->width < PBT_TIDS_MIN_WIDTH || hdr->width > PBT_TID_BYTES)
		return "lists TID width out of range";
	if (hdr->count > PBT_MAX_ITEMS_PER_PAGE || hdr->nkeys == 0 ||
		hdr->nkeys > hdr->count ||
		tids_start(hdr) + hdr->count * hdr->width > phdr->pd_upper ||
		phdr->pd_lower != tids_start(hdr) + hdr->count * hdr->width)
		return "lists entry or key count disagrees with pd_lower";
	return NULL;
}

static const char *
lists_check(Page page)
{
	ListsHeader *hdr = lists_header(page);
	ListsKey   *keys = key_dir(page);
	int			total = 0;
	char		tid[2][PBT_TID_BYTES];	/* entry i's and i - 1's */
	const char *problem = lists_check_header(page);

	if (problem || hdr->count == 0)
		return problem;
	for (int k = 0; k < hdr->nkeys; k++)
	{
		if (keys[k].len == 0 ||
			!pbt_in_item_space(page, keys[k].off, keys[k].len))
			return "lists key out of bounds";
		total += keys[k].len;
		if ((k == 0 && keys[k].first != 0) ||
			(k > 0 && keys[k].first <= keys[k - 1].first) ||
			keys[k].first >= hdr->count)
			return "lists key's first entry out of order";
		if (k > 0 &&
			pbt_bytes_cmp(key_bytes(page, &keys[k - 1]), keys[k - 1].len,
						  key_bytes(page, &keys[k]), keys[k].len) >= 0)
			return "lists keys out of order";
	}
	if (total != hdr->key_bytes)
		return "lists key bytes disagree with the directory";
	/* (each key's entries end where the next key's, checked, begin) */
	for (int k = 0, i = 0; i < hdr->count; i++)
	{
		tid_of(page, i, tid[i % 2]);
		if (k + 1 < hdr->nkeys && i == keys[k + 1].first)
			k++;
		else if (i > 0 && memcmp(tid[(i - 1) % 2], tid[i % 2], PBT_TID_BYTES) >= 0)
			return "lists TIDs out of order";
	}
	return NULL;
}

const PbtLayout pbt_layout_lists = {
	.name = "lists",
	.tag = PBT_LAYOUT_LISTS,
	.flags = PBT_LF_LEAF | PBT_LF_NORMALIZED | PBT_LF_NO_INCLUDE | PBT_LF_REBUILT,
	.init = lists_init,
	.count = lists_count,
	.get = lists_get,
	.search = lists_search,
	.insert = lists_insert,
	.load = lists_load,
	.delete = lists_delete,
	.truncate = lists_truncate,
	.item_cost = lists_item_cost,
	.space_needed = lists_space_needed,
	.fits = lists_fits,
	.free_space = lists_free_space,
	.garbage = lists_garbage,
	.compact = lists_compact,
	.set_dead = lists_set_dead,
	.is_dead = lists_is_dead,
	.mask = lists_mask,
	.check = lists_check,
	.check_header = lists_check_header,
	.iter_start = lists_iter_start,
	.iter_next = lists_iter_next,
	.iter_tids = lists_iter_tids,
	.iter_key_run = lists_iter_key_run,
	.convert_to = LISTS_CONVERT_TO,
	.takes = lists_takes,
};
