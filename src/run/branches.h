/*
 * branches.h - the stable branches of a run: which ones (the project
 * index's, without --onto), what each carries (from the index when it is
 * up to date with the branch, else read from the branch), the verdicts of
 * the commits fed, and their crossing into a ranking as data
 * (queue/verdict_data.h).
 *
 * The steps, in order: ss_run_branches_open() (one check, one carried
 * table, one verdicts set a branch), ss_run_branches_add() per commit of
 * the batch (upstream order), ss_run_branches_decide() once the ranking
 * has selected its picks.  A ss_run_branches owns its checks, carried
 * tables, verdicts and the blame cache they share; the names it was
 * opened with are copied.
 */
#ifndef SS_RUN_BRANCHES_H
#define SS_RUN_BRANCHES_H

#include <stddef.h>

#include "check/check.h"
#include "check/verdict.h"
#include "index/index.h"
#include "labels/carried.h"
#include "rank/rank.h"
#include "run/run.h"

/* The index's mainline ref (its name, in buf), else "HEAD". */
const char *ss_run_index_upstream(ss_index *ix, char *buf, size_t size);

/*
 * The stable branches of index ix (read from path, for messages) a run
 * takes without --onto: newest version first, one of "origin/21.11" and
 * "21.11" (the local one), only the branches whose role is "stable"; at
 * most max into out (malloc'd names, the caller's), *more says how many
 * more there were.  *n: how many.  0 or < 0 with the message set.
 */
int ss_run_index_branches(char **out, size_t *n, size_t max, size_t *more, ss_index *ix,
			  const char *path);

/*
 * What the branch of check ck carries under other ids: from index ix
 * (NULL: none; path names it) when the index has the branch at its tip
 * and (upstream given) the mainline named, else read from the branch in
 * repo; a stale index is a warning, another reason a note (through rp).
 * upstream: --onto-upstream (NULL: the index's mainline, else HEAD);
 * what: the branch as the user named it.  *from_index (may be NULL) says
 * which.  0 or < 0 with the message set.
 */
int ss_run_carried_load(ss_carried **out, int *from_index, ss_index *ix, const char *path,
			const char *repo, ss_check *ck, const char *upstream, const char *what,
			const ss_run_report *rp);

/*
 * The branches a run takes as the user named them: onto[0..*n) with a
 * branch named twice kept once (where it came first, the order kept),
 * each repeat a warning through rp ("--onto X given twice: one column").
 */
void ss_run_onto_dedupe(const char **onto, size_t *n, const ss_run_report *rp);

/*
 * Without --onto: index ix's default stable branches
 * (ss_run_index_branches, at most max) into owned (malloc'd names, the
 * caller's) and onto (the same names, borrowed), *n how many; said once
 * as a note through rp (which ones, that there were more, or that the
 * index at path knows none).  0 or < 0 with the message set.
 */
int ss_run_onto_from_index(char **owned, const char **onto, size_t *n, size_t max, ss_index *ix,
			   const char *path, const ss_run_report *rp);

/*
 * --as-of t: each of onto[0..*n) in repo becomes the commit its
 * first-parent line had at t (ss_git_resolve_as_of): at[i] its id
 * (malloc'd, the caller's), asked[i] the name given, onto[i] = at[i].  A
 * branch with no commit yet is left out (*n shrinks); each is said as a
 * note through rp.  SS_ENOTFOUND with the message set when none is left.
 * 0 or < 0 with the message set.
 */
int ss_run_onto_as_of(char **at, const char **asked, const char **onto, size_t *n,
		      const char *repo, int64_t t, const ss_run_report *rp);

/*
 * Whether n branches (after ss_run_onto_from_index) in repo (NULL: no
 * repository named) can serve --verdicts (NULL: not asked): SS_EINVALID
 * with the usage message when --verdicts has no branch or the branches
 * have no repository, else 0.
 */
int ss_run_onto_check(size_t n, const char *repo, const char *verdicts);

/*
 * --verdicts LIST (comma-separated applies, needs, already, unaffected,
 * reverted, unknown; yes and no as before) as
 * a bit per ss_verdict_word; NULL is 0 (no filter).  SS_EINVALID naming
 * the word it does not know.
 */
int ss_run_verdict_mask(unsigned *mask, const char *list);

typedef struct ss_run_branches ss_run_branches;

typedef struct {
	const char *repo;        /* the branches' repository (--onto-repo, else --repo) */
	const char *upstream;    /* --onto-upstream (NULL: the index's mainline, else HEAD) */
	ss_index *ix;            /* the project index (NULL: none), borrowed */
	const char *ixpath;      /* its path, for messages */
	const ss_run_report *report; /* (NULL: nothing said) */
	ss_repo *handle;         /* NULL, or repo open (a run's, borrowed): the checks
				  * read it instead of opening repo again */
} ss_run_branches_options;

/*
 * Open the branches onto[0..n) (n at most SS_RANK_MAX_BRANCHES, distinct
 * names as the user gave them):
 * each one's check, what it carries, its verdicts; a conflicting hunk is
 * blamed once for all.  0 or < 0 with the message set.
 */
int ss_run_branches_open(ss_run_branches **out, const char *const *onto, size_t n,
			 const ss_run_branches_options *o);
void ss_run_branches_free(ss_run_branches *br); /* NULL is a no-op */

/* How many branches; branch b's short name ("21.11"). */
size_t ss_run_branches_count(const ss_run_branches *br);
const char *ss_run_branches_name(const ss_run_branches *br, size_t b);
/* Branch b's tip: the commit --onto names, 40 hex digits. */
const char *ss_run_branches_tip(const ss_run_branches *br, size_t b);

/*
 * The branch --onto b of br is for the review decisions
 * (index/index_decisions.h's identity), into *out (malloc'd): asked
 * (with --as-of, the name asked for; may be NULL) as the index ix (may
 * be NULL) knows it, else onto (the name br opened) at br's tip of b,
 * else the branch the user named for it among hints[0..nh) (the one
 * when nh is 1, hints[b] when nh is n, the number of branches), else
 * br's short name.  0 or SS_ENOMEM.
 */
int ss_run_onto_identity(char **out, const ss_run_branches *br, size_t b, const char *onto,
			 const char *asked, ss_index *ix, char *const *hints, size_t nh, size_t n);

/*
 * rank's --queue-branch q, the one rule for which of the --onto branches
 * onto[0..n) (opened in br) gets its queue written, into *out: the
 * branch as given to --onto (or asked[b], with --as-of; asked may hold
 * NULLs), its short name or its identity ident[b] (may be NULL), or
 * the identity qident (may be NULL) q names.  *out 0 when q is NULL or
 * n is 0.  None of them: SS_EINVALID, the message naming the branches.
 */
int ss_run_queue_branch(size_t *out, const char *q, const char *qident, const ss_run_branches *br,
			const char *const *onto, const char *const *asked, char *const *ident,
			size_t n);

/* What branch b carries (its backport-line style among it), borrowed. */
const ss_carried *ss_run_branches_carried(const ss_run_branches *br, size_t b);

/* The next commit of the batch, for every branch.  0 or < 0. */
int ss_run_branches_add(ss_run_branches *br, const ss_commit *c);

/*
 * With the ranking's picks known (ss_ranking_select): decide each
 * branch's verdicts, give every row of r its verdicts (as data), propose
 * only what some branch takes, list only the rows whose verdict mask
 * names (0: every row); scores stay.  With extras set, the prerequisites
 * a queue needs that r lacks are read from the repository and added
 * (one that cannot be read is a warning).  0 or < 0 with the message set.
 */
int ss_run_branches_decide(ss_run_branches *br, ss_ranking *r, unsigned mask, int extras);

#endif
