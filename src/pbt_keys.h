/*-------------------------------------------------------------------------
 *
 * pbt_keys.h
 *	  Key state derived from the catalog, search keys, and key encoding and
 *	  comparison (pbt_keys.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_KEYS_H
#define PBT_KEYS_H

#include "postgres.h"

#include "access/itup.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/relcache.h"
#include "pbt_layout.h"

/* ----------------------------------------------------------------
 * Key state, derived from the catalog (cached in rd_amcache)
 * ----------------------------------------------------------------
 */
typedef enum PbtColKind
{
	PBT_COL_INT,				/* int2/int4/int8 family, as int64 */
	PBT_COL_INT32,				/* date */
	PBT_COL_INT64,				/* time, timestamp, timestamptz */
	PBT_COL_OID,				/* oid, unsigned 32 */
	PBT_COL_BOOL,
	PBT_COL_CHAR,				/* "char", unsigned 8 */
	PBT_COL_UUID,
	PBT_COL_TEXT,				/* text under C/POSIX collation */
	PBT_COL_BYTEA,
	PBT_COL_OTHER				/* comparator mode */
} PbtColKind;

typedef struct PbtColumn
{
	PbtColKind	kind;
	Oid			typid;			/* opclass input type */
	Oid			collation;
	bool		desc;
	bool		nulls_first;
	int8		width;			/* pbt_column_width(kind) */
	FmgrInfo	cmp;			/* support function 1, same type */
} PbtColumn;

typedef struct PbtState
{
	int			nkeyatts;
	int			natts;
	bool		normalized;
	bool		has_include;
	TupleDesc	tupdesc;		/* the index's descriptor */
	TupleDesc	keydesc;		/* key columns only (pivots) */
	TupleDesc	incdesc;		/* INCLUDE columns only (normalized payload) */
	int			fillfactor;
	/* the layouts pages get, chosen in pbt_policy.c */
	uint8		leaf_layout;	/* tag of new leaf pages */
	uint8		inner_layout;	/* ... and of new inner pages */
	uint8		rebuilt_layout; /* tag of the PBT_LF_REBUILT layout that
								 * rebuilt leaves may take, 0 = none */
	uint8		rebuilt_when;	/* PBT_REBUILT_*: when they take it */
	bool		posting;		/* rebuilt leaves of one key's entries may be
								 * posting leaves (deduplicate_items) */
	bool		adaptive;		/* heads leaves with string-like keys may
								 * become fingerprint leaves (layout = auto) */
	uint8		layout_param[PBT_MAX_LAYOUTS];	/* layout_param of pages by
												 * tag, from the reloptions */
	BlockNumber root;			/* cached, validated on use */
	uint32		rootlevel;
	BlockNumber rightmost_leaf; /* insert fast path hint */
	StringInfoData insert_item; /* pbtinsert's item (no palloc per insert) */
	/* the delta area (pbt_delta.c) */
	uint32		delta_group;	/* from the metapage, once delta_known */
	bool		delta_known;
	bool		delta_on;		/* reloption delta: inserts may append */
	int			delta_threshold;	/* bytes of a run that make it fold */
	bool		delta_fill_slot;	/* past them, a subnode's run fills its
									 * slot (by default without the
									 * resource manager) */
	uint32		group_size;		/* leaf groups: subnodes per group, from the
								 * metapage with delta_group */
	uint32		group_hint_bits;	/* bits per subnode of a group's hints in
									 * its downlink (0 to 32), likewise */
	bool		short_payloads; /* INCLUDE payloads are formed without their
								 * tuple header's TID and padding (version
								 * PBT_SHORT_PAYLOAD_VERSION), likewise */
	PbtColumn	cols[INDEX_MAX_KEYS];
} PbtState;

/*
 * A copy of st in the current memory context, without the unused entries
 * of cols[] (nothing reads past natts).
 */
static inline PbtState *
pbt_copy_state(const PbtState *st)
{
	Size		size = offsetof(PbtState, cols) + st->natts * sizeof(PbtColumn);
	PbtState   *copy = palloc(size);

	memcpy(copy, st, size);
	return copy;
}

/* PbtState.rebuilt_when */
#define PBT_REBUILT_SMALLER	1		/* where the items qualify and take fewer
									 * bytes than in leaf_layout */
#define PBT_REBUILT_ELIGIBLE 2		/* wherever the items qualify */

/*
 * A position in key order to search for.  With nextkey, the key stands for
 * "just after every string it is a prefix of" (plus infinity).
 */
typedef struct PbtSearchKey
{
	bool		nextkey;
	/* normalized mode */
	char	   *bytes;
	int			len;
	/* comparator mode */
	int			nattrs;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	FmgrInfo   *procs[INDEX_MAX_KEYS];
	bool		has_tid;
	ItemPointerData tid;
} PbtSearchKey;


/* pbt_keys.c */
extern Size pbt_form_leaf_item(PbtState *st, Datum *values, bool *isnull,
							   ItemPointer tid, StringInfo buf);
extern void pbt_item_get_tid_slow(PbtState *st, const char *item, int len,
								  ItemPointer tid);

/*
 * The heap TID of a leaf item.  In the common case, a normalized item
 * without INCLUDE columns, it is the item's last PBT_TID_BYTES, big-endian:
 * inline, since scans call this for every row.
 */
static inline void
pbt_tid_from_bytes(const char *bytes, ItemPointer tid)
{
	const unsigned char *p = (const unsigned char *) bytes;

	/* the big-endian block number is bi_hi then bi_lo */
	tid->ip_blkid.bi_hi = (uint16) (p[0] << 8 | p[1]);
	tid->ip_blkid.bi_lo = (uint16) (p[2] << 8 | p[3]);
	tid->ip_posid = (OffsetNumber) (p[4] << 8 | p[5]);
}

static inline void
pbt_item_get_tid(PbtState *st, const char *item, int len, ItemPointer tid)
{
	if (st->normalized && !st->has_include)
		pbt_tid_from_bytes(item + len - PBT_TID_BYTES, tid);
	else
		pbt_item_get_tid_slow(st, item, len, tid);
}
extern void pbt_separator(PbtState *st, PbtItem *lastleft, PbtItem *firstright,
						  StringInfo buf);
extern Datum pbt_tuple_attr(PbtState *st, const char *item, int len, int col,
							 bool *isnull);
extern int	pbt_compare(PbtState *st, PbtSearchKey *key, const char *item, int len);
extern int	pbt_compare_parts(PbtState *st, PbtSearchKey *key, const char *head,
							  int headlen, const char *tail, int len);
extern void pbt_key_from_item(PbtState *st, const char *item, int len,
							  PbtSearchKey *key);
extern bool pbt_encode_column(PbtState *st, int col, Datum value, bool isnull,
							  Oid valtype, StringInfo buf);
extern int	pbt_column_width(PbtColKind kind);
extern int	pbt_string_column_length(PbtColumn *col, const char *item,
									 int avail);
extern bool pbt_item_has_null_key(PbtState *st, const char *item, int len);
extern int	pbt_item_key_len(PbtState *st, const char *item, int len);
extern bool pbt_items_keys_equal(PbtState *st, const char *a, int alen,
								 const char *b, int blen);
extern Datum pbt_item_column(PbtState *st, const char *item, int len, int col,
							 bool *isnull);
extern void pbt_free_column(PbtState *st, int col, Datum value);
extern bool pbt_keys_fixed_width(PbtState *st);
extern bool pbt_item_fixed(PbtState *st, const char *item, int len,
						   char *tuple, const uint16 *offsets);
extern bool pbt_keys_formable(PbtState *st);
extern int	pbt_item_tuple_data(PbtState *st, const char *item, int len,
								char *data);
extern const char *pbt_leaf_item_problem(PbtState *st, const char *item, int len);
extern bool pbt_item_get_tid_checked(PbtState *st, const char *item, int len,
									 ItemPointer tid);
extern void pbt_decode_item(PbtState *st, const char *item, int len,
							Datum *values, bool *isnull);
extern bool pbt_type_normalizable(Oid typid, Oid cmpproc, Oid collation,
								  PbtColKind *kind);

/*
 * memcmp for the short strings keys are: eight bytes at a time as
 * big-endian integers, without a call into libc.
 */
static inline int
pbt_key_memcmp(const char *a, const char *b, int n)
{
	while (n >= 8)
	{
		uint64		x,
					y;

		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
		{
			x = pg_bswap64(x);
			y = pg_bswap64(y);
			return x < y ? -1 : 1;
		}
		a += 8;
		b += 8;
		n -= 8;
	}
	while (n > 0)
	{
		if (*a != *b)
			return (unsigned char) *a < (unsigned char) *b ? -1 : 1;
		a++;
		b++;
		n--;
	}
	return 0;
}

/* length of the encoded column of col that starts at p (marker included) */
static inline int
pbt_encoded_column_length(PbtColumn *col, const char *p, int avail)
{
	if ((unsigned char) p[0] != PBT_MARK_VALUE)
		return 1;
	if (col->width > 0)
		return col->width;
	return pbt_string_column_length(col, p, avail);
}

/*
 * Locate key column col inside a normalized item; returns its length and
 * sets *start to its offset.  Inline: per-entry key checks on a later
 * column call it for every entry they read.
 */
static inline int
pbt_column_span(PbtState *st, const char *item, int len, int col, int *start)
{
	int			off = 0;

	for (int i = 0;; i++)
	{
		int			n = pbt_encoded_column_length(&st->cols[i], item + off,
												  len - off);

		if (i == col)
		{
			*start = off;
			return n;
		}
		off += n;
	}
}

/*
 * Compare two encodings of the same column in value order (DESC undone),
 * for evaluating scan-key operators.  Neither may be NULL.
 */
static inline int
pbt_cmp_encoded(PbtState *st, int col, const char *a, int alen,
				const char *b, int blen)
{
	int			c = pbt_key_memcmp(a, b, Min(alen, blen));

	if (c == 0)
		c = (alen > blen) - (alen < blen);
	return st->cols[col].desc ? -c : c;
}

/* length of the longest common prefix of two byte strings, 8 bytes a step */
static inline int
pbt_common_prefix(const char *a, int alen, const char *b, int blen)
{
	int			n = Min(alen, blen);
	int			i = 0;

	for (; i + (int) sizeof(uint64) <= n; i += sizeof(uint64))
	{
		uint64		x;
		uint64		y;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
#ifdef WORDS_BIGENDIAN
			return i + (63 - pg_leftmost_one_pos64(x ^ y)) / 8;
#else
			return i + pg_rightmost_one_pos64(x ^ y) / 8;
#endif
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* inner items */
static inline BlockNumber
pbt_item_child(const char *item)
{
	BlockNumber blk;

	memcpy(&blk, item, sizeof(BlockNumber));
	return blk;
}

/*
 * Room for n more bytes at the end of buf, counted in its length (the
 * caller writes them).  Inline, unlike appendBinaryStringInfo: every scan
 * and insert encodes its key, mostly a few bytes.
 */
static inline char *
pbt_reserve_bytes(StringInfo buf, int n)
{
	char	   *p;

	if (buf->len + n >= buf->maxlen)
		enlargeStringInfo(buf, n);
	p = buf->data + buf->len;
	buf->len += n;
	buf->data[buf->len] = '\0';
	return p;
}

#endif							/* PBT_KEYS_H */
