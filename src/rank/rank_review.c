/*
 * rank_review.c - a ranking's rows with the maintainer's review decisions
 * (rank.h ss_ranking_set_review(); the decisions are index/index_decisions.h's,
 * read by the command, cli/decisions_cli.c).
 */
#include <string.h>

#include "rank/rank_impl.h"
#include "util/error.h"

int ss_ranking_set_review(ss_ranking *r, size_t i, const char *review, int force_pick)
{
	struct ss_rank_rowdata *w;

	if (i >= r->n)
		return ss_error_code(SS_EINVALID, "no row %zu in the ranking", i);
	w = &r->rows[i];
	w->review = 0;
	if (review && *review) {
		w->review = r->pool.len;
		if (ss_strbuf_add(&r->pool, review, strlen(review)) || ss_strbuf_addch(&r->pool, '\0'))
			return SS_ENOMEM;
	}
	if (force_pick) {
		w->flags |= SS_RANK_ACCEPTED;
		if (!w->pick) {
			w->pick = w->shown = 1;
			r->picks++;
		}
	}
	return 0;
}
