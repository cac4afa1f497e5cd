/*
 * index_decisions.h - a maintainer's review decisions, kept in the project index
 * (table "decision_log", schema 4; docs/review.md).
 *
 * Decisions are a log: every change (a decision, a reset, an undo, an
 * import, the "backported" an update finds) is a row appended, none is
 * ever updated or deleted; the decision of a commit on a branch is the
 * latest row (seq order) unless that row is a reset ("none").  Undo
 * appends again the row that held before the latest, so that a
 * colleague's decision and note come back as they were.
 *
 * A branch is one name, the stable branch as the index knows it, local
 * ("21.11", whether the index read "21.11" or "origin/21.11"):
 * ss_index_branch_identity() gives it for any spelling.
 *
 * One decision per upstream commit and stable branch: accepted, rejected,
 * deferred (until a date or a release), queued, backported, failed; who
 * made it ("Name <email>"), when (seconds since the epoch), and a free
 * note.  The commit's patch id is kept beside its id, so that a decision
 * still answers for the commit after a rebase gave it another id
 * (ss_index_decision_get() looks for the id first, then for the patch id
 * of the indexed commit asked about).
 *
 * Writes are short transactions of their own (BEGIN IMMEDIATE): each
 * decision is on disk when its call returns, so that an interrupted review
 * keeps every decision made so far, and two writers never lose one
 * another's rows (the second waits for the first, up to the index's busy
 * timeout, then fails with "index 'F' is locked by another writer ...").
 *
 * "backported" is set by the index itself: every update ends by marking
 * the decisions whose branch now carries the commit, by backport line or
 * patch id (ss_index_decisions_derive(), in the update's derive
 * transaction).  A decision for a commit the index does not hold (a
 * rewritten mainline) is kept; readers say so (known = 0).
 */
#ifndef SS_INDEX_DECISIONS_H
#define SS_INDEX_DECISIONS_H

#include <stddef.h>
#include <stdint.h>

#include "index/index.h"

typedef enum {
	SS_DECISION_NONE = 0,    /* no decision (reset) */
	SS_DECISION_ACCEPTED,
	SS_DECISION_REJECTED,
	SS_DECISION_DEFERRED,
	SS_DECISION_QUEUED,
	SS_DECISION_BACKPORTED,
	SS_DECISION_FAILED,
	SS_DECISION_NSTATES
} ss_decision_state;

/* "accepted", ...; "none" for SS_DECISION_NONE. */
const char *ss_decision_state_name(ss_decision_state s);
/* The state named s; SS_EINVALID (message set) for any other word. */
int ss_decision_state_parse(ss_decision_state *out, const char *s);
/* Whether the state takes a candidate out of the queue's picks or keeps it
 * in: accepted, queued and failed are picks. */
int ss_decision_is_pick(ss_decision_state s);

/*
 * One decision.  Strings are the caller's (as input) or live until the
 * callback returns (as output); "" when none, never NULL.
 */
typedef struct {
	char commit[41];         /* the upstream commit, 40 hex digits */
	char patch_id[41];       /* its patch id, "" when unknown */
	const char *branch;      /* the stable branch, "21.11" */
	ss_decision_state state;
	const char *until;       /* deferred: "2027-01-15" or a release tag */
	const char *who;         /* "Name <email>" */
	int64_t time;            /* when it was decided */
	const char *note;
	int known;               /* output: the index holds the commit */
	const char *subject;     /* output: its subject, "" when not known */
	int64_t logged;          /* when the row was written (0 on input: now) */
	int undo;                /* the row undoes the change before it */
} ss_decision;

/* The latest time a decision may carry: 9999-12-31 23:59:59 UTC. */
#define SS_DECISION_TIME_MAX ((int64_t)253402300799)

/* A decision with strings of its own (ss_index_decision_get()). */
typedef struct {
	ss_decision d;
	char *buf;               /* the strings, one allocation */
} ss_decision_owned;

void ss_decision_owned_release(ss_decision_owned *o); /* NULL is a no-op */

/*
 * Record d (a row appended: the decision for d->commit on d->branch
 * from now on, whatever it was).  The patch id is the indexed commit's
 * (d->patch_id is kept only for a commit the index does not hold).  The
 * index must be open for writing.  SS_EINVALID for a commit that is no
 * full lower-case id, an empty branch, a time outside 0 ..
 * SS_DECISION_TIME_MAX; a lock held past the busy timeout gives "index
 * 'F' is locked by another writer".
 */
int ss_index_decision_set(ss_index *ix, const ss_decision *d);

/* Take back the decision for commit on branch (a reset row appended);
 * *removed (may be NULL) says whether there was one. */
int ss_index_decision_reset(ss_index *ix, const char *commit, const char *branch, int *removed);

/*
 * Undo the latest change to commit on branch: the row before it is
 * appended again (who, time, note as they were), a reset when there was
 * none.  *restored (may be NULL): 0 nothing to undo, 1 no decision
 * left, 2 an earlier decision restored.
 */
int ss_index_decision_undo(ss_index *ix, const char *commit, const char *branch, int *restored);

/*
 * The stable branch name decisions are kept under, for name as a user
 * spells it: "21.11", "origin/21.11", "refs/heads/21.11",
 * "refs/remotes/X/21.11" give the local name of the index's stable ref;
 * else a release tag, a commit id, or commit (the full id name resolves
 * to, may be NULL) recorded on exactly one stable branch of the index
 * gives that branch.  SS_ENOTFOUND (message set: the branches the index
 * knows, and the nearest by edit distance) when none; SS_EINVALID when
 * the commit is on several.  out holds size bytes.
 */
int ss_index_branch_identity(char *out, size_t size, ss_index *ix, const char *name,
			     const char *commit);

/*
 * The decision for commit (40 hex digits) on branch: the row of that id,
 * else the newest row whose patch id is the indexed commit's (the same
 * patch under another id).  *found 0 when there is none (out untouched);
 * else out is filled and the caller releases it.
 */
int ss_index_decision_get(ss_decision_owned *out, int *found, ss_index *ix, const char *commit,
			  const char *branch);

/*
 * Every decision (branch NULL) or those of branch, by branch then commit
 * id: the order an export is written in.  The callback's first non-zero
 * return stops the walk and is returned.
 */
int ss_index_for_each_decision(ss_index *ix, const char *branch,
			       int (*cb)(const ss_decision *d, void *ud), void *ud);

/* Every row of the log (branch NULL) or those of branch, oldest first
 * (resets as SS_DECISION_NONE). */
int ss_index_for_each_decision_log(ss_index *ix, const char *branch,
				   int (*cb)(const ss_decision *d, void *ud), void *ud);

/* *out: whether any decision is recorded for branch (NULL: any branch). */
int ss_index_decisions_any(ss_index *ix, const char *branch, int *out);

/*
 * Mark "backported" each decision whose branch carries its commit (a
 * backports row for the commit, or for a mainline commit of its patch id):
 * who "stablesel index", time the branch commit's committer time, note
 * naming the branch commit, so that an update and a fresh build write the
 * same rows.  Runs inside the caller's transaction; *changed (may be
 * NULL) the rows marked.
 */
int ss_index_decisions_derive(ss_index *ix, size_t *changed);

/*
 * Merge decisions[0..n) into the index in one transaction: a decision
 * is appended for its commit and branch when it is newer (time) than the
 * index's,
 * is skipped when older or the same; a conflict is an import row and an
 * index row that differ in state, until or note (whichever is newer wins)
 * and is handed to conflict (may be NULL) with both.  stats (may be NULL):
 * [0] written, [1] kept (older or equal), [2] conflicts.  Nothing is
 * written when any row is refused: besides ss_index_decision_set()'s
 * rules, a patch id that is not the indexed commit's.
 */
int ss_index_decisions_import(ss_index *ix, const ss_decision *decisions, size_t n,
			      void (*conflict)(const ss_decision *theirs, const ss_decision *ours,
					       int theirs_won, void *ud),
			      void *ud, size_t stats[3]);

#endif
