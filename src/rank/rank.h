/*
 * rank.h - commits ordered by score for a stable reviewer, with reasons,
 * the facts a maintainer acts on, the kernel's stable rules, and
 * precedents.
 *
 * A ranking keeps one small row per scored commit while the commits
 * themselves stream by and are freed: id, subject, author, score, flags
 * (already tagged for stable and the tag's version hint, Fixes: targets,
 * reported by a bot, already in a stable tree, over 100 lines), the
 * features that raised the score most, and, when an output needs them,
 * the message and the diff (ss_ranker_options.keep).  For precedents it
 * also keeps every commit's sparse feature vector (unit length), those of
 * --history commits included.
 *
 * Kernel rules hold commits back, whatever their score: a
 * "Cc: <stable+noautosel@kernel.org>" line and a policy rule (policy.h).
 * Held rows are never picks and never shown in the list; they are counted
 * and listed apart.
 *
 * Each row gets a verdict band (models/bands.h) from its score and the
 * model's cut points (--threshold moves the likely cut): yes, likely,
 * unsure or no; ss_ranking_select() turns a yes, likely or unsure row into
 * "wait" when it may not go yet: younger than the minimum age in mainline
 * (SS_RANK_TOO_YOUNG), or its Cc: stable line asks for a delay that has
 * not passed (SS_RANK_AFTER: "# after -rcN" waits N weeks, as release
 * candidates come weekly; "# after N weeks" or "days" that long; any other
 * "# after ..." or "# wait ..." a week), both counted from its committer
 * time to the ranking's now.  Wait rows are listed but never picks.
 *
 * Rows sort by score, highest first, ties in stream order.  Strings a row
 * gives out live as long as the ranking and are never NULL ("" when none).
 */
#ifndef SS_RANK_H
#define SS_RANK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "commit/commit.h"
#include "labels/backports.h"
#include "labels/labels.h"
#include "features/history.h"
#include "models/model.h"
#include "queue/verdict_data.h"
#include "rank/policy.h"
#include "util/strbuf.h"

typedef enum {
	SS_RANK_TEXT = 0,
	SS_RANK_TSV = 1,
	SS_RANK_JSON = 2,  /* JSON lines: one object a row */
	SS_RANK_CSV = 3,
	SS_RANK_MBOX = 4   /* the picks as git format-patch messages */
} ss_rank_format;

/* Row flags. */
enum {
	SS_RANK_TAGGED = 1u << 0,     /* carries Cc: stable@ (or had it, masked) */
	SS_RANK_NOAUTOSEL = 1u << 1,  /* Cc: stable+noautosel@: never proposed */
	SS_RANK_BOT = 1u << 2,        /* reported by a bot */
	SS_RANK_IN_STABLE = 1u << 3,  /* the --stable tree carries it */
	SS_RANK_TOO_BIG = 1u << 4,    /* over 100 lines added + removed */
	SS_RANK_TOO_YOUNG = 1u << 5,  /* younger than the minimum age */
	SS_RANK_POLICY = 1u << 6,     /* held back by a policy rule */
	SS_RANK_FIXES = 1u << 7,      /* has a Fixes: trailer */
	SS_RANK_TRUNCATED = 1u << 8,  /* its diff was read capped: no patch */
	SS_RANK_BINARY = 1u << 9,     /* binary files: the patch cannot carry them */
	SS_RANK_COPIES = 1u << 10,    /* the same patch came under other ids too */
	SS_RANK_AFTER = 1u << 11,     /* its Cc: stable asks to wait, not yet passed */
	SS_RANK_EXTRA = 1u << 12,     /* a prerequisite read for a queue: not ranked, never listed */
	SS_RANK_ACCEPTED = 1u << 13   /* accepted in review for the queue's branch: a pick whatever
	                               * it scores (ss_ranking_set_review()) */
};
#define SS_RANK_HELD (SS_RANK_NOAUTOSEL | SS_RANK_POLICY)
/* What turns a yes, likely or unsure row into "wait". */
#define SS_RANK_WAITING (SS_RANK_TOO_YOUNG | SS_RANK_AFTER)

/* The stable rules' size limit, lines added + removed. */
#define SS_RANK_MAX_LINES 100

/* Most reasons kept per row, most precedents shown per pick. */
#define SS_RANK_MAX_REASONS 16
#define SS_RANK_MAX_PRECEDENTS 8

typedef enum {
	SS_RANK_KEEP_NONE = 0,    /* no message, no diff */
	SS_RANK_KEEP_PATCH = 1,   /* message and whole diff of picks (mbox) */
	SS_RANK_KEEP_DETAILS = 2, /* message and diff capped at diff_cap lines, every row */
	SS_RANK_KEEP_ALL = 3      /* message and whole diff of every row (a queue's
				     prerequisites and follow-ups score lower) */
} ss_rank_keep;

typedef struct {
	size_t nreasons;          /* reasons kept per row, 0..16 (5) */
	ss_rank_keep keep;        /* (SS_RANK_KEEP_NONE) */
	size_t diff_cap;          /* diff lines kept with KEEP_DETAILS (200) */
	int precedents;           /* keep feature vectors for precedents (1) */
	double threshold;         /* picks score at least this; < 0: the model's (-1) */
	int explain_all;          /* reasons for every row, not only picks (0) */
	const ss_policy *policy;  /* subsystem rules (NULL) */
	ss_backports *stable;         /* a stable tree read with ss_backports_read (NULL) */
	const ss_labels *labels;  /* which commits reached stable (NULL) */
} ss_ranker_options;

#define SS_RANKER_OPTIONS_INIT { 5, SS_RANK_KEEP_NONE, 200, 1, -1.0, 0, NULL, NULL, NULL }

typedef struct {
	size_t top;           /* at most this many rows shown, 0 = all (0) */
	double min_score;     /* only rows scoring at least this (-1: all) */
	size_t budget;        /* at most this many picks, 0 = no limit (0) */
	int untagged_only;    /* hide commits already tagged for stable (0) */
	double min_age_days;  /* commits younger than this in mainline wait (0) */
	int64_t now;          /* reference time for the age; 0: newest commit read (0) */
	int keep_copies;      /* list every copy of a patch, not one row per patch (0) */
} ss_rank_select;

#define SS_RANK_SELECT_INIT { 0, -1.0, 0, 0, 0.0, 0, 0 }

typedef struct {
	ss_rank_format format;  /* (SS_RANK_TEXT) */
	int color;              /* ANSI colours in text (0) */
	size_t precedents;      /* precedents per pick (3) */
	size_t precedent_rows;  /* only the first this many shown picks get them (100) */
	const char *branch;     /* mbox: "[PATCH stablesel BRANCH n/m]" (NULL: none) */
	/* mbox with verdicts (ss_ranking_set_branches): the queue of branch
	 * queue_branch; each message carries backport_line (a printf format
	 * with one %s for the upstream id) */
	size_t queue_branch;    /* (0) */
	const char *backport_line; /* (NULL: "[ Upstream commit %s ]") */
} ss_rank_write_options;

#define SS_RANK_WRITE_OPTIONS_INIT { SS_RANK_TEXT, 0, 3, 100, NULL, 0, NULL }

/* Stable branches a ranking carries verdicts for, at most. */
#define SS_RANK_MAX_BRANCHES 16

/*
 * A row's verdict for one stable branch is a ss_verdict_data
 * (queue/verdict_data.h: check/verdict.h decides it, ss_verdict_export()
 * makes it; the ranking only keeps and shows it).
 */

typedef struct ss_ranking ss_ranking;

/* A row as the writers see it (pointers valid until the next add). */
/* What raised a row's score: a feature and its contribution to the logit
 * (rounded to 3 decimals, as every output shows it), highest first. */
typedef struct {
	const char *feature;
	float contribution;
} ss_rank_reason;

typedef struct {
	const char *id, *subject, *author; /* author: "Name <email>" */
	float score;
	ss_band band;         /* verdict (final after ss_ranking_select) */
	int pick;             /* proposed (after ss_ranking_select) */
	int shown;            /* in the list (after ss_ranking_select) */
	int copy;             /* a copy of a better row's patch: never listed (select) */
	unsigned flags;       /* SS_RANK_* */
	size_t order;         /* position in the stream, from 0 */
	int64_t time;         /* committer time (author time when unknown) */
	int64_t author_time;
	int author_tz;
	int64_t wait_until;   /* its Cc: stable's delay ends (0: none asked) */
	size_t lines;         /* added + removed */
	int label;            /* reached stable per labels/--stable: 1, 0, -1 unknown */
	const char *stable_hint; /* "5.10+" of "Cc: stable@... # 5.10+" */
	const char *fixes;    /* "sha subject" lines of the Fixes: targets */
	const char *bot;      /* the reporting bot */
	const char *branches; /* stable branches carrying it */
	const char *policy;   /* the policy rule holding it back */
	const char *copies;   /* ids of the other commits with this patch, space-separated */
	const ss_rank_reason *reasons; /* nreasons of them; owned by the ranking */
	size_t nreasons;
	const char *message;  /* kept message (keep) */
	const char *diff;     /* kept diff (keep) */
	size_t diff_cut;      /* diff lines left out of diff */
	/* one per branch of ss_ranking_set_branches(), when set (else 0) */
	ss_verdict_data verdicts[SS_RANK_MAX_BRANCHES]; /* text filled; strings "" when none */
	size_t nverdicts;
	const char *review;   /* its review decisions, "accepted 21.11" ("" none) */
} ss_rank_row;

/* A similar earlier commit. */
typedef struct {
	const char *id, *subject;
	float score;          /* the model's score of it */
	float similarity;     /* cosine of the feature vectors */
	int label;            /* reached stable: 1, 0, -1 unknown (no labels) */
	const char *branches; /* stable branches when --stable was read, "" */
} ss_rank_precedent;

/* m is borrowed and must outlive the ranking; o may be NULL. */
int ss_ranking_new(ss_ranking **out, const ss_model *m, const ss_ranker_options *o);
void ss_ranking_free(ss_ranking *r); /* NULL is a no-op */

/*
 * Score c with the history hist of the commits before it and add it as a
 * row; with history_only it only becomes a precedent and a Fixes: target
 * for later commits.  The caller adds c to hist afterwards and may free c.
 */
int ss_ranking_feed(ss_ranking *r, const ss_commit *c, const ss_history *hist, int history_only);

/*
 * Add c as a row with a given score and reasons (no model involved);
 * kept for tests and callers that score themselves.
 */
int ss_ranking_add(ss_ranking *r, const ss_commit *c, float score, int decision,
		   const ss_contrib *why, size_t nwhy);

/*
 * Verdicts per stable branch.  ss_ranking_set_branches() names the
 * branches (at most SS_RANK_MAX_BRANCHES; names copied);
 * ss_ranking_set_verdict() gives row i (sorted order) its verdict for
 * branch b (its ids and strings copied; its text made).  Verdicts never change a score: after them,
 * ss_ranking_restrict() takes row i out of the picks (pick 0) or of the
 * list (shown 0); it never adds.  0 or SS_ENOMEM / SS_EINVALID.
 */
int ss_ranking_set_branches(ss_ranking *r, const char *const *names, size_t n);
size_t ss_ranking_branch_count(const ss_ranking *r);
const char *ss_ranking_branch(const ss_ranking *r, size_t b);
int ss_ranking_set_verdict(ss_ranking *r, size_t i, size_t b, const ss_verdict_data *v);
void ss_ranking_restrict(ss_ranking *r, size_t i, int pick, int shown);

/*
 * The review decisions of row i (index/index_decisions.h; rank_review.c): review
 * ("accepted 21.11; rejected 20.11", copied) is shown among its flags;
 * force_pick makes the row a shown pick whatever its score (a queue holds
 * the accepted commits).  To hide a row, ss_ranking_restrict().  0 or
 * SS_ENOMEM / SS_EINVALID.
 */
int ss_ranking_set_review(ss_ranking *r, size_t i, const char *review, int force_pick);

/*
 * Add c as a prerequisite a queue needs that was not ranked (read from the
 * stable branch's repository): a row flagged SS_RANK_EXTRA with its
 * message and diff, never shown and never a pick.  After select.
 */
int ss_ranking_add_extra(ss_ranking *r, const ss_commit *c);

/* Row index (sorted order) of commit id (full), or (size_t)-1. */
size_t ss_ranking_find(const ss_ranking *r, const char *id);

/* Sort by score (highest first, stable). */
void ss_ranking_sort(ss_ranking *r);

/* Sort, apply the age rule, and mark the rows shown and picked. */
void ss_ranking_select(ss_ranking *r, const ss_rank_select *s);

size_t ss_ranking_count(const ss_ranking *r);
size_t ss_ranking_picks(const ss_ranking *r);
float ss_ranking_score(const ss_ranking *r, size_t i);
const char *ss_ranking_id(const ss_ranking *r, size_t i);
double ss_ranking_threshold(const ss_ranking *r);
/*
 * Move the threshold to t once every commit is fed, before
 * ss_ranking_select(): each row's decision and the likely band's cut
 * follow.  Reasons and kept text are made at the feed for the rows above
 * the threshold then: a ranking whose threshold moves down is made with
 * explain_all (and SS_RANK_KEEP_ALL for a queue).
 */
void ss_ranking_set_threshold(ss_ranking *r, double t);
/* The threshold that proposes share of the rows (eval/lopo.h's count;
 * ties at the cut all go in), set with ss_ranking_set_threshold(): *t,
 * and *picked the rows at or above it.  0 or SS_ENOMEM. */
int ss_ranking_pick_share(ss_ranking *r, float share, size_t *picked, double *t);
/* The cut points the rows are banded with (the model's, likely moved to
 * --threshold; from the threshold without a model). */
const ss_bands *ss_ranking_bands(const ss_ranking *r);
/* Rows of each band among those listed (after select), n[SS_BAND_WAIT + 1]. */
void ss_ranking_band_counts(size_t *n, const ss_ranking *r);
/* The end of the delay a Cc: stable hint ("after -rc3") asks for, counted
 * from time; 0 when it asks none. */
int64_t ss_rank_hint_wait(const char *hint, int64_t time);
int64_t ss_ranking_now(const ss_ranking *r);
const ss_rank_select *ss_ranking_selection(const ss_ranking *r);

/* Row i of the sorted ranking. */
void ss_ranking_row(ss_rank_row *out, const ss_ranking *r, size_t i);

/*
 * The max commits most similar to row i among the settled history before
 * it (the commits fed with history_only: older than the ranked range, so
 * their fate in stable is known), most similar first; with labels, only
 * those the labels know.  A commit of the ranked batch is never one: its
 * own fate is as open as row i's.  Returns how many were written; 0 when
 * the model has no sparse features.
 */
size_t ss_ranking_precedents(ss_rank_precedent *out, size_t max, const ss_ranking *r, size_t i);

/* The flags of row w in words ("tagged stable 5.10+; fixes <sha> <subject>;
 * reported by syzbot ..."), joined by sep, appended to sb. */
void ss_rank_flags_text(ss_strbuf *sb, const ss_rank_row *w, const char *sep);

/* The reasons of row w in words with their contributions, at most max,
 * joined by sep ("fix of a fix (+1.000); touches drivers/net (+0.500)"),
 * appended to sb: what every output shows a maintainer (text, mbox note,
 * report, review).  A Cc: stable@ line is one reason, though the model
 * sees it as a trailer and as a message key. */
void ss_rank_reasons_text(ss_strbuf *sb, const ss_rank_row *w, size_t max, const char *sep);

/* The prerequisites of verdict v (a row's of r) with their subjects and
 * scores, newest first: "bc1db4f45af3 (\"subject\", score 0.036), ..."
 * ("not ranked" for one read apart for the queue), appended to sb.  What
 * accepting the pick pulls into the branch's queue. */
void ss_ranking_needs_text(ss_strbuf *sb, const ss_ranking *r, const ss_verdict_data *v);

/* Precedent p as a line: "<id> 0.74 [stable 21.11] subject" ("[not in
 * stable]", or "[score 0.123]" when its fate is not known), ANSI colours
 * with color; appended to sb. */
void ss_rank_precedent_text(ss_strbuf *sb, const ss_rank_precedent *p, int color);

/* Write the selected rows; m describes the model in headers (may be
 * NULL).  0 or SS_ERROR when writing fails. */
int ss_ranking_write(ss_ranking *r, FILE *f, const ss_rank_write_options *o, const ss_model *m);

#endif
