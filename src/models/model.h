/*
 * model.h - the one interface every model kind implements, and the model
 * file.
 *
 * A model takes commits: it is trained on an ss_dataset (commits
 * featurized while streaming, plus whatever a kind's extractor keeps of
 * them) and scores either dataset examples (evaluation) or ss_commits
 * (ranking, explaining).  Kinds:
 *
 *   keyword   positive when the message says "bug" or "fix" (PatchNet's
 *             baseline); nothing learnt
 *   linear    L2-regularised logistic regression (liblinear); C chosen on
 *             the validation slice
 *   mlp       feedforward network on the sparse features (Levin's
 *             AUTOSEL): hidden ReLU layer(s), dropout, class weighting,
 *             Adam, early stopping on the validation slice
 *   patchnet  CNN over message and code tokens (models/patchnet*.c)
 *   patchnet-feat  the same CNN with a branch for the sparse features and
 *             a linear path from them to the logit, started from a
 *             trained mlp
 *   tag       pseudo-model for evaluation: positive iff the commit carried
 *             Cc: stable (before masking)
 *
 * Training (ss_model_train) orders the training examples by author time
 * and holds out the newest val_share of them as the validation slice:
 * hyper-parameters, early stopping and the decision threshold are chosen
 * there, never on test data.  Learned models may then be refitted on all
 * training examples with the chosen settings.
 *
 * Scores are calibrated probabilities of reaching stable: the learned
 * kinds fit a map from their raw score (calib.h) on the validation
 * slice's scores, and the threshold is mapped with it, so the map changes
 * neither the order of commits nor the picks.  Explanations stay in the
 * kind's raw logit units.  keyword and tag are not calibrated (their
 * scores are 0 or 1).  A commit is picked when score >= threshold.
 * A model is read-only after training or loading and may be shared by
 * threads for scoring.
 *
 * Model file (all integers little-endian):
 *   magic "SSMODEL\x1a", u32 format version, u64 payload length,
 *   payload: kind, feature settings, vocabulary, training summary,
 *            threshold, calibration (version >= 2: u32 method, f64 a,
 *            f64 b), bands (version >= 3: f64 yes, likely, unsure cut
 *            points, bands.h; then u64 nlabelled of the training
 *            summary), kind header, weights as one flat f32 vector,
 *   u32 CRC-32 (zlib) of everything before it.
 * A truncated, corrupt or foreign file is refused with a message naming
 * the file, and so is a non-finite or decreasing calibration or bands out
 * of order; a version 1 file loads with the identity map, versions 1 and
 * 2 with bands from their threshold (ss_bands_from_threshold).  Files are written with util/atomic.h.
 */
#ifndef SS_MODEL_H
#define SS_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "commit/commit.h"
#include "models/bands.h"
#include "models/calib.h"
#include "models/metrics.h"
#include "features/features.h"
#include "models/dataset.h"

/* Written to files: values only grow. */
typedef enum {
	SS_MODEL_KEYWORD = 1,
	SS_MODEL_LINEAR = 2,
	SS_MODEL_MLP = 3,
	SS_MODEL_PATCHNET = 4,
	SS_MODEL_TAG = 5,
	SS_MODEL_PATCHNET_FEAT = 6  /* PatchNet with a branch for the features */
} ss_model_kind;

#define SS_MODEL_KIND_MAX 6

/* 1: no calibration; 2: a calibration map after the threshold; 3: the
 * verdict bands and the labelled-commit count after the calibration; 4:
 * the share of an unseen project's commits to propose after those; 5:
 * the nearest past decisions' weight and count and a linear model's cost
 * after that, and a linear model's memory of its nearest past decisions
 * after its weights when the count is not 0; 6: the training cut
 * (ss_model_info's cut_since and cut[]) after the cost, where 5 and
 * earlier kept it in the source text (still read from there) */
#define SS_MODEL_FORMAT_VERSION 6

/* At most this many ids in a model's training cut (the bottoms of a
 * ranked range: A of A..B, each ^C). */
#define SS_MODEL_CUT_MAX 16
/* The cut as a project model's source shows it to people, and as format
 * 5 and earlier kept it (only those files are read back from it): " authored
 * before <seconds>", or " before <id>" for each id. */
#define SS_MODEL_CUT_TEXT_SINCE " authored before "
#define SS_MODEL_CUT_TEXT_ID " before "

typedef struct ss_model ss_model;

/* Called by long training runs with one line of progress (no newline). */
typedef void (*ss_model_log_fn)(void *ud, const char *msg);

/*
 * What a linear model's adaptation chose on its validation slice
 * (ss_train_options.prior, .rule_guard; docs/scores.md): the share of a
 * prior model's weights, and the project's single rule raised so that
 * the ranking is never worse than that rule alone.  Validation figures
 * are average precision (AP) and the best F1 over thresholds.
 */
typedef struct {
	double alpha;        /* share of the prior's weights (0: none or no prior) */
	long rule;           /* feature index of the rule raised, -1: none */
	float boost;         /* the logit added when the rule holds */
	double ap_own;       /* the project's own weights */
	double ap_prior;     /* the prior's weights alone */
	double ap_model;     /* the mix the guard started from */
	double f1_model;
	double ap_rule;      /* the best rule, ranked first, the model within */
	double f1_rule;      /* the best rule alone, as a yes/no */
	double ap_final;     /* what the model ranks with */
	/* the nearest past decisions (ss_train_options.near): their weight
	 * in the logit (0: not used) and the validation AP without and with
	 * it; all 0 when not tried */
	float near_beta;
	double ap_near_without, ap_near_with;
} ss_linear_adapt;

/* Neighbours a commit's nearest past decisions come from (the project
 * model's; ss_train_options.near), and the most a model may look at. */
#define SS_NEAR_K 10
#define SS_NEAR_K_MAX 64

typedef struct {
	ss_thresh_rule rule;  /* how the threshold is chosen (SS_THRESH_F1) */
	double target;        /* precision or recall target of the rule (0) */
	double val_share;     /* newest share of training data validating (0.15) */
	uint64_t seed;        /* random seed (1) */
	int threads;          /* worker threads (2) */
	int refit;            /* refit on all training data: 1, 0, -1 kind default (-1) */
	/* examples of d learnt from with the fit part and never validated
	 * on: evidence newer than the validation slice (the project
	 * model's in-cycle commits, --learn-in-cycle) (NULL, 0) */
	const size_t *extra;
	size_t nextra;
	/* linear */
	double C;             /* cost; 0 chooses from a grid on validation (0) */
	int linear_balance;   /* weight classes by inverse frequency (0) */
	/* mlp */
	int hidden;           /* first hidden layer width (32) */
	int hidden2;          /* second hidden layer width, 0 = none (0) */
	float dropout;        /* dropout rate after each hidden layer (0.5) */
	float lr;             /* Adam learning rate (1e-3) */
	float weight_decay;   /* L2 on all weights, via Adam (3e-3) */
	int epochs;           /* at most this many epochs (30) */
	int patience;         /* stop after this many epochs without gain (4) */
	int batch;            /* mini-batch size (128) */
	int mlp_balance;      /* weight classes by inverse frequency (1) */
	int wide;             /* add a linear input-to-logit path (0) */
	float input_dropout;  /* drop this share of input features in training (0) */
	/* patchnet-feat */
	int warm_start;       /* start from a trained mlp: 1, 0, -1 kind default (-1) */
	ss_model_log_fn log;  /* progress lines, may be NULL (NULL) */
	void *log_ud;         /* passed to log (NULL) */
	/* SS_FG_* groups of the dataset's that the model leaves out: only
	 * groups of named (dense) features alone, which the dataset's rows
	 * can drop (SS_FG_RELCODE), so that one dataset trains the
	 * variants a project chooses between (0) */
	uint32_t groups_off;
	/* linear: a linear model trained on other projects (the built-in
	 * one): this model takes its feature space (vocabulary) and mixes
	 * its weights into its own by the share validation chooses (NULL) */
	const struct ss_model *prior;
	/* linear: the rule guard, ss_linear_adapt (0) */
	int rule_guard;
	/* linear: gets what the adaptation chose (NULL) */
	ss_linear_adapt *adapt;
	/* linear: the nearest past decisions as evidence (SS_NEAR_K), this many
	 * neighbours, their weight chosen on validation (0 may win); 0: not
	 * tried (0) */
	int near;
} ss_train_options;

#define SS_TRAIN_OPTIONS_INIT { SS_THRESH_F1, 0.0, 0.15, 1, 2, -1, NULL, 0, 0.0, 0, \
	32, 0, 0.5f, 1e-3f, 3e-3f, 30, 4, 128, 1, 0, 0.0f, -1, NULL, NULL, 0, NULL, 0, NULL, 0 }

/* What a model was trained on: stored in the file, shown by rank/eval. */
typedef struct {
	char source[512];       /* sources, as named on the command line */
	char labels[512];       /* label file and column, or stable source */
	int64_t first, last;    /* author-time range of the training commits */
	uint64_t n, npos;       /* training commits, of them positive */
	uint64_t nval, nval_pos;/* the validation slice */
	int64_t trained_at;     /* when (seconds since the epoch) */
	uint32_t masked;        /* stable tags were masked */
	uint32_t rule;          /* ss_thresh_rule of the threshold */
	double target;          /* its target */
	double val_f1, val_precision, val_recall, val_pr_auc, val_roc_auc;
	char params[256];       /* chosen settings, "C=0.3 refit" */
	uint64_t nlabelled;     /* positive commits the label source listed when
				   trained (0: unknown; format >= 3): how the
				   project model sees its labels grow */
	double cost;            /* a linear model's cost C, chosen or given
				   (0: not linear, or unknown; format >= 5) */
	/* The training cut (format >= 6; older files: read from source's
	 * " authored before <seconds>" / " before <id>" text): the model
	 * learnt only from commits authored before cut_since (0: no such
	 * cut), or only from the history of the commits cut[0..ncut) (40
	 * lower-case hex digits each; ncut 0: no such cut).  A project
	 * model's, so that a kept one is known not to have seen the
	 * commits a later ranking scores (run/project_keep.h). */
	int64_t cut_since;
	uint32_t ncut;
	char cut[SS_MODEL_CUT_MAX][41];
} ss_model_info;

/* Send one progress line to o->log (nothing when it is NULL). */
void ss_model_logf(const ss_train_options *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

const char *ss_model_kind_name(ss_model_kind kind);
/* SS_ENOTFOUND (message set) for an unknown name. */
int ss_model_kind_parse(ss_model_kind *out, const char *name);
/*
 * A comma-separated list of kinds ("keyword,linear": eval's --models)
 * into out[0..max), *n how many.  SS_EINVALID (message set) for an
 * unknown kind, more than max or none.
 */
int ss_model_kinds_parse(ss_model_kind *out, size_t max, size_t *n, const char *list);

/*
 * How many of n training examples ss_model_train() holds out as the
 * validation slice with val_share (the newest ones; at most n - 1).
 */
size_t ss_model_val_count(size_t n, double val_share);

/*
 * Train a model of kind on the examples idx[0..n) of d (any order).
 * *out is NULL on failure.  Returns 0 or < 0 with the message set.
 */
int ss_model_train(ss_model **out, ss_model_kind kind, const ss_dataset *d,
		   const size_t *idx, size_t n, const ss_train_options *opts);

/*
 * Write the rows a feature model (linear, mlp) would train on and score:
 * the vocabulary from tr[0..ntr) only, as ss_model_train() builds it;
 * svm gets one libsvm line per example ("label idx:val ...", 0-based
 * indices), training part then test part, each oldest first; meta the
 * same rows as "sha part label tagged time" under a header; dense the
 * named features ("index name group").  For experiments outside the
 * project (eval --dump-features).  0 or < 0 with the message set; the
 * caller owns and commits the files.
 */
int ss_model_write_rows(const ss_dataset *d, const size_t *tr, size_t ntr, const size_t *te,
			size_t nte, FILE *svm, FILE *meta, FILE *dense);

void ss_model_free(ss_model *m); /* NULL is a no-op */

ss_model_kind ss_model_get_kind(const ss_model *m);
float ss_model_threshold(const ss_model *m);
/* Also moves the likely band's cut to t (ss_bands_set_likely). */
void ss_model_set_threshold(ss_model *m, float t);
/*
 * The share of a project's ranked commits the model proposes when it has
 * never seen the project (the built-in model: the median of the corpus
 * projects' best shares when each was held out, docs/scores.md); 0 when
 * the threshold holds as it is.  Set: a share in [0, 1].
 */
float ss_model_pick_share(const ss_model *m);
void ss_model_set_pick_share(ss_model *m, float share);
/* The verdict bands' cut points (bands.h); set replaces them unchecked. */
const ss_bands *ss_model_bands(const ss_model *m);
void ss_model_set_bands(ss_model *m, const ss_bands *b);
ss_model_info *ss_model_get_info(ss_model *m);
/* The calibration map (SS_CALIB_NONE for keyword, tag and version 1
 * files); set replaces it without checking it (tests write bad files). */
const ss_calib *ss_model_calibration(const ss_model *m);
void ss_model_set_calibration(ss_model *m, const ss_calib *c);
const ss_model_info *ss_model_info_of(const ss_model *m);
/* NULL for kinds without features (keyword, tag). */
const ss_featurizer *ss_model_featurizer(const ss_model *m);
/* Number of learnt weights (0 for keyword, tag). */
size_t ss_model_nweights(const ss_model *m);

/*
 * Register with d what the kind keeps of commits beyond the sparse
 * features, before any commit is added (a no-op for most kinds).
 */
int ss_model_prepare_dataset(ss_model_kind kind, ss_dataset *d);

/*
 * How far a commit's score may move with the call that scores it (absolute,
 * on the probability): which and how many other examples share the call,
 * their order, or ss_model_score against ss_model_score_commit.  The
 * kinds score one example per forward, so every product has the same
 * shape and the scores come out bit-identical on the machines we know;
 * the bound is what float32 reassociation in BLAS kernels (another
 * blocking, FMA or not) can cost a sum of a few hundred products, seen
 * through the sigmoid (slope <= 1/4).  Tests compare scores of different
 * call shapes within this, never for equality (docs/patchnet.md).  The
 * calibration map (calib.h) is applied to each score alone, so raw scores
 * that agree bit for bit still do; a raw difference d becomes, to first
 * order, d * a * p(1 - p) / (s(1 - s)) for raw score s and calibrated p:
 * larger only where the map is steeper than the identity.
 */
#define SS_MODEL_BATCH_TOL 1e-5f

/* Run fn(arg, t) for t in [0, nthreads) on nthreads threads (the caller's
 * thread runs t = 0); returns the first nonzero result.  Training's and
 * scoring's threads, and the project model's fits side by side
 * (run/project_rules.c). */
int ss_model_parallel(int nthreads, int (*fn)(void *arg, int t), void *arg);

/* Calibrated scores of the examples idx[0..n) of d into out[n]; out[i]
 * does not depend on the other examples of the call (SS_MODEL_BATCH_TOL). */
int ss_model_score(float *out, const ss_model *m, const ss_dataset *d, const size_t *idx,
		   size_t n);

/* Calibrated score of one commit; hist holds the commits before it (may be NULL, see
 * ss_feat_extract); the caller adds c to it afterwards. */
int ss_model_score_commit(float *out, const ss_model *m, const ss_commit *c,
			  const ss_history *hist);

/* A settled commit a model learnt from, near another (docs/scores.md,
 * "Nearest past decisions"). */
typedef struct {
	const char *id;       /* 40 hex digits, "" when not known */
	const char *subject;  /* "" when not known */
	float similarity;     /* cosine in the model's neighbour space */
	float score;          /* the model's calibrated score of it */
	int label;            /* reached stable when the model learnt (1, 0) */
	size_t item;          /* its place in the model's memory */
} ss_model_neighbour;

/*
 * The at most max (SS_NEAR_K_MAX) settled commits m remembers nearest to
 * x (m's feature space), most similar first, a copy of x itself skipped:
 * a linear model trained with ss_train_options.near; 0 for any other.
 * Strings belong to m.  Safe from several threads.
 */
size_t ss_model_neighbours(ss_model_neighbour *out, size_t max, const ss_model *m,
			   const ss_svec *x);

/* One feature's share of a commit's score, in logit units. */
typedef struct {
	uint32_t index;
	float value;         /* the feature's value */
	float contrib;       /* logit change the feature causes */
	char name[128];      /* readable name (see ss_featurizer_name) */
} ss_contrib;

/*
 * The features of c ordered by |contribution| (raising ones first when
 * positive_only), at most max into out[max]; *n gets how many.  Linear:
 * weight * value; mlp: the logit drop when the feature is removed.
 * Kinds without features give *n = 0.
 */
int ss_model_explain(ss_contrib *out, size_t max, size_t *n, const ss_model *m,
		     const ss_commit *c, const ss_history *hist, int positive_only);

/* Write the model file (temporary file + rename). */
int ss_model_save(const ss_model *m, const char *path);

/* Write the model file's bytes to f (an output opened beforehand, e.g.
 * with util/atomic.h); name is for messages.  0 or SS_ERROR. */
int ss_model_write(const ss_model *m, FILE *f, const char *name);

/* Read a model file; refuses truncated, corrupt and foreign files. */
int ss_model_load(ss_model **out, const char *path);

/* Same from f, open for reading (not closed; name for messages). */
int ss_model_load_stream(ss_model **out, FILE *f, const char *name);

/* Same from memory; name is used in messages. */
int ss_model_load_buffer(ss_model **out, const void *buf, size_t len, const char *name);

/* The embedded default model (models/default.model); SS_ENOTFOUND when
 * this build has none. */
int ss_model_load_default(ss_model **out);

#endif
