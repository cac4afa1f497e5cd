/*
 * git_rename.c - rename detection for a tree diff: libgit2 1.5's
 * git_diff_find_similar() result, with less of its scoring
 * (ss_git_find_renames() in git_impl.h).
 *
 * libgit2 scores every added file (a target) against every deleted one
 * (a source), in delta order, and keeps a pair when its score beats both
 * the target's and the source's current partner; a partner pushed out
 * makes it go over all pairs again, until nothing moves.  A pair of the
 * same blob scores 100 without reading anything; any other pair costs a
 * comparison of two similarity signatures (git_hashsig_compare), and a
 * commit that moves a directory of 858 files makes 490,380 of them
 * (DPDK 99a2dd955f: 0.57 s, where git pairs exact renames first).
 *
 * No score exceeds 100, so a pair whose target or source already has a
 * partner at 100 can change nothing: here the same passes run, over the
 * same pairs in the same order, with the same scores (libgit2's own
 * signatures, with the options its default metric uses), but such pairs
 * are not scored.  What libgit2 would pair is then known.  It is handed
 * to libgit2 so that libgit2 rewrites the deltas itself (statuses, order,
 * similarity), in one of two ways, each checked first by the same passes
 * with the scores libgit2 will then see:
 *  - GIT_DIFF_FIND_EXACT_MATCH_ONLY: 100 for the same blob, 0 for the
 *    rest, nothing read (when every rename is of the same blob);
 *  - a metric that gives each rename its score and every other pair 0
 *    (the same blob still scores 100 without asking the metric): the
 *    blobs are read again, but not compared.
 * When neither gives the same renames with the same scores, and whenever
 * a diff holds what this file does not follow (other statuses; more
 * sources than the rename limit, which libgit2 counts differently; an
 * unreadable blob), libgit2 scores every pair as before.  Small commits
 * go to libgit2 directly: reading their blobs twice would cost more than
 * the comparisons saved.  This follows libgit2 1.5 (Debian 12's; later
 * 1.x releases match the same way), and only runs on a libgit2 1.5 or
 * later 1.x; the tests compare the two on crafted and random renames,
 * and SS_GIT_DIFF=libgit2 turns it off (git.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <git2/sys/hashsig.h>

#include "source/git_impl.h"

enum {
	RN_EXACT = 100,      /* a pair of the same blob; no score is higher */
	RN_THRESHOLD = 50,   /* libgit2's default rename threshold */
	RN_MIN_PAIRS = 64    /* fewer (sources x targets): libgit2 alone */
};

/* One side libgit2 scores: a source's old file or a target's new file. */
struct rn_file {
	const git_diff_file *file;  /* in libgit2's delta */
	int loaded;                 /* size and sig are read */
	git_object_size_t size;
	git_hashsig *sig;
	size_t match;               /* partner: index in the other list */
	int sim;                    /* its score; 0: none */
	const struct rn_file *pick; /* the partner renamed to or from, if any */
	int pick_sim;               /* (a target's) its score */
};

struct rn {
	git_repository *repo;
	struct rn_file *srcs, *tgts;
	size_t nsrcs, ntgts;
	struct rn_file **by_file;   /* every file, sorted by its git_diff_file */
};

/* libgit2's GIT_MODE_ISBLOB: a regular file, executable or not. */
static int is_blob_mode(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

/* Read f's size and signature (the options of libgit2's default metric). */
static int rn_load(struct rn *r, struct rn_file *f)
{
	git_blob *blob = NULL;
	int err;

	if (f->loaded)
		return 0;
	if (git_blob_lookup(&blob, r->repo, &f->file->id) < 0)
		return -1;
	f->size = git_blob_rawsize(blob);
	err = git_hashsig_create(&f->sig, git_blob_rawcontent(blob), (size_t)f->size,
				 GIT_HASHSIG_SMART_WHITESPACE | GIT_HASHSIG_ALLOW_SMALL_FILES);
	git_blob_free(blob);
	if (err < 0) {
		f->sig = NULL;
		return -1;
	}
	f->loaded = 1;
	return 0;
}

/* How pairs are scored: as libgit2's default metric does, as it does
 * with GIT_DIFF_FIND_EXACT_MATCH_ONLY, as with the metric of the pairs
 * found (oracle_similarity() below). */
enum rn_mode { RN_REAL, RN_EXACT_ONLY, RN_PICKED };

/* libgit2's score of source s against target t: -1 (not comparable),
 * 0..100; *err < 0 when something could not be read.  Outside RN_REAL a
 * pair not scored is 0 where libgit2 may say -1: neither ever wins. */
static int rn_score(struct rn *r, struct rn_file *s, struct rn_file *t, enum rn_mode mode,
		    int *err)
{
	git_object_size_t a, b;
	int sc;

	if (git_oid_equal(&s->file->id, &t->file->id))
		return RN_EXACT;
	if (mode == RN_EXACT_ONLY)
		return 0;
	if (mode == RN_PICKED)
		return s->pick == t && t->pick == s ? t->pick_sim : 0;
	if (rn_load(r, s) < 0 || rn_load(r, t) < 0) {
		*err = -1;
		return -1;
	}
	a = s->size;
	b = t->size;
	/* sizes nowhere near each other */
	if (a > 127 && b > 127 && (a > (b << 3) || b > (a << 3)))
		return -1;
	sc = git_hashsig_compare(s->sig, t->sig);
	if (sc < 0)
		*err = -1;
	return sc;
}

/*
 * The passes of libgit2's matching with the scores of mode, without the
 * pairs that cannot win; the result in each file's match and sim.
 */
static int rn_match(struct rn *r, enum rn_mode mode)
{
	size_t i, j, bumped;
	int err = 0;

	for (i = 0; i < r->nsrcs; i++)
		r->srcs[i].sim = 0;
	for (j = 0; j < r->ntgts; j++)
		r->tgts[j].sim = 0;
	do {
		bumped = 0;
		for (j = 0; j < r->ntgts; j++) {
			struct rn_file *t = &r->tgts[j];

			for (i = 0; i < r->nsrcs; i++) {
				struct rn_file *s = &r->srcs[i];
				int sc;

				if (t->sim >= RN_EXACT)
					break;  /* nothing beats it, for any source */
				if (s->sim >= RN_EXACT)
					continue;
				sc = rn_score(r, s, t, mode, &err);
				if (err)
					return err;
				if (sc < 0 || t->sim >= sc || s->sim >= sc)
					continue;
				/* the partners pushed out: another pass */
				if (s->sim > 0) {
					r->tgts[s->match].sim = 0;
					bumped++;
				}
				if (t->sim > 0) {
					r->srcs[t->match].sim = 0;
					bumped++;
				}
				t->match = i;
				t->sim = sc;
				s->match = j;
				s->sim = sc;
			}
		}
	} while (bumped);
	return 0;
}

/* The renames of the last rn_match() (pairs at the threshold or above)
 * into pick; 1 when every one is of the same blob. */
static int rn_pick(struct rn *r)
{
	size_t i, j;
	int exact = 1;

	for (i = 0; i < r->nsrcs; i++)
		r->srcs[i].pick = NULL;
	for (j = 0; j < r->ntgts; j++) {
		struct rn_file *t = &r->tgts[j], *s = &r->srcs[t->match];

		t->pick = NULL;
		if (t->sim < RN_THRESHOLD)
			continue;
		t->pick = s;
		t->pick_sim = t->sim;
		s->pick = t;
		exact &= git_oid_equal(&t->file->id, &s->file->id);
	}
	return exact;
}

/* Does the last rn_match() give the renames in pick, with their scores? */
static int rn_same_picks(const struct rn *r)
{
	size_t j;

	for (j = 0; j < r->ntgts; j++) {
		const struct rn_file *t = &r->tgts[j];

		if (t->sim < RN_THRESHOLD ? t->pick != NULL :
		    t->pick != &r->srcs[t->match] || t->pick_sim != t->sim)
			return 0;
	}
	return 1;
}

/* ---- the metric that hands libgit2 the pairs ---- */

static int cmp_file_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)(*(struct rn_file *const *)a)->file;
	uintptr_t y = (uintptr_t)(*(struct rn_file *const *)b)->file;

	return x < y ? -1 : x > y;
}

/* Never called for a tree diff (no work directory). */
static int oracle_file_sig(void **out, const git_diff_file *file, const char *fullpath,
			   void *payload)
{
	(void)file;
	(void)fullpath;
	(void)payload;
	*out = NULL;
	return 0;
}

/* The "signature" of a file is its record, found by libgit2's pointer. */
static int oracle_buffer_sig(void **out, const git_diff_file *file, const char *buf,
			     size_t buflen, void *payload)
{
	struct rn *r = payload;
	size_t lo = 0, hi = r->nsrcs + r->ntgts;

	(void)buf;
	(void)buflen;
	*out = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t p = (uintptr_t)r->by_file[mid]->file;

		if (p == (uintptr_t)file) {
			*out = r->by_file[mid];
			break;
		}
		if (p < (uintptr_t)file)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void oracle_free(void *sig, void *payload)
{
	(void)sig;
	(void)payload;
}

/* a is a source's, b a target's: the kept pair's score, else 0. */
static int oracle_similarity(int *score, void *a, void *b, void *payload)
{
	const struct rn_file *s = a, *t = b;

	(void)payload;
	*score = s->pick == t && t->pick == s ? t->pick_sim : 0;
	return 0;
}

static void rn_free(struct rn *r)
{
	size_t i;

	for (i = 0; i < r->nsrcs; i++)
		git_hashsig_free(r->srcs[i].sig);
	for (i = 0; i < r->ntgts; i++)
		git_hashsig_free(r->tgts[i].sig);
	free(r->srcs);
	free(r->tgts);
	free(r->by_file);
}

/*
 * The sources and targets of diff as libgit2 1.5 labels them with
 * GIT_DIFF_FIND_RENAMES alone: 1, or 0 when a delta is of a kind this
 * file does not follow (then libgit2 decides alone), -1 out of memory.
 */
static int rn_collect(struct rn *r, git_diff *diff)
{
	size_t i, n = git_diff_num_deltas(diff), ns = 0, nt = 0;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_DELETED)
			ns += is_blob_mode(d->old_file.mode);
		else if (d->status == GIT_DELTA_ADDED)
			nt += is_blob_mode(d->new_file.mode);
		else if (d->status != GIT_DELTA_MODIFIED)
			return 0;
	}
	if (!ns || !nt)
		return 0;
	r->srcs = calloc(ns, sizeof(*r->srcs));
	r->tgts = calloc(nt, sizeof(*r->tgts));
	r->by_file = malloc((ns + nt) * sizeof(*r->by_file));
	if (!r->srcs || !r->tgts || !r->by_file)
		return -1;
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_DELETED && is_blob_mode(d->old_file.mode)) {
			r->srcs[r->nsrcs++].file = &d->old_file;
		} else if (d->status == GIT_DELTA_ADDED && is_blob_mode(d->new_file.mode)) {
			r->tgts[r->ntgts++].file = &d->new_file;
		}
	}
	for (i = 0; i < r->nsrcs; i++)
		r->by_file[i] = &r->srcs[i];
	for (i = 0; i < r->ntgts; i++)
		r->by_file[r->nsrcs + i] = &r->tgts[i];
	qsort(r->by_file, r->nsrcs + r->ntgts, sizeof(*r->by_file), cmp_file_ptr);
	return 1;
}

/* The libgit2 whose matching this file follows (see the top). */
static int libgit2_known(void)
{
	int major = 0, minor = 0, rev = 0;

	git_libgit2_version(&major, &minor, &rev);
	return major == 1 && minor >= 5;
}

int ss_git_find_renames(git_diff *diff, git_repository *repo, unsigned rename_limit,
			int libgit2_only)
{
	git_diff_find_options fopts;
	git_diff_similarity_metric metric;
	struct rn r;
	int rc, exact_only = 0, fast = 0;

	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = rename_limit;
	memset(&r, 0, sizeof(r));
	r.repo = repo;
	/*
	 * The renames libgit2 would find; then the same passes with the
	 * scores libgit2 will see with less work (exact matches only, or the
	 * metric of those renames): when they give the same renames, libgit2
	 * is run that way.
	 */
	if (!libgit2_only && libgit2_known() && rn_collect(&r, diff) > 0 && r.nsrcs <= rename_limit &&
	    r.nsrcs * r.ntgts >= RN_MIN_PAIRS && rn_match(&r, RN_REAL) == 0) {
		if (rn_pick(&r) && rn_match(&r, RN_EXACT_ONLY) == 0 && rn_same_picks(&r))
			fast = exact_only = 1;
		else if (rn_match(&r, RN_PICKED) == 0 && rn_same_picks(&r))
			fast = 1;
	}
	if (fast && exact_only) {
		fopts.flags |= GIT_DIFF_FIND_EXACT_MATCH_ONLY;
	} else if (fast) {
		memset(&metric, 0, sizeof(metric));
		metric.file_signature = oracle_file_sig;
		metric.buffer_signature = oracle_buffer_sig;
		metric.free_signature = oracle_free;
		metric.similarity = oracle_similarity;
		metric.payload = &r;
		fopts.metric = &metric;
	}
	/* anything this file did not follow: libgit2 scores as it always did */
	git_error_clear();
	if ((rc = git_diff_find_similar(diff, &fopts)) == 0)
		rc = !fast ? 0 : exact_only ? 1 : 2;
	rn_free(&r);
	return rc;
}
