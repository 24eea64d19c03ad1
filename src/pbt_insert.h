/*-------------------------------------------------------------------------
 *
 * pbt_insert.h
 *	  Declarations private to insertion: pbt_insert.c (insert, unique
 *	  check, split, downlinks, new root), pbt_splitloc.c (where a page
 *	  splits) and pbt_delete.c (dead entries removed before a split).
 *
 *-------------------------------------------------------------------------
 */
#ifndef PBT_INSERT_H
#define PBT_INSERT_H

#include "pagebtree.h"

/* pbt_insert.c */
extern void pbt_insert_parent(Relation index, PbtState *st, Buffer lbuf,
							  Buffer rbuf, PbtStack stack, StringInfo sep);
extern Buffer pbt_get_parent(Relation index, PbtState *st, PbtStack stack,
							 BlockNumber child, int *pos, bool missing_ok);

/* pbt_splitloc.c */
extern int	pbt_choose_split(const PbtLayout *layout, const PbtItem *items,
							 int n, int hikeylen, int downlink,
							 bool append_rightmost, int fillfactor,
							 bool bytewise, bool tid_last);
extern int	pbt_fit_leaf_split(PbtState *st, PbtItem *items, int n, int s0,
							   PbtItem *oldhikey, uint8 fallback, uint8 own,
							   StringInfo sep, uint8 *ltag, uint8 *rtag);
extern int	pbt_split_keeping_run(PbtState *st, PbtItem *items,
								  const bool *pending, int n, PbtItem *oldhikey,
								  uint8 fallback, uint8 own, StringInfo sep,
								  uint8 *ltag, uint8 *rtag, bool *keep);
extern int	pbt_partition_end(const PbtLayout *layout, const PbtItem *items,
							  int n);

/* pbt_delete.c */
extern void pbt_delete_entries(Relation index, PbtState *st, Relation heapRel,
							   Buffer buf, const char *newitem, int newlen,
							   bool bottomup);

#endif							/* PBT_INSERT_H */
