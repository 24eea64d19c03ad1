/*-------------------------------------------------------------------------
 *
 * pbt_keys.c
 *	  Key encoding and comparison.
 *
 * Normalized mode: a leaf item is the concatenation of each key column's
 * order-preserving encoding, then the heap TID (block and offset, big
 * endian), then, if the index has INCLUDE columns, their payload and its
 * length.  Every column encoding is prefix-free, so the whole item compares
 * with memcmp in index order, the heap TID breaks ties, and a search key made
 * of the first columns' encodings finds its range with memcmp too.
 *
 * Column encoding: a marker byte (0x00 NULLS FIRST null, 0x01 value, 0x02
 * NULLS LAST null), then for values the type's big-endian, sign-flipped
 * image, every byte inverted for DESC columns.
 *
 * Comparator mode: items are IndexTuples (t_tid = heap TID) and comparisons
 * go through the opclass's support function 1, as in nbtree.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

#include "access/detoast.h"
#include "port/pg_bswap.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/syscache.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/pg_locale.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#define MARK_NULL_FIRST	0x00
#define MARK_VALUE		PBT_MARK_VALUE
#define MARK_NULL_LAST	0x02

#define TID_BYTES		PBT_TID_BYTES

/*
 * Does the locale order these strings as strcmp does?  Pairs across every
 * UTF-8 sequence length, cases, punctuation, combining marks and prefixes.
 */
static bool
locale_orders_by_bytes(const char *name)
{
	static const char *const samples[] = {
		"", "a", "a ", "aa", "A", "Z", "z", "0", "9", "-", "_", "~", " ",
		"e\xcc\x81", "\xc3\xa9", "\xc3\x9f", "ss", "\xc4\xb0", "i",
		"\xe2\x82\xac", "\xef\xbf\xbd", "\xef\xbc\xa1",
		"\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf", "\xe4\xb8\x80", "\xc2\xa0"
	};
	locale_t	loc = newlocale(LC_COLLATE_MASK, name, (locale_t) 0);
	bool		same = loc != (locale_t) 0;

	for (int i = 0; same && i < lengthof(samples); i++)
		for (int j = 0; same && j < lengthof(samples); j++)
		{
			int			c = strcoll_l(samples[i], samples[j], loc);
			int			b = strcmp(samples[i], samples[j]);

			same = (c > 0) == (b > 0) && (c < 0) == (b < 0);
		}
	if (loc != (locale_t) 0)
		freelocale(loc);
	return same;
}

/*
 * A libc collation C.UTF-8 in a UTF-8 database orders by code point (glibc
 * 2.35 on), which is UTF-8's byte order: text keys there are normalized as
 * under "C".  Checked once per backend on this server's locale, not
 * assumed.  (17 and 18 also have the builtin provider's C.UTF-8, whose
 * locale object says collate_is_c.)
 */
static bool
collation_is_codepoint(Oid collation)
{
	static int	codepoint = -1;
	HeapTuple	tp;
	char		provider;
	char	   *name;
	bool		isnull;
	Datum		d;

	if (GetDatabaseEncoding() != PG_UTF8)
		return false;
	if (collation == DEFAULT_COLLATION_OID)
	{
		tp = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
		if (!HeapTupleIsValid(tp))
			return false;
		provider = ((Form_pg_database) GETSTRUCT(tp))->datlocprovider;
		d = SysCacheGetAttr(DATABASEOID, tp, Anum_pg_database_datcollate, &isnull);
	}
	else
	{
		tp = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));
		if (!HeapTupleIsValid(tp))
			return false;
		provider = ((Form_pg_collation) GETSTRUCT(tp))->collprovider;
		d = SysCacheGetAttr(COLLOID, tp, Anum_pg_collation_collcollate, &isnull);
	}
	name = isnull ? NULL : TextDatumGetCString(d);
	ReleaseSysCache(tp);
	if (provider != COLLPROVIDER_LIBC || name == NULL ||
		(pg_strcasecmp(name, "C.UTF-8") != 0 && pg_strcasecmp(name, "C.utf8") != 0))
		return false;
	if (codepoint < 0)
		codepoint = locale_orders_by_bytes(name);
	return codepoint;
}

/*
 * Which types get normalized keys: decided by the opclass's comparison
 * function and input type together, so that a user-defined opclass with a
 * different order for the same type, or a built-in comparison function
 * declared for another type, falls back to comparator mode.
 */
bool
pbt_type_normalizable(Oid typid, Oid cmpproc, Oid collation, PbtColKind *kind)
{
	switch (cmpproc)
	{
		case F_BTINT2CMP:
			*kind = PBT_COL_INT;
			return typid == INT2OID;
		case F_BTINT4CMP:
			*kind = PBT_COL_INT;
			return typid == INT4OID;
		case F_BTINT8CMP:
			*kind = PBT_COL_INT;
			return typid == INT8OID;
		case F_DATE_CMP:
			*kind = PBT_COL_INT32;
			return typid == DATEOID;
		case F_TIME_CMP:
			*kind = PBT_COL_INT64;
			return typid == TIMEOID;
		case F_TIMESTAMP_CMP:
			*kind = PBT_COL_INT64;
			return typid == TIMESTAMPOID;
		case F_TIMESTAMPTZ_CMP:
			*kind = PBT_COL_INT64;
			return typid == TIMESTAMPTZOID;
		case F_BTOIDCMP:
			*kind = PBT_COL_OID;
			return typid == OIDOID;
		case F_BTBOOLCMP:
			*kind = PBT_COL_BOOL;
			return typid == BOOLOID;
		case F_BTCHARCMP:
			*kind = PBT_COL_CHAR;
			return typid == CHAROID;
		case F_UUID_CMP:
			*kind = PBT_COL_UUID;
			return typid == UUIDOID;
		case F_BYTEACMP:
			*kind = PBT_COL_BYTEA;
			return typid == BYTEAOID;
		case F_BTTEXTCMP:
			/* only byte order is safe to store; libc/ICU orders can change */
			*kind = PBT_COL_TEXT;
			return (typid == TEXTOID || typid == VARCHAROID) &&
				OidIsValid(collation) &&
				(pbt_collation_is_c(collation) || collation_is_codepoint(collation));
		case F_BTNAMECMP:
			/* varstr_cmp of the characters, as text's (btnamecmp) */
			*kind = PBT_COL_TEXT;
			return typid == NAMEOID && OidIsValid(collation) &&
				(pbt_collation_is_c(collation) || collation_is_codepoint(collation));
		case F_BTTEXT_PATTERN_CMP:
			/* byte order whatever the collation */
			*kind = PBT_COL_TEXT;
			return typid == TEXTOID;
		default:
			*kind = PBT_COL_OTHER;
			return false;
	}
}

/* a value marker and v, big-endian */
static inline void
append_be64(StringInfo buf, uint64 v)
{
	char	   *p = pbt_reserve_bytes(buf, 1 + 8);
	uint64		be = pg_hton64(v);

	p[0] = MARK_VALUE;
	memcpy(p + 1, &be, 8);
}

static inline void
append_be32(StringInfo buf, uint32 v)
{
	char	   *p = pbt_reserve_bytes(buf, 1 + 4);
	uint32		be = pg_hton32(v);

	p[0] = MARK_VALUE;
	memcpy(p + 1, &be, 4);
}

/* (one load and a byte swap: decoding runs per row of index-only scans) */
static inline uint64
read_be64(const unsigned char *p)
{
	uint64		v;

	memcpy(&v, p, sizeof(v));
	return pg_ntoh64(v);
}

static inline uint32
read_be32(const unsigned char *p)
{
	uint32		v;

	memcpy(&v, p, sizeof(v));
	return pg_ntoh32(v);
}

/*
 * Get an integer-like value of the given type as int64, or false if the
 * type cannot be mapped exactly into the column's domain.
 */
static bool
value_as_int64(PbtColumn *col, Datum value, Oid valtype, int64 *out)
{
	switch (col->kind)
	{
		case PBT_COL_INT:
			if (valtype == INT2OID)
				*out = DatumGetInt16(value);
			else if (valtype == INT4OID)
				*out = DatumGetInt32(value);
			else if (valtype == INT8OID)
				*out = DatumGetInt64(value);
			else
				return false;
			return true;
		case PBT_COL_INT64:
			if (valtype == DATEOID &&
				(col->typid == TIMESTAMPOID || col->typid == TIMESTAMPTZOID))
			{
				/*
				 * The cross-type operators compare the date converted to the
				 * column's type (in the session time zone for timestamptz);
				 * a date out of range sorts between the finite values and
				 * infinity.
				 */
				int			overflow;

				*out = col->typid == TIMESTAMPOID ?
					date2timestamp_opt_overflow(DatumGetDateADT(value), &overflow) :
					date2timestamptz_opt_overflow(DatumGetDateADT(value), &overflow);
				if (overflow > 0)
					*out = DT_NOEND - 1;
				else if (overflow < 0)
					*out = DT_NOBEGIN + 1;
				return true;
			}
			if (valtype != col->typid)
				return false;
			*out = DatumGetInt64(value);
			return true;
		default:
			return false;
	}
}

/*
 * Append the encoding of one key column value to buf.  valtype is the
 * value's type (for cross-type search keys); returns false, appending
 * nothing, if the value cannot be encoded exactly in the column's domain.
 */
bool
pbt_encode_column(PbtState *st, int colno, Datum value, bool isnull,
				  Oid valtype, StringInfo buf)
{
	PbtColumn  *col = &st->cols[colno];
	int			start;

	if (!OidIsValid(valtype))
		valtype = col->typid;

	if (isnull)
	{
		appendStringInfoChar(buf, col->nulls_first ? MARK_NULL_FIRST : MARK_NULL_LAST);
		return true;
	}

	start = buf->len + 1;
	switch (col->kind)
	{
		case PBT_COL_INT:
		case PBT_COL_INT64:
			{
				int64		v;

				if (!value_as_int64(col, value, valtype, &v))
					return false;
				append_be64(buf, ((uint64) v) ^ UINT64CONST(0x8000000000000000));
				break;
			}
		case PBT_COL_INT32:
			if (valtype != DATEOID)
				return false;
			append_be32(buf, ((uint32) DatumGetDateADT(value)) ^ 0x80000000);
			break;
		case PBT_COL_OID:
			if (valtype != OIDOID)
				return false;
			append_be32(buf, DatumGetObjectId(value));
			break;
		case PBT_COL_BOOL:
			if (valtype != BOOLOID)
				return false;
			appendStringInfoChar(buf, MARK_VALUE);
			appendStringInfoChar(buf, DatumGetBool(value) ? 1 : 0);
			break;
		case PBT_COL_CHAR:
			if (valtype != CHAROID)
				return false;
			appendStringInfoChar(buf, MARK_VALUE);
			appendStringInfoChar(buf, DatumGetChar(value));
			break;
		case PBT_COL_UUID:
			if (valtype != UUIDOID)
				return false;
			appendStringInfoChar(buf, MARK_VALUE);
			appendBinaryStringInfo(buf, (char *) DatumGetUUIDP(value)->data,
								   UUID_LEN);
			break;
		case PBT_COL_TEXT:
			{
				struct varlena *v = NULL;
				const char *data;
				char	   *p;
				int			n;

				if (valtype == NAMEOID)
				{
					/* a name orders as the text of its characters */
					data = NameStr(*DatumGetName(value));
					n = strnlen(data, NAMEDATALEN);
				}
				else if (valtype == TEXTOID || valtype == VARCHAROID)
				{
					v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
					data = VARDATA_ANY(v);
					n = VARSIZE_ANY_EXHDR(v);
				}
				else
					return false;
				p = pbt_reserve_bytes(buf, 1 + n + 1);
				p[0] = MARK_VALUE;
				/* text never contains NUL, so NUL terminates it */
				memcpy(p + 1, data, n);
				p[1 + n] = '\0';
				if (v && (Pointer) v != DatumGetPointer(value))
					pfree(v);
				break;
			}
		case PBT_COL_BYTEA:
			{
				struct varlena *v;
				const char *p;
				int			n;

				if (valtype != BYTEAOID)
					return false;
				v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
				appendStringInfoChar(buf, MARK_VALUE);
				p = VARDATA_ANY(v);
				n = VARSIZE_ANY_EXHDR(v);
				/* escape NUL as 00 FF; terminate with 00 00 */
				for (int i = 0; i < n; i++)
				{
					appendStringInfoChar(buf, p[i]);
					if (p[i] == '\0')
						appendStringInfoChar(buf, (char) 0xFF);
				}
				appendStringInfoChar(buf, '\0');
				appendStringInfoChar(buf, '\0');
				if ((Pointer) v != DatumGetPointer(value))
					pfree(v);
				break;
			}
		case PBT_COL_OTHER:
			elog(ERROR, "column %d of a pagebtree index has no normalized form", colno + 1);
	}

	if (col->desc)
	{
		for (int i = start; i < buf->len; i++)
			buf->data[i] = ~buf->data[i];
	}
	return true;
}

/*
 * Encoded bytes of a non-NULL value of a column of this kind, marker
 * included, when every value takes the same; 0 for strings.
 */
int
pbt_column_width(PbtColKind kind)
{
	switch (kind)
	{
		case PBT_COL_INT:
		case PBT_COL_INT64:
			return 1 + 8;
		case PBT_COL_INT32:
		case PBT_COL_OID:
			return 1 + 4;
		case PBT_COL_BOOL:
		case PBT_COL_CHAR:
			return 1 + 1;
		case PBT_COL_UUID:
			return 1 + UUID_LEN;
		case PBT_COL_TEXT:
		case PBT_COL_BYTEA:
		case PBT_COL_OTHER:
			break;
	}
	return 0;
}

/*
 * Length of the encoded string value (marker included) that starts at p,
 * or -1 if its terminator is not within avail bytes.
 */
static int
string_column_end(PbtColumn *col, const char *item, int avail)
{
	const unsigned char *p = (const unsigned char *) item;
	unsigned char flip = col->desc ? 0xFF : 0x00;

	Assert(p[0] == MARK_VALUE && col->width == 0);
	if (col->kind == PBT_COL_TEXT)
	{
		const unsigned char *end = memchr(p + 1, flip, avail - 1);

		return end == NULL ? -1 : (end - p) + 1;
	}
	Assert(col->kind == PBT_COL_BYTEA);
	for (int i = 1; i + 1 < avail; i++)
	{
		if ((p[i] ^ flip) == 0)
		{
			if ((p[i + 1] ^ flip) == 0)
				return i + 2;
			i++;				/* escaped NUL */
		}
	}
	return -1;
}

/* string_column_end of a value that must end there, for pbt_column_span */
int
pbt_string_column_length(PbtColumn *col, const char *item, int avail)
{
	int			n = string_column_end(col, item, avail);

	if (n < 0)
		elog(ERROR, "unterminated %s key in pagebtree item",
			 col->kind == PBT_COL_TEXT ? "text" : "bytea");
	return n;
}

/*
 * Where a normalized item's key columns end, or -1 if they do not end
 * within its first avail bytes (the verifier: a damaged length or
 * terminator).
 */
static int
keys_end_within(PbtState *st, const char *item, int avail)
{
	int			off = 0;

	for (int i = 0; i < st->nkeyatts; i++)
	{
		PbtColumn  *col = &st->cols[i];
		int			n;

		if (off >= avail)
			return -1;
		if ((unsigned char) item[off] != PBT_MARK_VALUE)
			n = 1;
		else if (col->width > 0)
			n = col->width <= avail - off ? col->width : -1;
		else
			n = string_column_end(col, item + off, avail - off);
		if (n < 0)
			return -1;
		off += n;
	}
	return off;
}

static void
append_tid(StringInfo buf, ItemPointer tid)
{
	char	   *b = pbt_reserve_bytes(buf, TID_BYTES);
	BlockNumber blk = ItemPointerGetBlockNumberNoCheck(tid);
	OffsetNumber off = ItemPointerGetOffsetNumberNoCheck(tid);

	b[0] = (char) (blk >> 24);
	b[1] = (char) (blk >> 16);
	b[2] = (char) (blk >> 8);
	b[3] = (char) blk;
	b[4] = (char) (off >> 8);
	b[5] = (char) off;
}

/* where the key + TID part of a normalized leaf item ends */
static inline int
normalized_keytid_len(PbtState *st, const char *item, int len)
{
	if (st->has_include)
	{
		uint16		plen;

		memcpy(&plen, item + len - sizeof(uint16), sizeof(uint16));
		return len - sizeof(uint16) - plen;
	}
	return len;
}

/*
 * An INCLUDE payload is the IndexTuple that index_form_tuple() forms over
 * the INCLUDE columns, stored without the padding to MAXALIGN at its end.
 * In indexes of format PBT_SHORT_PAYLOAD_VERSION (st->short_payloads) it
 * is stored without what no reader needs either: the TID, never set, and
 * the padding before the values; only t_info (the tuple's size and flags),
 * the null bitmap if there is one, and the values.  Readers tell the forms
 * apart by the first two bytes, zeros only where the TID is stored.
 */
#define PAYLOAD_TID_BYTES	offsetof(IndexTupleData, t_info)

/* bytes of a short payload before its values: t_info and the null bitmap */
static inline int
short_payload_head(unsigned short t_info)
{
	return sizeof(t_info) +
		((t_info & INDEX_NULL_MASK) ? sizeof(IndexAttributeBitMapData) : 0);
}

/*
 * The bytes of a tuple that index_form_tuple() just formed, without the
 * padding to MAXALIGN at its end, and at least its header (readers copy
 * a payload to aligned memory, and decode what IndexTupleSize bounds, so
 * libraries that store the padding read these too).
 */
static Size
tuple_size_unpadded(TupleDesc desc, IndexTuple itup)
{
	Size		hoff = IndexInfoFindDataOffset(itup->t_info);
	char	   *tp = (char *) itup + hoff;
	bits8	   *bp = (bits8 *) ((char *) itup + sizeof(IndexTupleData));
	Size		off = 0;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (IndexTupleHasNulls(itup) && att_isnull(i, bp))
			continue;
		off = att_align_pointer(off, att->attalign, att->attlen, tp + off);
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
	Assert(hoff + off <= IndexTupleSize(itup));
	return hoff + off;
}

/*
 * Form the leaf item for an index entry into buf (reset first).  Returns its
 * length.  In comparator mode the item is a MAXALIGNed IndexTuple.
 */
Size
pbt_form_leaf_item(PbtState *st, Datum *values, bool *isnull,
				   ItemPointer tid, StringInfo buf)
{
	resetStringInfo(buf);
	if (!st->normalized)
	{
		IndexTuple	itup = index_form_tuple(st->tupdesc, values, isnull);
		Size		sz = IndexTupleSize(itup);

		itup->t_tid = *tid;
		appendBinaryStringInfo(buf, (char *) itup, sz);
		pfree(itup);
		return sz;
	}

	/* (the column's own type always encodes: pbt_type_normalizable) */
	for (int i = 0; i < st->nkeyatts; i++)
		if (!pbt_encode_column(st, i, values[i], isnull[i], InvalidOid, buf))
			elog(ERROR, "pagebtree: could not encode a value of key column %d", i + 1);
	append_tid(buf, tid);

	if (st->has_include)
	{
		IndexTuple	itup = index_form_tuple(st->incdesc, values + st->nkeyatts,
											isnull + st->nkeyatts);
		Size		size = tuple_size_unpadded(st->incdesc, itup);
		Size		hoff = IndexInfoFindDataOffset(itup->t_info);
		uint16		plen = size;

		Assert(ItemPointerGetBlockNumberNoCheck(&itup->t_tid) == 0);
		itup->t_info = (itup->t_info & ~INDEX_SIZE_MASK) | size;
		if (st->short_payloads)
		{
			int			head = short_payload_head(itup->t_info);

			/* t_info and the bitmap are contiguous, after the TID */
			appendBinaryStringInfo(buf, (char *) &itup->t_info, head);
			appendBinaryStringInfo(buf, (char *) itup + hoff, size - hoff);
			plen = head + (size - hoff);
		}
		else
			appendBinaryStringInfo(buf, (char *) itup, size);
		appendBinaryStringInfo(buf, (char *) &plen, sizeof(plen));
		pfree(itup);
	}
	return buf->len;
}

/* pbt_item_get_tid for comparator mode and items with INCLUDE columns */
void
pbt_item_get_tid_slow(PbtState *st, const char *item, int len, ItemPointer tid)
{
	const unsigned char *p;

	if (!st->normalized)
	{
		*tid = ((IndexTuple) item)->t_tid;
		return;
	}
	p = (const unsigned char *) item + normalized_keytid_len(st, item, len) - TID_BYTES;
	ItemPointerSet(tid, read_be32(p), ((OffsetNumber) p[4] << 8) | p[5]);
}

/*
 * Build a pivot key that separates lastleft from firstright:
 * lastleft < separator <= firstright.  Normalized mode keeps the shortest
 * prefix of firstright that is greater than lastleft (suffix truncation);
 * comparator mode keeps firstright's key columns and heap TID.
 */
void
pbt_separator(PbtState *st, PbtItem *lastleft, PbtItem *firstright,
			  StringInfo buf)
{
	resetStringInfo(buf);
	if (st->normalized)
	{
		int			d = pbt_common_prefix(lastleft->data, lastleft->len,
										  firstright->data, firstright->len);

		if (d >= firstright->len)
			elog(ERROR, "pagebtree items out of order at split");
		appendBinaryStringInfo(buf, firstright->data, d + 1);
	}
	else
	{
		IndexTuple	pivot = index_truncate_tuple(st->tupdesc,
												 (IndexTuple) firstright->data,
												 st->nkeyatts);

		appendBinaryStringInfo(buf, (char *) pivot, IndexTupleSize(pivot));
		pfree(pivot);
	}
}

/* comparator mode: compare search key column with a stored value */
static inline int
compare_column(PbtState *st, PbtSearchKey *key, int i, Datum stored,
			   bool stored_null)
{
	PbtColumn  *col = &st->cols[i];
	int32		c;

	if (key->isnull[i])
	{
		if (stored_null)
			return 0;
		return col->nulls_first ? -1 : 1;
	}
	if (stored_null)
		return col->nulls_first ? 1 : -1;

	c = DatumGetInt32(FunctionCall2Coll(key->procs[i], col->collation,
										stored, key->values[i]));
	/* c orders stored against key; we want key against stored */
	if (!col->desc)
		INVERT_COMPARE_RESULT(c);
	return c;
}

/*
 * Column col (from 0) of an item in comparator mode, an IndexTuple of len
 * bytes read from a page: a varlena whose header claims more than the
 * tuple holds is an error, before a comparator or a scan key reads past
 * the page.  (Fixed-width values lie at offsets the tuple descriptor
 * fixes; deform_bounded checks every length, for index-only scans.)
 */
Datum
pbt_tuple_attr(PbtState *st, const char *item, int len, int col, bool *isnull)
{
	IndexTuple	itup = (IndexTuple) item;
	Datum		d;

	Assert(!st->normalized);
	if (unlikely(IndexTupleSize(itup) > len))
		pbt_bytes_out_of_bounds();
	d = index_getattr(itup, col + 1, st->tupdesc, isnull);
	if (!*isnull && TupleDescAttr(st->tupdesc, col)->attlen == -1)
	{
		const char *p = DatumGetPointer(d);
		const char *end = item + IndexTupleSize(itup);

		if (unlikely(p < item || p >= end || VARATT_IS_EXTERNAL(p) ||
					 (!VARATT_IS_1B(p) && p + VARHDRSZ > end) ||
					 p + VARSIZE_ANY(p) > end))
			pbt_bytes_out_of_bounds();
	}
	return d;
}

/*
 * Compare a search key with an item's key bytes (a leaf item, or a pivot: a
 * high key or the separator part of an inner item).  A search key that is a
 * proper prefix of the item sorts before it, unless nextkey.
 */
int
pbt_compare(PbtState *st, PbtSearchKey *key, const char *item, int len)
{
	if (st->normalized)
	{
		int			c = pbt_key_memcmp(key->bytes, item, Min(key->len, len));

		if (c != 0)
			return c;
		if (key->nextkey)
			return 1;
		return (key->len > len) - (key->len < len);
	}
	else
	{
		IndexTuple	itup = (IndexTuple) item;
		int			c;

		for (int i = 0; i < key->nattrs; i++)
		{
			bool		isnull;
			Datum		d = pbt_tuple_attr(st, item, len, i, &isnull);

			c = compare_column(st, key, i, d, isnull);
			if (c != 0)
				return c;
		}
		if (key->nattrs < st->nkeyatts || !key->has_tid)
			return key->nextkey ? 1 : -1;
		c = ItemPointerCompare(&key->tid, &itup->t_tid);
		if (c != 0)
			return c;
		return key->nextkey ? 1 : 0;
	}
}

/*
 * pbt_compare for normalized keys with an item in two pieces: its first
 * headlen bytes at head and the rest at tail, len bytes in all (a run's
 * front-coded entry, compared without being copied whole).
 */
int
pbt_compare_parts(PbtState *st, PbtSearchKey *key, const char *head,
				  int headlen, const char *tail, int len)
{
	int			n = Min(key->len, len);
	int			h = Min(headlen, n);
	int			c;

	Assert(st->normalized && headlen <= len);
	c = pbt_key_memcmp(key->bytes, head, h);
	if (c == 0)
		c = pbt_key_memcmp(key->bytes + h, tail, n - h);
	if (c != 0)
		return c;
	if (key->nextkey)
		return 1;
	return (key->len > len) - (key->len < len);
}

/*
 * Make an exact search key (all columns and heap TID) from a leaf item.
 */
void
pbt_key_from_item(PbtState *st, const char *item, int len, PbtSearchKey *key)
{
	key->nextkey = false;
	if (st->normalized)
	{
		key->bytes = (char *) item;
		key->len = normalized_keytid_len(st, item, len);
		return;
	}
	key->nattrs = st->nkeyatts;
	for (int i = 0; i < st->nkeyatts; i++)
	{
		key->values[i] = pbt_tuple_attr(st, item, len, i, &key->isnull[i]);
		key->procs[i] = &st->cols[i].cmp;
	}
	key->has_tid = true;
	key->tid = ((IndexTuple) item)->t_tid;
}

/*
 * The value of an integer or timestamp column (PBT_COL_INT, PBT_COL_INT64)
 * from its 8 encoded bytes at p, after the marker
 */
static inline Datum
decode_int(PbtColumn *col, const unsigned char *p)
{
	uint64		raw = read_be64(p);
	int64		x = (int64) ((col->desc ? ~raw : raw) ^
							 UINT64CONST(0x8000000000000000));

	/* (int2 and int4 values fit in int32, whose Datum is theirs too) */
	return col->kind == PBT_COL_INT && col->typid != INT8OID ?
		Int32GetDatum((int32) x) : Int64GetDatum(x);
}

/* decode one normalized column value (marker at p) */
static Datum
decode_column(PbtColumn *col, const unsigned char *p, int n, bool *isnull)
{
	unsigned char tmp[1 + UUID_LEN];
	const unsigned char *v;
	unsigned char flip = col->desc ? 0xFF : 0x00;

	if (p[0] != MARK_VALUE)
	{
		*isnull = true;
		return (Datum) 0;
	}
	*isnull = false;

	/* undo DESC inversion for fixed-width values */
	if (col->desc && n <= (int) sizeof(tmp))
	{
		for (int i = 1; i < n; i++)
			tmp[i] = ~p[i];
		v = tmp + 1;
	}
	else
		v = p + 1;

	switch (col->kind)
	{
		case PBT_COL_INT:
		case PBT_COL_INT64:
			return decode_int(col, p + 1);
		case PBT_COL_INT32:
			return DateADTGetDatum((DateADT) (read_be32(v) ^ 0x80000000));
		case PBT_COL_OID:
			return ObjectIdGetDatum(read_be32(v));
		case PBT_COL_BOOL:
			return BoolGetDatum(v[0] != 0);
		case PBT_COL_CHAR:
			return CharGetDatum((char) v[0]);
		case PBT_COL_UUID:
			{
				pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

				memcpy(u->data, v, UUID_LEN);
				return UUIDPGetDatum(u);
			}
		case PBT_COL_TEXT:
			{
				int			tlen = n - 2;
				char	   *dst;
				Datum		result;

				if (col->typid == NAMEOID)
				{
					if (tlen >= NAMEDATALEN)
						elog(ERROR, "name key of %d bytes in pagebtree item", tlen);
					dst = palloc0(NAMEDATALEN);
					result = NameGetDatum((Name) dst);
				}
				else
				{
					text	   *t = (text *) palloc(VARHDRSZ + tlen);

					SET_VARSIZE(t, VARHDRSZ + tlen);
					dst = VARDATA(t);
					result = PointerGetDatum(t);
				}
				for (int i = 0; i < tlen; i++)
					dst[i] = p[1 + i] ^ flip;
				return result;
			}
		case PBT_COL_BYTEA:
			{
				bytea	   *b = (bytea *) palloc(VARHDRSZ + n);
				int			out = 0;

				for (int i = 1; i < n - 2; i++)
				{
					unsigned char c = p[i] ^ flip;

					VARDATA(b)[out++] = c;
					if (c == 0)
						i++;	/* skip the escape byte */
				}
				SET_VARSIZE(b, VARHDRSZ + out);
				return PointerGetDatum(b);
			}
		case PBT_COL_OTHER:
			break;
	}
	elog(ERROR, "unexpected pagebtree column kind");
	return (Datum) 0;
}

/* Does any key column of a leaf item hold NULL? */
bool
pbt_item_has_null_key(PbtState *st, const char *item, int len)
{
	int			off = 0;

	if (!st->normalized)
	{
		if (!IndexTupleHasNulls((IndexTuple) item))
			return false;
		for (int i = 0; i < st->nkeyatts; i++)
		{
			bool		isnull;

			(void) pbt_tuple_attr(st, item, len, i, &isnull);
			if (isnull)
				return true;
		}
		return false;
	}
	for (int i = 0; i < st->nkeyatts; i++)
	{
		if ((unsigned char) item[off] != MARK_VALUE)
			return true;
		off += pbt_encoded_column_length(&st->cols[i], item + off, len - off);
	}
	return false;
}

/* the length of a normalized leaf item's key columns (before its heap TID) */
int
pbt_item_key_len(PbtState *st, const char *item, int len)
{
	Assert(st->normalized);
	return normalized_keytid_len(st, item, len) - TID_BYTES;
}

/* Do two leaf items have equal key columns (heap TIDs aside)? */
bool
pbt_items_keys_equal(PbtState *st, const char *a, int alen, const char *b, int blen)
{
	PbtSearchKey key;

	if (st->normalized)
	{
		alen = pbt_item_key_len(st, a, alen);
		blen = pbt_item_key_len(st, b, blen);
		return alen == blen && memcmp(a, b, alen) == 0;
	}
	pbt_key_from_item(st, a, alen, &key);
	key.has_tid = false;
	key.nextkey = true;			/* b < key+inf ... */
	if (pbt_compare(st, &key, b, blen) <= 0)
		return false;
	key.nextkey = false;		/* ... and key <= b */
	return pbt_compare(st, &key, b, blen) <= 0;
}

/* Decode one key column of a normalized leaf item. */
Datum
pbt_item_column(PbtState *st, const char *item, int len, int col, bool *isnull)
{
	int			start;
	int			n = pbt_column_span(st, item, len, col, &start);

	return decode_column(&st->cols[col], (const unsigned char *) item + start,
						 n, isnull);
}

/* Free a value of column col that pbt_item_column decoded, if it is a copy. */
void
pbt_free_column(PbtState *st, int col, Datum value)
{
	PbtColKind	kind = st->cols[col].kind;

	if (kind == PBT_COL_UUID || kind == PBT_COL_TEXT || kind == PBT_COL_BYTEA)
		pfree(DatumGetPointer(value));
}

/*
 * index_deform_tuple() for an IndexTuple of size bytes read from a page,
 * not trusting its lengths: returns what runs past the tuple (which
 * index_form_tuple() would read, compressing what an oversized varlena
 * header claims), or NULL.
 */
static const char *
deform_bounded(TupleDesc desc, IndexTuple itup, int size,
			   Datum *values, bool *isnull)
{
	int			hoff;
	char	   *tp;
	bits8	   *bp = (bits8 *) ((char *) itup + sizeof(IndexTupleData));
	int			end;
	int			off = 0;

	if (size < (int) sizeof(IndexTupleData) || IndexTupleSize(itup) > size)
		return "an index tuple is longer than its item";
	hoff = IndexInfoFindDataOffset(itup->t_info);
	tp = (char *) itup + hoff;
	end = (int) IndexTupleSize(itup) - hoff;
	if (end < 0)
		return "an index tuple is shorter than its header";
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			vlen = att->attlen;

		isnull[i] = IndexTupleHasNulls(itup) && att_isnull(i, bp);
		values[i] = (Datum) 0;
		if (isnull[i])
			continue;
		/* (a varlena's alignment depends on its first byte) */
		if (off >= end)
			return "an index tuple's value runs past it";
		off = att->attlen == -1 ?
			att_align_pointer(off, att->attalign, -1, tp + off) :
			att_align_nominal(off, att->attalign);
		if (off >= end)
			return "an index tuple's value runs past it";
		if (att->attlen == -1)
		{
			if (VARATT_IS_EXTERNAL(tp + off))
				return "an index tuple holds a TOAST pointer";
			if (!VARATT_IS_1B(tp + off) && off + VARHDRSZ > end)
				return "an index tuple's value runs past it";
			vlen = VARSIZE_ANY(tp + off);
		}
		else if (att->attlen == -2)
			vlen = strnlen(tp + off, end - off) + 1;
		if (off + vlen > end)
			return "an index tuple's value runs past it";
		values[i] = fetchatt(att, tp + off);
		off += vlen;
	}
	return NULL;
}

/*
 * Where a leaf item's IndexTuple part starts: its INCLUDE payload in
 * normalized mode (keys, TID, payload, its uint16 length), the whole item
 * in comparator mode; -1 if the payload's length disagrees with the keys.
 */
static int
tuple_part(PbtState *st, const char *item, int len, int keys_len, int *size)
{
	uint16		plen;

	if (!st->normalized)
	{
		*size = len;
		return 0;
	}
	memcpy(&plen, item + len - sizeof(uint16), sizeof(uint16));
	*size = plen;
	if (keys_len + TID_BYTES + plen + (int) sizeof(uint16) != len)
		return -1;
	return keys_len + TID_BYTES;
}

/*
 * Is an INCLUDE payload (of at least two bytes: tuple_part places its
 * length after it) stored without its TID?
 */
static inline bool
payload_is_short(const char *payload)
{
	return payload[0] != 0 || payload[1] != 0;
}

/*
 * The IndexTuple of an INCLUDE payload (size bytes at payload) in aligned
 * memory, which the decoded values point into, whichever form it is
 * stored in; its size in *tuple_size.  A short payload too short for its
 * head gives a tuple shorter than t_info says, which deform_bounded
 * reports.
 */
static IndexTuple
payload_tuple(const char *payload, int size, int *tuple_size)
{
	unsigned short t_info;
	int			head;
	int			hoff;
	char	   *copy;

	if (!payload_is_short(payload))
	{
		copy = palloc(size);
		memcpy(copy, payload, size);
		*tuple_size = size;
		return (IndexTuple) copy;
	}
	memcpy(&t_info, payload, sizeof(t_info));
	head = Min(short_payload_head(t_info), size);
	hoff = IndexInfoFindDataOffset(t_info);
	*tuple_size = hoff + (size - head);
	copy = palloc0(*tuple_size);
	memcpy(copy + PAYLOAD_TID_BYTES, payload, head);
	memcpy(copy + hoff, payload + head, size - head);
	return (IndexTuple) copy;
}

/*
 * Why the leaf item's lengths do not place its heap TID within it (the
 * INCLUDE payload's length, read from its end, included), or NULL; then
 * start and size give the part of the item after the TID (tuple_part).
 */
static const char *
item_tid_problem(PbtState *st, const char *item, int len, int *start, int *size)
{
	int			keys_len = 0;

	if (len < (st->normalized ? TID_BYTES : (int) sizeof(IndexTupleData)))
		return "an item is shorter than its heap TID";
	*start = 0;
	*size = 0;
	if (st->normalized)
	{
		/* a stretched length would place the TID in the next item's bytes */
		keys_len = keys_end_within(st, item, len - TID_BYTES);
		if (keys_len < 0)
			return "an item's key columns run into its heap TID";
		if (!st->has_include)
			return keys_len == len - TID_BYTES ? NULL :
				"an item's length disagrees with its key columns";
	}
	*start = tuple_part(st, item, len, keys_len, size);
	return *start < 0 ?
		"an item's INCLUDE payload length disagrees with its keys" : NULL;
}

/* pagebtree_page_items(): the item's heap TID, if its lengths place it */
bool
pbt_item_get_tid_checked(PbtState *st, const char *item, int len,
						 ItemPointer tid)
{
	int			start;
	int			size;

	if (item_tid_problem(st, item, len, &start, &size) != NULL)
		return false;
	pbt_item_get_tid(st, item, len, tid);
	return true;
}

/*
 * The damage in a leaf item: a heap TID offset no table uses, or what
 * pbt_decode_item() would stop at in its IndexTuple part; or NULL.  For
 * the verifier, which reports it with its block.
 */
const char *
pbt_leaf_item_problem(PbtState *st, const char *item, int len)
{
	int			start;
	int			size;
	IndexTuple	tuple;
	const char *problem;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	ItemPointerData tid;

	/* the lengths that place the heap TID first */
	if ((problem = item_tid_problem(st, item, len, &start, &size)) != NULL)
		return problem;
	pbt_item_get_tid(st, item, len, &tid);
	if (!OffsetNumberIsValid(ItemPointerGetOffsetNumberNoCheck(&tid)))
		return "an item's heap TID has an invalid offset";
	if (!st->normalized)
	{
		tuple = palloc(size);	/* aligned, as the tuple's offsets assume */
		memcpy(tuple, item + start, size);
	}
	else if (!st->has_include)
		return NULL;
	else if (st->delta_known &&
			 payload_is_short(item + start) != st->short_payloads)
		return "an item's INCLUDE payload is of another format version than its index";
	else
		tuple = payload_tuple(item + start, size, &size);
	problem = deform_bounded(st->normalized ? st->incdesc : st->tupdesc,
							 tuple, size, values, isnull);
	pfree(tuple);
	return problem;
}

/*
 * Decode a leaf item into index column values (key and INCLUDE columns),
 * for index-only scans and the verifier.  Results are palloc'd in the
 * current memory context.
 */
void
pbt_decode_item(PbtState *st, const char *item, int len,
				Datum *values, bool *isnull)
{
	int			off = 0;
	int			start;
	int			size;
	IndexTuple	payload;

	if (!st->normalized)
	{
		if (deform_bounded(st->tupdesc, (IndexTuple) item, len, values, isnull))
			pbt_bytes_out_of_bounds();
		return;
	}
	for (int i = 0; i < st->nkeyatts; i++)
	{
		PbtColumn  *col = &st->cols[i];
		const unsigned char *p = (const unsigned char *) item + off;
		int			n;

		/*
		 * Integers and timestamps, the keys of most index-only scans, without
		 * two calls per column: an index-only scan decodes every row
		 */
		if ((col->kind == PBT_COL_INT || col->kind == PBT_COL_INT64) &&
			len - off >= 1 + 8 && p[0] == MARK_VALUE)
		{
			values[i] = decode_int(col, p + 1);
			isnull[i] = false;
			off += 1 + 8;
			continue;
		}
		n = pbt_encoded_column_length(col, item + off, len - off);
		values[i] = decode_column(col, p, n, &isnull[i]);
		off += n;
	}
	if (!st->has_include)
		return;
	start = tuple_part(st, item, len, off, &size);
	if (start < 0)
		pbt_bytes_out_of_bounds();
	payload = payload_tuple(item + start, size, &size);
	if (deform_bounded(st->incdesc, payload, size,
					   values + st->nkeyatts, isnull + st->nkeyatts))
		pbt_bytes_out_of_bounds();
}

/*
 * Whether every key column has a fixed-width encoding (pbt_column_width),
 * with no INCLUDE columns: pbt_item_fixed can form their index tuples.
 */
bool
pbt_keys_fixed_width(PbtState *st)
{
	if (!st->normalized || st->has_include)
		return false;
	for (int i = 0; i < st->nkeyatts; i++)
		if (st->cols[i].width == 0)
			return false;
	return true;
}

/* a fixed-width column's value (marker at p) as an index tuple holds it */
static inline void
store_fixed(PbtColumn *col, const unsigned char *p, char *dst, int attlen)
{
	bool		isnull;

	if (col->kind == PBT_COL_UUID)
	{
		for (int j = 0; j < UUID_LEN; j++)
			dst[j] = col->desc ? ~p[1 + j] : p[1 + j];
	}
	else if (col->kind == PBT_COL_INT || col->kind == PBT_COL_INT64)
		store_att_byval(dst, decode_int(col, p + 1), attlen);
	else
		store_att_byval(dst, decode_column(col, p, col->width, &isnull),
						attlen);
}

/*
 * Store the key columns of an item of such an index (pbt_keys_fixed_width)
 * at tuple + offsets[i], as an index tuple holds them: an index-only scan
 * forms a tuple per row, and this does it in one pass, without a Datum
 * array or an allocation (uuids are copied).  False, with nothing to rely
 * on stored, if a column is NULL or the keys do not end where the heap
 * TID begins (the caller takes pbt_decode_item's general path, which
 * reports damage).
 */
bool
pbt_item_fixed(PbtState *st, const char *item, int len, char *tuple,
			   const uint16 *offsets)
{
	const unsigned char *p = (const unsigned char *) item;
	const unsigned char *end;

	if (len < TID_BYTES)
		return false;
	end = p + len - TID_BYTES;	/* the keys' end */
	for (int i = 0; i < st->nkeyatts; i++)
	{
		PbtColumn  *col = &st->cols[i];

		Assert(col->width > 0);
		if (end - p < col->width || p[0] != MARK_VALUE)
			return false;
		store_fixed(col, p, tuple + offsets[i],
					TupleDescAttr(st->tupdesc, i)->attlen);
		p += col->width;
	}
	return p == end;
}

/*
 * Whether pbt_item_tuple_data can lay out the index tuples of this index:
 * normalized keys of fixed-width columns and text (not name), INCLUDE
 * columns of any type.
 */
bool
pbt_keys_formable(PbtState *st)
{
	if (!st->normalized)
		return false;
	for (int i = 0; i < st->nkeyatts; i++)
	{
		PbtColumn  *col = &st->cols[i];

		if (col->width == 0 &&
			(col->kind != PBT_COL_TEXT || col->typid == NAMEOID))
			return false;
	}
	return true;
}

/*
 * Append the values of an INCLUDE payload (size bytes at payload, in
 * either form) to a tuple's data laid out up to off, as heap_fill_tuple
 * lays them out after the keys: each at its alignment in the new tuple
 * (padding zeroed), varlenas with 1-byte headers unaligned, the bytes as
 * stored (index_form_tuple made them).  The payload need not be aligned,
 * so lengths are read with memcpy.  Returns the data's length; -1 if a
 * value is NULL (the general path forms those) or runs past the payload.
 */
static int
append_payload(TupleDesc desc, const char *payload, int size, char *data,
			   int off)
{
	uint16		t_info;
	int			head;
	const char *src;
	int			srclen;
	int			soff = 0;

	if (size < (int) sizeof(t_info))
		return -1;
	if (payload_is_short(payload))
	{
		memcpy(&t_info, payload, sizeof(t_info));
		head = short_payload_head(t_info);
	}
	else
	{
		if (size < (int) sizeof(IndexTupleData))
			return -1;
		memcpy(&t_info, payload + PAYLOAD_TID_BYTES, sizeof(t_info));
		head = IndexInfoFindDataOffset(t_info);
	}
	if ((t_info & INDEX_NULL_MASK) || head > size)
		return -1;
	src = payload + head;
	srclen = size - head;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		aligned = true;
		int			vlen;

		if (att->attlen == -1)
		{
			uint32		header;

			/* (a zero byte is padding before a 4-byte header) */
			if (soff >= srclen)
				return -1;
			if (src[soff] == 0)
				soff = att_align_nominal(soff, att->attalign);
			if (soff >= srclen || VARATT_IS_1B_E(src + soff))
				return -1;
			if (VARATT_IS_1B(src + soff))
			{
				vlen = VARSIZE_1B(src + soff);
				aligned = false;
			}
			else
			{
				if (srclen - soff < (int) sizeof(header))
					return -1;
				memcpy(&header, src + soff, sizeof(header));
				vlen = VARSIZE_4B(&header);
			}
		}
		else if (att->attlen > 0)
		{
			soff = att_align_nominal(soff, att->attalign);
			vlen = att->attlen;
		}
		else
			return -1;			/* (cstring: not in an index's payload) */
		if (vlen < 1 || vlen > srclen - soff)
			return -1;
		if (aligned)
			while (off != att_align_nominal(off, att->attalign))
				data[off++] = 0;
		memcpy(data + off, src + soff, vlen);
		off += vlen;
		soff += vlen;
	}
	return off;
}

/*
 * The data of the index tuple of an item of such an index
 * (pbt_keys_formable), laid out at data as heap_fill_tuple lays out the
 * decoded values: fixed-width values at their alignment (padding zeroed),
 * texts with a 1-byte header, then the INCLUDE values.  An index-only
 * scan forms a tuple per row, and this does it in one pass, without Datums
 * or allocations.  Returns its length; data must have room for len + 8 *
 * natts bytes.  -1, with nothing to rely on written, if a column is NULL or
 * a text too long for a 1-byte header (the caller takes pbt_decode_item's
 * general path), or if the item is damaged (which that path reports).
 */
int
pbt_item_tuple_data(PbtState *st, const char *item, int len, char *data)
{
	const unsigned char *p = (const unsigned char *) item;
	const unsigned char *end;	/* the keys' end */
	int			plen = 0;
	int			off = 0;

	if (st->has_include)
	{
		uint16		stored;

		/* keys, TID, payload, the payload's length (tuple_part) */
		if (len < TID_BYTES + (int) sizeof(uint16))
			return -1;
		memcpy(&stored, item + len - sizeof(uint16), sizeof(uint16));
		plen = stored;
		if (plen > len - TID_BYTES - (int) sizeof(uint16))
			return -1;
		len -= plen + sizeof(uint16);
	}
	end = p + len - TID_BYTES;

	for (int i = 0; i < st->nkeyatts; i++)
	{
		PbtColumn  *col = &st->cols[i];
		Form_pg_attribute att = TupleDescAttr(st->tupdesc, i);
		int			n;

		if (end - p < 2 || p[0] != MARK_VALUE)
			return -1;			/* (a NULL, or the keys run past the item) */
		if (col->kind == PBT_COL_TEXT)
		{
			unsigned char flip = col->desc ? 0xFF : 0x00;
			const unsigned char *term;
			char	   *dst = data + off + VARHDRSZ_SHORT;
			int			tlen;

			/* the last column's terminator ends the keys */
			if (i == st->nkeyatts - 1)
				term = end[-1] == flip ? end - 1 : NULL;
			else
				term = memchr(p + 1, flip, end - p - 1);
			tlen = term ? term - (p + 1) : -1;
			if (tlen < 0 || tlen > VARATT_SHORT_MAX - VARHDRSZ_SHORT)
				return -1;
			SET_VARSIZE_1B(data + off, VARHDRSZ_SHORT + tlen);

			/*
			 * Eight bytes at a time (a memcpy of a short unknown length costs
			 * more than the rest of the row): past the text come its
			 * terminator and at least the TID's six bytes, and the caller's
			 * buffer has room for the seven at most written past it.
			 */
			for (int j = 0; j < tlen; j += sizeof(uint64))
			{
				uint64		w;

				memcpy(&w, p + 1 + j, sizeof(uint64));
				w ^= col->desc ? ~UINT64CONST(0) : 0;
				memcpy(dst + j, &w, sizeof(uint64));
			}
			off += VARHDRSZ_SHORT + tlen;
			p = term + 1;
			continue;
		}
		n = col->width;
		if (end - p < n)
			return -1;
		Assert(att->attlen > 0 && att->attlen < n);
		while (off != att_align_nominal(off, att->attalign))
			data[off++] = 0;
		store_fixed(col, p, data + off, att->attlen);
		off += att->attlen;
		p += n;
	}
	if (p != end)
		return -1;
	return st->has_include ?
		append_payload(st->incdesc, item + len, plen, data, off) : off;
}
