/*
 * dataset.h - featurized commits, kept compactly for training and scoring.
 *
 * Commits stream from a source, are featurized once (ss_dataset_add) and
 * freed by the caller: the dataset keeps per commit its id, author time,
 * label, whether it carried a stable tag before masking, the named
 * features, the hashes of its open-set names and the ids of its distinct
 * words in a dictionary of every word seen.  No vocabulary is chosen here:
 * a model picks its vocabulary from the document frequencies of its own
 * training examples (ss_dataset_vocab), so that test commits added to the
 * same dataset never influence it.  Commits must be added in the order of
 * their source (oldest first): each is featurized with the history of the
 * commits added before it (features/history.h).
 *
 * Model kinds that need something else from a commit (PatchNet's token
 * streams) register an extractor before commits are added; it sees every
 * commit next to the sparse features and keeps its own compact form.
 *
 * A dataset is filled by one thread, then read-only (shared by threads).
 */
#ifndef SS_DATASET_H
#define SS_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"
#include "features/features.h"

typedef struct {
	char id[41];
	int64_t time;     /* author time */
	uint8_t label;    /* 1: reached stable (or carries the tag used as label) */
	uint8_t tagged;   /* carried Cc: stable before masking */
	uint8_t keyword;  /* subject or message says "bug" or "fix" */
	uint8_t part;     /* caller's use (eval: 0 train, 1 test) */
} ss_example;

/* Something more a model kind keeps of every commit. */
typedef struct {
	int kind;                      /* ss_model_kind that asked for it */
	void *state;                   /* owned by the extractor */
	/* called for example i (in order, from 0); 0 or < 0 with message set */
	int (*add)(void *state, const ss_commit *c, size_t i);
	void (*free)(void *state);     /* may be NULL */
} ss_dataset_extractor;

typedef struct ss_dataset ss_dataset;

/* opts: the feature groups and hashing to extract with (copied). */
int ss_dataset_new(ss_dataset **out, const ss_feat_options *opts);
void ss_dataset_free(ss_dataset *d); /* NULL is a no-op; frees extractors */

/* Takes ownership of x->state (freed with x->free, also on failure). */
int ss_dataset_add_extractor(ss_dataset *d, const ss_dataset_extractor *x);
void *ss_dataset_ext(const ss_dataset *d, int kind); /* NULL if none */

/*
 * Featurize c and append it; 0, SS_ENOMEM or an extractor's error.
 *
 * With ss_dataset_set_fold_copies() (train and eval, unless told
 * --keep-copies), one example per patch: a commit whose patch id
 * (commit/patchid.h) an earlier example of the same part has is no new example; that example's
 * label becomes 1 when either is 1 ("reached stable if any copy did").  A
 * copy of an earlier part's patch (a test commit whose patch was trained
 * on) is dropped.  Either way c still joins the history.  Commits without
 * a patch id are always examples.  By default every commit is an
 * example.
 */
int ss_dataset_add(ss_dataset *d, const ss_commit *c, int label, uint8_t part);

/* Example i's subject (its first line, at most SS_DATASET_SUBJECT_MAX
 * bytes), owned by d: what a model shows of a commit it learnt from. */
#define SS_DATASET_SUBJECT_MAX 200
const char *ss_dataset_subject(const ss_dataset *d, size_t i);

/*
 * Append c with the raw features raw instead of extracting them (a row
 * the project index kept, features/feat_store.h): c gives the example's
 * id, time, tag and keyword (its diff is not needed), raw the rest.  c
 * does not join the history: a dataset filled this way is not extracted
 * from afterwards.  Refused (SS_ERROR) with extractors or folded copies.
 * 0, SS_ENOMEM.
 */
int ss_dataset_add_raw(ss_dataset *d, const ss_commit *c, const ss_feat_raw *raw, int label,
		       uint8_t part);

/*
 * Keep only the last keep examples added (the older ones dropped, their
 * words still interned): the newest part of a history read oldest first.  Only for a
 * dataset filled by ss_dataset_add_raw() (no extractors, no folded
 * copies, no history): refused (SS_ERROR) otherwise.  Returns how many
 * it dropped, or < 0.
 */
long ss_dataset_keep_last(ss_dataset *d, size_t keep);

/* The raw features the last ss_dataset_add() extracted, to be kept; NULL
 * when the last add extracted none (a folded copy, an error, add_raw).
 * Valid until the next add. */
const ss_feat_raw *ss_dataset_last_raw(const ss_dataset *d);

/* Where the examples' features came from: observable proof that a
 * training read no diff. */
typedef struct {
	size_t extracted;  /* extracted from commits (ss_dataset_add) */
	size_t stored;     /* given as kept rows (ss_dataset_add_raw) */
} ss_dataset_reads;

void ss_dataset_reads_get(ss_dataset_reads *out, const ss_dataset *d);

/* One example per patch, as above (default 0: every commit an example). */
void ss_dataset_set_fold_copies(ss_dataset *d, int fold);

/* What folding copies did. */
typedef struct {
	size_t folded;     /* copies folded into an example of their part */
	size_t relabelled; /* of them, with a label other than the example's */
	size_t dropped;    /* copies of an earlier part's patch, left out */
} ss_dataset_copies;

void ss_dataset_copies_get(ss_dataset_copies *out, const ss_dataset *d);

size_t ss_dataset_count(const ss_dataset *d);
const ss_example *ss_dataset_example(const ss_dataset *d, size_t i);
ss_example *ss_dataset_example_mut(ss_dataset *d, size_t i);
const ss_feat_options *ss_dataset_options(const ss_dataset *d);

/* The commits added so far, as history for the next one.  _mut: to
 * prime it (releases, older commits) before the first commit is added. */
const ss_history *ss_dataset_history(const ss_dataset *d);
ss_history *ss_dataset_history_mut(ss_dataset *d);

/* The dictionary of every word seen (ids used by the word lists). */
const ss_strmap *ss_dataset_words(const ss_dataset *d);

/*
 * Choose f's vocabulary from the examples idx[0..n): words in at least
 * f->opts.min_df of them, most frequent first, at most f->opts.vocab_size
 * (ties broken alphabetically, so the choice is reproducible).  f->vocab
 * must be empty.  0 or SS_ENOMEM.
 */
int ss_dataset_vocab(ss_featurizer *f, const ss_dataset *d, const size_t *idx, size_t n);

/*
 * A mapping from the dataset's word ids to f's feature indices, for
 * ss_dataset_vector().  Build once per (featurizer, dataset); free().
 */
int ss_dataset_remap(uint32_t **out, const ss_featurizer *f, const ss_dataset *d);

/* The final vector of example i under f (same as ss_featurizer_vector()
 * of the commit); out is reset first. */
int ss_dataset_vector(ss_svec *out, const ss_featurizer *f, const uint32_t *remap,
		      const ss_dataset *d, size_t i);

/*
 * Feature rows of examples in CSR form, as the networks read them (mlp and
 * patchnet-feat): row i holds the nonzeros of example idx[i] under f, the
 * named (dense) features multiplied by scale[] so that log counts and 0/1
 * flags start on the same footing.  Owned arrays; ss_rows_free().
 */
typedef struct ss_rows {
	size_t *row;     /* [n + 1] */
	int32_t *idx;
	float *val;
	size_t n, nnz, cap;
} ss_rows;

/* scale NULL: unscaled. */
int ss_rows_build(ss_rows *out, const ss_featurizer *f, const ss_dataset *d, const size_t *idx,
		  size_t n, const float *scale);
void ss_rows_free(ss_rows *r);   /* zeroes *r; a zeroed one is a no-op */
/* scale[SS_NDENSE]: 1 / the largest |value| of each named feature over the
 * examples idx[0..n) (1 where it is never set). */
int ss_rows_fit_scale(float *scale, const ss_featurizer *f, const ss_dataset *d,
		      const size_t *idx, size_t n);
/* Scale the named features of one vector (score_commit paths). */
void ss_rows_scale_vec(ss_svec *v, const float *scale);

/* Does the commit's message say "bug" or "fix" (any case, substring)?
 * The keyword baseline of the PatchNet paper. */
int ss_commit_says_fix(const ss_commit *c);

/* Memory held, in bytes (for statistics). */
size_t ss_dataset_bytes(const ss_dataset *d);

/* Sort the example indices idx[0..n) of d oldest first (author time;
 * ties by index): the one order training and the time splits use.
 * Thread-safe. */
void ss_dataset_sort_by_time(size_t *idx, size_t n, const ss_dataset *d);

#endif
