/*
 * verdict_export.c - a verdict as it leaves check (verdict.h's
 * ss_verdict_export()): the enum, the ids as ids, the detail in words,
 * once; rank and the writers take it as data (queue/verdict_data.h).
 */
#include "check/verdict.h"

#include <string.h>

#include "util/error.h"

/* Why, in words: where the branch has it, or how the patch lands, then
 * what else was found. */
static int detail_of(ss_strbuf *detail, const ss_verdict *v, const char *branch)
{
	const ss_check_result *c = &v->check;
	int rc = 0;

	if (v->already[0]) {
		if (c->in_branch)
			return ss_strbuf_addf(detail, "in %s as its own id", branch);
		return ss_strbuf_addf(detail, "in %s as %.12s, %s", branch, v->already,
				      v->already_how == SS_CARRIED_PATCH ? "the same patch"
									 : "by its backport line");
	}
	switch (c->apply) {
	case SS_APPLY_CLEAN:
		/* the verdict's word says it already */
		if (v->word != SS_VERDICT_YES)
			rc |= ss_strbuf_adds(detail, "applies");
		break;
	case SS_APPLY_CONFLICT:
		rc |= ss_strbuf_addf(detail, "conflict in %s hunk %d", c->path, c->hunk);
		break;
	case SS_APPLY_MISSING:
		rc |= ss_strbuf_addf(detail, "%s is not in %s", c->path, branch);
		break;
	case SS_APPLY_EXISTS:
		rc |= ss_strbuf_addf(detail, "adds %s, which %s has", c->path, branch);
		break;
	default:
		rc |= ss_strbuf_addf(detail, "cannot place the patch%s%s", c->path[0] ? ": " : "",
				     c->path);
		break;
	}
#define SEP (detail->len ? "; " : "")
	if (v->why[0])
		rc |= ss_strbuf_addf(detail, "%s%s", SEP, v->why);
	if (v->blocked[0])
		rc |= ss_strbuf_addf(detail, "%s%s", SEP, v->blocked);
	if (v->reverted_by[0])
		rc |= ss_strbuf_addf(detail, "%sreverted by %.12s later in mainline", SEP, v->reverted_by);
	for (int i = 0; i < v->nfollowups; i++)
		rc |= ss_strbuf_addf(detail, "%s%.12s", i ? " " : detail->len ? "; follow-ups: " : "follow-ups: ",
				     v->followups[i]);
	/* its series, when the verdict's words do not name it */
	if (ss_verdict_series_shown(v))
		rc |= ss_strbuf_addf(detail, "%sthe earlier patches of its series named change its files", SEP);
	else if (v->series_n)
		rc |= ss_strbuf_addf(detail, "%sseries %u/%u", SEP, v->series_n, v->series_total);
#undef SEP
	return rc;
}

int ss_verdict_export(ss_verdict_data *out, ss_verdict_id *needs, ss_strbuf *detail,
		      const ss_verdict *v, const char *branch)
{
	const ss_check_result *c = &v->check;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->word = v->word;
	out->propose = ss_verdict_proposes(v);
	/* oldest first: check names the newest first */
	for (int i = 0; out->propose && i < c->nneeds && i < SS_CHECK_MAX_NEEDS; i++)
		memcpy(needs[n++], c->needs[c->nneeds - 1 - i], sizeof(needs[0]));
	out->needs = needs;
	out->nneeds = n;
	/* a commit the branch carries brings nothing along */
	out->followups = (const ss_verdict_id *)v->followups;
	out->nfollowups = v->already[0] ? 0 : (size_t)v->nfollowups;
	out->reverted_by = v->reverted_by;
	out->series_n = v->series_n;
	out->series_total = v->series_total;
	out->series_shown = ss_verdict_series_shown(v);
	ss_strbuf_reset(detail);
	if (detail_of(detail, v, branch))
		return ss_error_code(SS_ENOMEM, "out of memory for a verdict");
	out->detail = detail->buf;
	return 0;
}
