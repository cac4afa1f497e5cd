/*
 * verdict.h - one verdict per pick per stable branch: what a maintainer
 * reads at a glance before taking a commit into a branch.
 *
 *   applies                   the bug is in the branch and the patch applies
 *   applies, needs <ids>      the bug is there; it conflicts, and the
 *                             commits named must come first
 *   already                   the branch carries it (its own id, a backport
 *                             line naming it, or an equal patch id)
 *   unaffected: bug not in branch  every Fixes:/revert target is known and
 *                             none reached the branch
 *   reverted by <id>          a later commit of the batch reverts it
 *   unknown                   anything else: a file missing or added twice,
 *                             a binary or capped diff, a conflict nothing
 *                             explains, a target the repository lacks
 *
 * The batch is every commit read, in upstream order (oldest first); the
 * picks are the ones proposed (ss_verdicts_decide() asks).  "Needed" (the
 * bug is in the branch) is: a Fixes:/revert target is the branch or an
 * ancestor of it, or reached it as a backport (carried.h), or is itself a
 * pick of the batch whose verdict for this branch is yes (fix-of-fix
 * chains followed); with no target at all, every file it modifies is in
 * the branch.  Follow-ups are later commits of the batch whose Fixes:
 * names the pick; they travel with it.  Prerequisites are asked only for
 * the picks that conflict (a blame each: check.h's ss_check_needs), minus
 * what the branch carries under any id.  Each prerequisite gets its own
 * look: one of the batch must itself be proposed (yes, yes needs) or
 * already there; one from outside the batch is read from the repository
 * and must apply to the branch as it is; otherwise the pick is unknown
 * and says which prerequisite stops it (blocked).
 *
 * Series (commit/series.h: a numbered Link:, or a mail's thread and
 * [PATCH n/m]): a proposed pick that is patch N of a series needs the
 * earlier patches of the batch (1..N-1, those the branch does not carry)
 * that change a file it changes, or a file of one so needed (a
 * conflict in a file an earlier patch changed is this case too); they
 * join check.needs, are looked at as prerequisites are, and the verdict
 * says "applies, needs <ids> (series 3/5)".  When none is needed, "series
 * 3/5" is only a note.  Copies of one patch (the same number) count once.
 *
 * A verdicts set borrows its check and carried table (carried may be
 * NULL: then only the branch's ancestry counts); both must outlive it.
 */
#ifndef SS_VERDICT_H
#define SS_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "check/check.h"
#include "commit/commit.h"
#include "labels/carried.h"
#include "queue/verdict_data.h"
#include "util/strbuf.h"

/* ss_verdict_word (the verdict's enum) is queue/verdict_data.h's. */

#define SS_VERDICT_MAX_FOLLOWUPS 4

typedef struct {
	char id[41];
	ss_verdict_word word;
	int proposed;              /* a pick of the batch */
	ss_check_result check;     /* apply, path, hunk; needs (filtered) for
				      a conflicting pick */
	int needed;                /* the bug is in the branch: 1, 0, -1 unknown */
	char why[200];             /* why needed or not, in words */
	ss_carried_how already_how;/* how the branch carries it, or NONE */
	char already[41];          /* the branch commit carrying it ("" none) */
	char reverted_by[41];      /* the later commit reverting it ("" none) */
	char followups[SS_VERDICT_MAX_FOLLOWUPS][41];
	int nfollowups;
	char blocked[200];         /* why a pick that needs commits first is
				      unknown: a prerequisite that does not
				      apply or is not proposed ("" none) */
	unsigned series_n, series_total; /* its place in its patch series
				      among the commits added ("series 2/5";
				      the subject's m for a mail thread), 0
				      when it is in none */
	int series_needs;          /* of check.needs, how many are earlier
				      patches of its series */
	int64_t time;              /* committer time (author time for mail) */
	size_t order;              /* position in the batch, from 0 */
} ss_verdict;

typedef struct ss_verdicts ss_verdicts;

int ss_verdicts_new(ss_verdicts **out, ss_check *ck, const ss_carried *cr);
void ss_verdicts_free(ss_verdicts *v); /* NULL is a no-op */

/*
 * Add the next commit of the batch (upstream order, oldest first): its
 * patch is placed on the branch, its targets resolved, whether the branch
 * carries it looked up.  c may be freed afterwards.  A commit added twice
 * keeps the first.  0 or < 0 with the message set.
 */
int ss_verdicts_add(ss_verdicts *v, const ss_commit *c);

/*
 * Decide every commit's verdict once the picks are known (proposed(id,
 * ud) is 1 for a pick): reverts, fix-of-fix chains, follow-ups, and the
 * prerequisites of the conflicting picks (a blame each; progress(done,
 * total, ud) after each, may be NULL).  0 or < 0 with the message set.
 */
int ss_verdicts_decide(ss_verdicts *v, int (*proposed)(const char *id, void *ud),
		       void (*progress)(size_t done, size_t total, void *ud), void *ud);

/* The verdict of commit id (full id), or NULL when it was not added. */
const ss_verdict *ss_verdicts_get(const ss_verdicts *v, const char *id);

/* Commits added. */
size_t ss_verdicts_count(const ss_verdicts *v);
const ss_verdict *ss_verdicts_at(const ss_verdicts *v, size_t i);

/* The branch's short name ("20.11"), from the check. */
const char *ss_verdicts_branch(const ss_verdicts *v);

/* Do the verdict's words name the series (else the detail may)? */
int ss_verdict_series_shown(const ss_verdict *v);

/*
 * v's verdict on branch (its short name, "20.11") as data, the way it
 * crosses to rank and the writers (verdict_data.h): the word, the
 * prerequisites (only when it proposes; copied into needs, which has
 * room for SS_CHECK_MAX_NEEDS, oldest first), the follow-ups (v's own;
 * none when the branch carries it already),
 * the detail in words (into *detail, reset first).  out borrows needs,
 * detail and v; out->text is left NULL.  0 or SS_ENOMEM.
 */
int ss_verdict_export(ss_verdict_data *out, ss_verdict_id *needs, ss_strbuf *detail,
		      const ss_verdict *v, const char *branch);

/* Does the word let the pick be proposed (yes, yes needs)? */
int ss_verdict_proposes(const ss_verdict *v);

#endif
