/*
 * impl.h - what a model kind implements (internal to src/models/).
 *
 * One ss_model_ops per kind, found through ss_model_ops_of().  The generic
 * code (model.c) owns splitting, vocabulary, threshold, training summary
 * and the file envelope; a kind owns its weights and how it scores.
 */
#ifndef SS_MODELS_IMPL_H
#define SS_MODELS_IMPL_H

#include "models/bands.h"
#include "models/calib.h"
#include "models/model.h"
#include "models/serial.h"

struct ss_model {
	ss_model_kind kind;
	const struct ss_model_ops *ops;
	ss_featurizer feat;  /* initialised iff ops->uses_features */
	float threshold;     /* on calibrated scores */
	/* for a project the model never saw: the share of its ranked
	 * commits to propose (its score at that rank is the threshold
	 * there); 0: the threshold as it is (format 4) */
	float pick_share;
	ss_calib calib;      /* raw score to probability (identity: none) */
	ss_bands bands;      /* verdict cut points on calibrated scores */
	ss_model_info info;
	/* the nearest past decisions' weight in the logit (near.c): 0 none;
	 * a linear model only (format 5) */
	float near_beta;
	uint32_t near_k;     /* neighbours looked at (SS_NEAR_K) */
	void *priv;          /* the kind's state, freed by ops->free */
};

/*
 * near.c - a linear model's nearest past decisions: the settled commits
 * it learnt from, searched by the cosine of their vectors scaled by |w|,
 * and the evidence of the nearest (docs/scores.md, "Nearest past
 * decisions").  The memory owns copies of what is added; w (the model's
 * weights, dim of them) is borrowed at ss_near_new() and must outlive
 * the memory unchanged.  Queries may run on several threads.
 */
#define SS_NEAR_PSEUDO 2.0  /* commits' worth of the base rate in the share */
/* The newest settled commits remembered: every commit shares the named
 * dense features (counts, flags), which carry most of the likeness
 * (docs/scores.md), so a search reads every item once for them; this
 * bounds its cost, and a project's policy drifts anyway. */
#define SS_NEAR_MEMORY 20000
typedef struct ss_near ss_near;
/* w: the model's weights, borrowed for the memory's life.  traces[n]
 * (at most SS_NEAR_SKIP_MAX; ss_featurizer_tag_traces(), traces[0] the
 * tag's flag): left out of the |w| space when a remembered commit has
 * the flag (the tags were not masked), kept in otherwise. */
#define SS_NEAR_SKIP_MAX 8
int ss_near_new(ss_near **out, size_t dim, uint32_t k, const float *w, const uint32_t *traces,
		size_t ntraces);
void ss_near_free(ss_near *nr);
size_t ss_near_count(const ss_near *nr);
uint32_t ss_near_k(const ss_near *nr);
/* Remember x (the model's feature space) with its fate, and its id and
 * subject (either may be NULL) for precedents.  0 or < 0. */
int ss_near_add(ss_near *nr, const ss_svec *x, int label, const char *id, const char *subject);
/* x's at most max nearest (SS_NEAR_K_MAX), most similar first, an
 * identical vector skipped; strings belong to nr. */
size_t ss_near_list(ss_near *nr, const ss_svec *x, ss_model_neighbour *out, size_t max);
/* The evidence of x's nearest: the logit of their smoothed taken share
 * less the base rate's (0 with no memory or no neighbour); *taken of
 * *found neighbours reached stable (either may be NULL). */
double ss_near_logit(ss_near *nr, const ss_svec *x, size_t *taken, size_t *found);
/* The features item was remembered with (as given), a view into nr. */
void ss_near_vector(ss_svec *x, const ss_near *nr, size_t item);
void ss_near_save(const ss_near *nr, ss_wbuf *w);
/* linear.c: the evidence of x's nearest past decisions in m's logit
 * (*contrib), *taken of *found of them reached stable; 1 when there is
 * any, 0 when m has none (not linear, or no memory). */
int ss_linear_near_reason(const ss_model *m, const ss_svec *x, float *contrib, size_t *taken,
			  size_t *found);
/* Read what ss_near_save() wrote; 0 or < 0 with the message set. */
int ss_near_load(ss_near **out, size_t dim, uint32_t k, const float *w, const uint32_t *traces,
		 size_t ntraces, ss_rbuf *r);

typedef struct ss_model_ops {
	ss_model_kind kind;
	const char *name;
	int uses_features;   /* m->feat holds options and vocabulary */

	/*
	 * Learn from fit[nfit] (oldest first), choosing settings on val[nval]
	 * (the newest training examples), and store in val_score[nval] the
	 * scores of val by a model that did not train on it (for the
	 * threshold).  May refit on fit + val.  Writes m->info.params.
	 */
	int (*train)(ss_model *m, const ss_dataset *d, const size_t *fit, size_t nfit,
		     const size_t *val, size_t nval, const ss_train_options *o,
		     float *val_score);
	int (*score)(const ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
		     float *out);
	int (*score_commit)(const ss_model *m, const ss_commit *c, const ss_history *hist,
			    float *out);
	/* contributions (logit units) of the nonzeros of x; NULL if none */
	int (*explain)(const ss_model *m, const ss_svec *x, float *contrib);
	/* extra state to keep of each commit (NULL: sparse features suffice) */
	int (*prepare_dataset)(ss_dataset *d);
	/* the kind's header and flat weights; load validates sizes */
	void (*save)(const ss_model *m, ss_wbuf *w);
	int (*load)(ss_model *m, ss_rbuf *r);
	size_t (*nweights)(const ss_model *m);
	void (*free)(ss_model *m);
} ss_model_ops;

const ss_model_ops *ss_model_ops_of(ss_model_kind kind);

extern const ss_model_ops ss_keyword_ops;
extern const ss_model_ops ss_tag_ops;
extern const ss_model_ops ss_linear_ops;
extern const ss_model_ops ss_mlp_ops;
extern const ss_model_ops ss_patchnet_ops;
extern const ss_model_ops ss_patchnet_feat_ops;

/* Helpers shared by the kinds. */
float ss_sigmoid(float z);
/* The index of the first NaN or infinity in v[n], n when all are finite
 * (loaders reject such files: a checksum only proves the bytes are the
 * ones written). */
size_t ss_model_nonfinite(const float *v, size_t n);
/* SS_EINVALID with "WHAT INDEX is nan" (or "inf"), v[i] being the bad value. */
int ss_model_nonfinite_error(const char *what, size_t i, float v);

/*
 * Check the mlp model's whole loss gradient (all layers, class weights)
 * against central differences on the examples idx[0..n) of d, checking at
 * most max_coords weights (0: all); *out gets the largest relative error.
 */
int ss_mlp_gradcheck(double *out, ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
		     size_t max_coords);

/*
 * A trained or loaded mlp's weights, borrowed from m (valid while it
 * lives): w1[h1][in], b1[h1], wo[h1], bo, the input scale.  SS_EINVALID
 * when m is not an mlp of one hidden layer without a wide path (the shape
 * patchnet-feat's branch can copy).
 */
typedef struct {
	int in, h1;
	const float *w1, *b1, *wo, *scale;
	float bo;
} ss_mlp_weights;

int ss_mlp_get_weights(ss_mlp_weights *out, const ss_model *m);

/*
 * Early stopping on the validation slice's average precision, the one
 * rule of mlp and patchnet: an epoch is the new best when it beats the
 * best so far by more than 1e-6; training stops after patience epochs
 * without one.
 */
typedef struct {
	double best;     /* best validation average precision (-1: none yet) */
	int best_epoch;  /* its epoch (0: none, or a warm start's "epoch 0") */
	int since;       /* epochs since the best */
	int patience;    /* epochs without a new best before stopping */
} ss_early_stop;

#define SS_EARLY_STOP_INIT(pat) { -1.0, 0, 0, (pat) }

/* The verdicts of ss_early_stop_epoch(). */
enum { SS_EARLY_STOP_WORSE = 0, SS_EARLY_STOP_BEST = 1, SS_EARLY_STOP_STOP = 2 };

/*
 * Record epoch's validation scores: SS_EARLY_STOP_BEST when it is the new
 * best (keep its weights), SS_EARLY_STOP_STOP when patience ran out,
 * SS_EARLY_STOP_WORSE otherwise.  *ap gets the epoch's average precision.
 */
int ss_early_stop_epoch(ss_early_stop *es, int epoch, const float *score,
			const uint8_t *label, size_t n, double *ap);

#endif
