// SPDX-License-Identifier: GPL-2.0
/*
 * oatable.c - the open-addressing table's rare operations: growing, freeing and
 * sweeping (oatable.h has the hot ones, inline).
 */
#include <errno.h>
#include <stdlib.h>

#include "oatable.h"

int oat_resize(struct oat_table *t, const struct oat_type *ty, size_t cap)
{
	struct oat_table nt = { .cap = cap, .n = t->n };
	size_t i;

	if (cap < 2 || (cap & (cap - 1)) || cap <= t->n)
		return -EINVAL;
	nt.slots = calloc(cap, ty->size);
	if (!nt.slots)
		return -ENOMEM;
	nt.shift = 64 - (unsigned int)__builtin_ctzll((unsigned long long)cap);
	for (i = 0; i < t->cap; i++) {
		const void *e = oat_at(t, ty, i);
		size_t j;

		if (oat_empty(ty, e))
			continue;
		for (j = oat_home(&nt, ty->hash(e)); !oat_empty(ty, oat_at(&nt, ty, j));
		     j = (j + 1) & (cap - 1))
			;
		memcpy(oat_at(&nt, ty, j), e, ty->size);
	}
	free(t->slots);
	*t = nt;
	return 0;
}

void oat_free(struct oat_table *t)
{
	if (!t)
		return;
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

void oat_remove_all(struct oat_table *t, const struct oat_type *ty)
{
	size_t need = ty->min_cap;

	while (need * ty->load_pct / 100 < t->n)
		need *= 2;
	if (t->cap > 4 * need) {
		oat_free(t);
		return;
	}
	if (t->slots)
		memset(t->slots, 0, t->cap * ty->size);
	t->n = 0;
}

/*
 * Start just after an empty slot and go once around: no probe run then wraps past
 * the scan's end, so a backward shift only moves entries not yet seen into the slot
 * being looked at (it is looked at again), never a seen one ahead of the scan.
 */
void oat_sweep(struct oat_table *t, const struct oat_type *ty,
	       bool (*drop)(void *entry, void *ctx), void *ctx)
{
	size_t mask = t->cap - 1, start, k;

	if (!t->n)
		return;
	for (start = 0; !oat_empty(ty, oat_at(t, ty, start)); start++)
		;	/* the load limit keeps a slot empty */
	for (k = 1; k <= t->cap;) {
		size_t i = (start + k) & mask;
		void *e = oat_at(t, ty, i);

		if (!oat_empty(ty, e) && drop(e, ctx)) {
			oat_del_at(t, ty, i);
			continue;
		}
		k++;
	}
}
