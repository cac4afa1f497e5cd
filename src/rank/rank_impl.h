/*
 * rank_impl.h - the inside of a ranking, shared by ranking.c (rows,
 * selection, precedents) and rank_write.c (output formats).  Not for use
 * outside src/rank/.
 */
#ifndef SS_RANK_IMPL_H
#define SS_RANK_IMPL_H

#include "commit/patchid.h"
#include "features/features.h"
#include "history/histidx.h"
#include "queue/queue.h"
#include "rank/rank.h"
#include "util/arena.h"
#include "util/strbuf.h"

struct ss_rank_rowdata {
	char id[41];
	float score;
	int decision;          /* score >= threshold */
	ss_band band;          /* from the score; wait after select */
	int64_t wait_until;    /* ss_rank_hint_wait of its hint */
	int pick, shown;       /* set by ss_ranking_select */
	int copy;              /* folded into a better row of the same patch (select) */
	uint64_t patch;        /* the patch id's first 64 bits; 0: none */
	uint64_t change;       /* ss_commit_change_key(): the patch across
				* rebases onto other context; 0: none */
	ss_near_sketch near;   /* a near copy's author key and sketch */
	unsigned flags;
	int label;
	size_t order, prec;    /* stream position; index into prec, (size_t)-1 none */
	int64_t time, author_time;
	int author_tz;
	size_t lines, diff_cut;
	/* offsets into the pool, 0 = "" */
	size_t subject, author, hint, fixes, bot, branches, policy, message, diff, copies;
	ss_rank_reason *reasons; /* in the arena */
	size_t nreasons;
	size_t vd;             /* index into vdata, (size_t)-1: no verdicts */
	size_t review;         /* pool offset: its review decisions (rank_review.c) */
};

/* A row's verdicts, per branch: pool offsets (text, detail, reverted_by),
 * the ids as offsets into the ranking's vids, the rest as it came. */
struct ss_rank_vdata {
	size_t text[SS_RANK_MAX_BRANCHES], detail[SS_RANK_MAX_BRANCHES];
	size_t reverted[SS_RANK_MAX_BRANCHES];
	size_t needs[SS_RANK_MAX_BRANCHES], nneeds[SS_RANK_MAX_BRANCHES];
	size_t follow[SS_RANK_MAX_BRANCHES], nfollow[SS_RANK_MAX_BRANCHES];
	ss_verdict_word word[SS_RANK_MAX_BRANCHES];
	unsigned series_n[SS_RANK_MAX_BRANCHES], series_total[SS_RANK_MAX_BRANCHES];
	unsigned series_shown; /* bit b: the words of branch b name the series */
	unsigned propose;      /* bit b: proposed for branch b */
};

/* Every commit read, history included, as a precedent candidate. */
struct ss_rank_prec {
	char id[41];
	float score;
	uint64_t patch;        /* as in the rows */
	uint64_t change;       /* as in the rows */
	size_t subject;        /* pool offset */
	size_t voff, vlen;     /* its unit vector in vidx/vval */
	int settled;           /* read as history (before the ranked range): only
				  these are precedents, their fate in stable known
				  where the batch's own is still open */
};

struct ss_ranking {
	const ss_model *m;
	const ss_featurizer *feat; /* NULL: no precedents */
	ss_ranker_options opts;
	double threshold;
	ss_bands bands;        /* the model's, likely at threshold */
	struct ss_rank_rowdata *rows;
	size_t n, cap, picks;
	int sorted, selected;
	ss_rank_select sel;
	int64_t newest, now;
	struct ss_rank_prec *prec;
	size_t nprec, pcap;
	uint32_t *vidx;
	float *vval;
	size_t vn, vcap;
	ss_svec vec;           /* scratch */
	ss_histidx *idx;       /* Fixes: targets among the commits read */
	ss_strbuf pool;        /* NUL-separated strings */
	ss_arena *arena;       /* reasons: structs and feature names, never moved */
	char *branch[SS_RANK_MAX_BRANCHES]; /* ss_ranking_set_branches */
	size_t nbranches;
	struct ss_rank_vdata *vdata;
	size_t nvd, vdcap;
	ss_verdict_id *vids;   /* the verdicts' needs and follow-ups */
	size_t nvids, vidcap;
};

/* Branch b's queue (queue/queue.h) over the rows, as the mbox writes it
 * and the report shows it (rank_write.c); roles has r->n elements, queue
 * too.  0 or < 0 with the message set. */
int ss_ranking_queue_of(ss_ranking *r, ss_queue_role *roles, size_t *queue, size_t *nqueue, size_t b);

#endif
