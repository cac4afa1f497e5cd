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
	void *priv;          /* the kind's state, freed by ops->free */
};

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
/* Run fn(arg, t) for t in [0, nthreads) on nthreads threads (the caller's
 * thread runs t = 0); returns the first nonzero result. */
int ss_model_parallel(int nthreads, int (*fn)(void *arg, int t), void *arg);

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
