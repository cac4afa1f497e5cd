/*
 * rank_onto.h - the --onto stable branches of a ranking (rank, report,
 * review) as the steps of a run (rank_onto.c; docs/review.md): before the
 * model, the branches chosen (named, else the index's, set back by
 * --as-of), opened, each one's identity for the review decisions and the
 * branch whose queue is written; once the model is chosen, the honest
 * replay's cut of the index's stable tree; after the selection, the
 * review decisions applied and the branches' verdicts decided.
 *
 * The project index is read through the run (run.h: ss_run_index_read,
 * a missing one said once a run).  Like the rest of src/run/ nothing
 * prints or exits: 0 or a negative SS_E* code with the message set
 * (*usage 1 when it is the user's mistake: a usage error), the rest said
 * through the options' ss_run_report.
 */
#ifndef SS_RUN_RANK_ONTO_H
#define SS_RUN_RANK_ONTO_H

#include <stddef.h>
#include <stdint.h>

#include "labels/backports.h"
#include "rank/rank.h"
#include "run/branches.h"
#include "run/run.h"

/*
 * The branches of a ranking, filled by ss_run_onto_open() from the
 * --onto names the front end put in onto[0..n); zeroed by the front end
 * first, emptied by ss_run_onto_set_clear().
 */
typedef struct {
	const char *onto[SS_RANK_MAX_BRANCHES];  /* --onto as given, then as opened */
	char *owned[SS_RANK_MAX_BRANCHES];       /* onto[] from the index, malloc'd */
	/* with --as-of: onto[b] became the commit its branch had then
	 * (at[b], malloc'd); asked[b] is the name asked for */
	char *at[SS_RANK_MAX_BRANCHES];
	const char *asked[SS_RANK_MAX_BRANCHES];
	size_t n;
	/* the branch each onto[] is for the decisions (index/index_decisions.h's
	 * identity: "21.11" for origin/21.11 or a tag on it, malloc'd), and
	 * --queue-branch's (queue_ident) */
	char *ident[SS_RANK_MAX_BRANCHES];
	char *queue_ident;
	size_t queue_b;          /* the branch whose queue is written: an index into onto[] */
	ss_run_branches *br;     /* checks, what they carry, verdicts (NULL: none) */
} ss_run_onto_set;

/* What the branches' steps read. */
typedef struct {
	const char *repo;          /* the sources' repository (NULL: none) */
	const char *onto_repo;     /* --onto-repo (NULL: repo) */
	const char *upstream;      /* --onto-upstream (NULL: the index's mainline, else HEAD) */
	const char *verdicts;      /* --verdicts LIST (NULL: none asked) */
	const char *queue_branch;  /* rank's --queue-branch (NULL: the first --onto) */
	const char *const *named;  /* review's --branch names (NULL) */
	size_t nnamed;             /* 0 */
	int64_t as_of;             /* --as-of (0: today) */
	ss_run *run;               /* lends the repositories and the index (NULL: each opens) */
	const char *db;            /* --db FILE (NULL: the repository's own index) */
	int no_index;              /* --no-index (0) */
	const char *stable;        /* --stable SOURCE: the labels are the user's, never cut (NULL) */
	int queue_extras;          /* a queue reads the prerequisites the ranking lacks (0) */
	int show_decided;          /* --all: rows decided for every branch listed too (0) */
	const ss_run_report *rp;   /* NULL: nothing said */
} ss_run_onto_options;

#define SS_RUN_ONTO_OPTIONS_INIT { NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, \
	NULL, 0, 0, NULL }

/*
 * Before the model and the ranking, so that a bad --onto, --verdicts or
 * --queue-branch fails before any work: --verdicts checked, s->onto
 * deduplicated, the branches chosen and opened (rank_stream.h:
 * ss_run_rank_onto; without --onto, when --onto-repo or --verdicts asks
 * for branches, the index's stable branches), the identity of each and
 * of --queue-branch (a branch the index must know), review's --branch
 * names taken for an --onto that is no branch of the index, and
 * s->queue_b (run/branches.h: ss_run_queue_branch).
 */
int ss_run_onto_open(ss_run_onto_set *s, int *usage, const ss_run_onto_options *o);

/*
 * An honest replay (run/replay_cut.h), once the model is chosen: *label,
 * the index's backports (not a --stable tree: the user's), becomes those
 * up to the newest tip of the --onto branches given[0..ngiven) (as named,
 * not the index's, not set back by --as-of) when one of them is set back.
 * Nothing without --onto, a label or an index.  0 or < 0.
 */
int ss_run_onto_cut(ss_backports **label, const char *const *given, size_t ngiven,
		    const ss_run_onto_options *o);

/*
 * After the selection: the review decisions of the index (of o->repo)
 * applied to r for the branches (run/decisions_open.h:
 * ss_run_decisions_apply_onto; no index: none), then, with branches, each
 * one's verdicts decided and the rows --verdicts names kept
 * (run/branches.h: ss_run_branches_decide).  0 or < 0; *usage as above.
 */
int ss_run_onto_decide(ss_ranking *r, ss_run_onto_set *s, int *usage,
		       const ss_run_onto_options *o);

/* Free what s holds and zero it. */
void ss_run_onto_set_clear(ss_run_onto_set *s);

#endif
