/*
 * review_session.h - what "stablesel review" does between the ranking and
 * the terminal, for any front end (docs/review.md): the index it writes
 * the decisions to and who makes them, the candidates a ranking offers
 * as the review loop's items (rank/review_loop.h), the decisions
 * recorded for each session branch, and a start's ranking kept for the
 * next one, read back and reused (run/review_cache.h).  The front end reads the
 * keys and prints the screen.  Nothing here prints or exits: 0 or a
 * negative SS_E* code with the message set.
 */
#ifndef SS_RUN_REVIEW_SESSION_H
#define SS_RUN_REVIEW_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "index/index.h"
#include "rank/rank.h"
#include "rank/review_loop.h"
#include "run/branches.h"
#include "run/review_cache.h"
#include "run/run.h"

/* A session: where its decisions go, under which branches, by whom;
 * every pointer borrowed. */
typedef struct {
	ss_index *ix;           /* the index written (a writer) */
	const char *path;       /* the index's, for messages */
	char **branches;        /* the branches decided for */
	size_t nb;
	const char *who;        /* "Name <mail>", the reviewer */
} ss_run_review_session;

/*
 * The review's start: the reviewer's identity (git's, of repo, NULL: ".")
 * into *who, the index of db, else repo's, opened to write the decisions
 * (run/decisions_open.h) into *ix and its path into *path, lent to run as
 * the index its steps read (none lent without db and repo), and where a
 * start's ranking is kept beside it into *cache.  Strings malloc'd, the
 * caller's (on error too, NULL when not set).
 */
int ss_run_review_open(ss_index **ix, char **path, char **who, char **cache, const char *db,
		       const char *repo, ss_run *run);

/*
 * The review loop's callbacks (ss_review_ops), ud an
 * ss_run_review_session: a decision recorded at once for every session
 * branch (a deferral's until checked first: run/decisions.h), an undo
 * bringing back what each branch held before.
 */
int ss_run_review_decide(const ss_review_item *it, ss_decision_state state, const char *text,
			 const char *until, void *ud);
int ss_run_review_undo(const ss_review_item *it, void *ud);

/*
 * The candidates r offers (picks, and the rows above the threshold with
 * a branch they do not apply to as they are, which only a manual
 * backport takes), best first, as review items whose strings (verdicts
 * and the prerequisites accepting pulls in, flags, reasons and
 * precedents, date, conflicts) the handle owns.  r must outlive it.
 */
typedef struct ss_run_review_items ss_run_review_items;

int ss_run_review_items_new(ss_run_review_items **out, const ss_ranking *r);
const ss_review_item *ss_run_review_items_get(const ss_run_review_items *it, size_t *n);
void ss_run_review_items_free(ss_run_review_items *it); /* NULL is a no-op */

/* The key a start is kept under (run/review_cache.h): ix's state at
 * path, the model file (NULL: none), the command line as given (a line
 * each argument), the folder it ran in and this version. */
int ss_run_review_key(ss_review_cache_key out, ss_index *ix, const char *path, const char *model,
		      const char *cmdline);

/* Where a session's branches come from, the first given first. */
typedef struct {
	const char *const *named;         /* --branch, as spelled */
	size_t nnamed;
	const ss_review_cache_data *kept; /* a kept start's branches (NULL) */
	char *const *ident;               /* the ranking's --onto identities
					     (NULL entries: br's names) */
	ss_run_branches *br;
	size_t nonto;                     /* else the index's live stable ones */
} ss_run_review_branch_source;

/*
 * The session's branches from src malloc'd into out (at most max), *n
 * how many: the named ones and the index's as
 * run/decisions_open.h's ss_run_decision_branches() gives them (its
 * codes: SS_ENOTFOUND or SS_EINVALID for a name no branch has).
 */
int ss_run_review_branches(char **out, size_t *n, size_t max, ss_index *ix, const char *path,
			   const char *repo, const ss_run_review_branch_source *src,
			   const ss_run_report *rp);

/*
 * The candidates d keeps that are undecided at now for the session's
 * branches, into *out (malloc'd, the strings d's), *n how many; *out NULL
 * when d is stale: a row hidden as decided when it was made is undecided
 * now (the ranking is made again).
 */
int ss_run_review_undecided(ss_review_item **out, size_t *n, const ss_review_cache_data *d,
			    const ss_run_review_session *s, int64_t now);

/* A kept start reused: what the session shows instead of ranking again
 * (ss_run_review_reuse); a zeroed one holds nothing. */
typedef struct {
	ss_review_item *items;  /* the candidates undecided now, best first (malloc'd,
				   the strings the cache's); NULL: nothing to reuse */
	size_t n;
	size_t nkept;           /* the kept start's candidates */
	int64_t made;           /* when it was kept (seconds since the epoch) */
	char *branches[SS_RANK_MAX_BRANCHES]; /* the session's (malloc'd) */
	ss_review_cache *cache; /* what was read back */
} ss_run_review_reused;

/*
 * The candidates the last start kept at cache under key, without those
 * decided since (at now) for every session branch, into *out: the
 * session's branches taken from named[0..nnamed) (--branch), else as
 * the kept start had them (ss_run_review_branches(), repo's index for
 * the messages, rp told), set into s (branches and nb, out's until
 * ss_run_review_reused_release()).  out->items NULL, s's branches
 * unset and nothing held when there are none to reuse: none kept, one
 * kept under another key, or a row hidden as decided then that is
 * undecided now (ss_run_review_undecided(): rank again).  0, or < 0
 * with the message set: ss_run_review_branches()'s codes for a
 * branch named that no branch has, else SS_ENOMEM or SS_ERROR.
 */
int ss_run_review_reuse(ss_run_review_reused *out, ss_run_review_session *s, const char *cache,
			const ss_review_cache_key key, const char *const *named, size_t nnamed,
			const char *repo, int64_t now, const ss_run_report *rp);
void ss_run_review_reused_release(ss_run_review_reused *r); /* zeroed: a no-op */

/* Keep items[0..n) of r for the session's branches at cache under key,
 * with the rows r hid as decided for every branch. */
int ss_run_review_keep(const char *cache, const ss_review_cache_key key, const ss_ranking *r,
		       const ss_review_item *items, size_t n, const ss_run_review_session *s);

#endif
