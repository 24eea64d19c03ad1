/*-------------------------------------------------------------------------
 *
 * pbt_registry.c
 *	  The layouts, by the tag each page records (PBT_LAYOUT_* in
 *	  pbt_page.h).  A layout is one file defining its PbtLayout and one line
 *	  here; which layout a page gets is decided in pbt_policy.c.
 *
 * A tag, once written to disk, keeps its meaning for good: retiring a
 * layout keeps its line (flagged PBT_LF_RETIRED), so that existing indexes
 * stay readable without a REINDEX.
 *
 *-------------------------------------------------------------------------
 */
#include "pagebtree.h"

extern const PbtLayout pbt_layout_plain;
extern const PbtLayout pbt_layout_heads;
extern const PbtLayout pbt_layout_heads_nohints;
extern const PbtLayout pbt_layout_dense;
extern const PbtLayout pbt_layout_semidense;
extern const PbtLayout pbt_layout_bpa;
extern const PbtLayout pbt_layout_fingerprint;
extern const PbtLayout pbt_layout_posting;
extern const PbtLayout pbt_layout_lists;

/* layouts by tag (see pbt_layout); NULL for an unknown tag */
const PbtLayout *const pbt_layouts[256] = {
	[PBT_LAYOUT_PLAIN] = &pbt_layout_plain,
	[PBT_LAYOUT_HEADS] = &pbt_layout_heads,
	/* retired: written by earlier versions, read only; never written now */
	[PBT_LAYOUT_HEADS_NOHINTS] = &pbt_layout_heads_nohints,
	[PBT_LAYOUT_DENSE] = &pbt_layout_dense,
	[PBT_LAYOUT_SEMIDENSE] = &pbt_layout_semidense,
	[PBT_LAYOUT_BPA] = &pbt_layout_bpa,
	[PBT_LAYOUT_FINGERPRINT] = &pbt_layout_fingerprint,
	[PBT_LAYOUT_POSTING] = &pbt_layout_posting,
	[PBT_LAYOUT_LISTS] = &pbt_layout_lists,
};

void
pbt_unknown_layout(uint8 tag)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("pagebtree page has unknown layout tag %u", tag)));
}

void
pbt_bytes_out_of_bounds(void)
{
	pbt_page_damaged("has an item out of bounds");
}

void
pbt_page_header_damaged(const char *problem)
{
	pbt_page_damaged(psprintf("header is damaged: %s", problem));
}

/* A page's bytes contradict themselves (what: "has ..."). */
void
pbt_page_damaged(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("pagebtree page %s", what),
			 errhint("Run pagebtree_check on the index for details, and REINDEX it.")));
}

#if defined(USE_ASSERT_CHECKING) || defined(PBT_CHECKS)
/*
 * What the engine takes for granted of the registered layouts (see
 * PbtLayout).  Checked once per backend, from _PG_init, in builds with
 * assertions or PBT_CHECKS.
 */
void
pbt_registry_check(void)
{
	for (int tag = 0; tag < lengthof(pbt_layouts); tag++)
	{
		const PbtLayout *layout = pbt_layouts[tag];
		const PbtLayout *to;
		const char *problem = NULL;

		if (layout == NULL)
			continue;
		to = pbt_layouts[layout->convert_to];
		if (tag >= PBT_MAX_LAYOUTS || layout->tag != tag)
			problem = "is not at its own tag below PBT_MAX_LAYOUTS";
		else if (!(layout->flags & (PBT_LF_LEAF | PBT_LF_INNER)))
			problem = "is for neither leaf nor inner pages";
		else if (!layout->init || !layout->count || !layout->get ||
				 !layout->insert || !layout->load || !layout->delete ||
				 !layout->truncate || !layout->item_cost ||
				 !layout->space_needed || !layout->free_space ||
				 !layout->garbage || !layout->set_dead || !layout->is_dead ||
				 !layout->mask || !layout->check ||
				 ((layout->flags & PBT_LF_LEAF) && !layout->fits) ||
				 ((layout->flags & PBT_LF_INNER) &&
				  !layout->downlink) ||
				 (layout->iter_start && !layout->iter_next))
			problem = "lacks a callback that the pages it may hold need";
		else if ((layout->flags & PBT_LF_REBUILT) &&
				 (to == NULL || (to->flags & PBT_LF_REBUILT) ||
				  to->prefix_bytes == NULL || to->suffix_bytes == NULL))
			problem = "converts to no layout that can be a conversion target";
		else if ((layout->flags & PBT_LF_REBUILT) &&
				 layout->run_span == NULL && layout->takes == NULL)
			problem = "is made by rebuilds but cannot tell the build which items it takes";
		else if ((layout->run_span == NULL) != (layout->run_capacity == NULL))
			problem = "has only one of run_span and run_capacity";
		else if ((layout->flags & PBT_LF_APPEND_KEEPS_ALL) &&
				 !(layout->flags & PBT_LF_APPEND_SPLIT))
			problem = "keeps all items at appending splits it does not support";
		if (problem)
			elog(ERROR, "pagebtree layout \"%s\" (tag %d) %s",
				 layout->name, tag, problem);
	}
}
#endif
