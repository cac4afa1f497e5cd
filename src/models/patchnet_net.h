/*
 * patchnet_net.h - the PatchNet network (Hoang, Lawall et al.) on the
 * layers of nn/nn.h: no vocabularies, files or commits here, only token
 * ids in, probabilities, gradients and explanations out.
 *
 *   message: embedding -> conv over tokens, widths 1 and 2 -> max over time
 *            -> ReLU  (2 * filters values)
 *   code:    its own embedding, shared by removed and added lines; per side
 *            (removed, added) with its own weights:
 *            each line: conv over tokens (widths 1, 2) -> max -> ReLU
 *            each hunk: conv over its lines (widths 1, 2) -> max -> ReLU
 *            the side:  max over all hunks of all files
 *   features (patchnet-feat only): the sparse commit features of linear
 *            and mlp -> dense feat_hidden + ReLU -> dropout
 *   head:    concat(message, removed, added[, features]) [-> dropout]
 *            -> dense hidden + ReLU -> dropout -> dense 1 [+ wide path]
 *            [+ skip path: the feature units -> dense 1]
 *            -> sigmoid, class-weighted BCE
 * Max before ReLU equals ReLU before max and costs a conv output less.
 * Convolutions are "valid"; a sequence shorter than the width still gives
 * one window (the rest of it is padding, which embeds to zeros).
 *
 * Padding and masks: every id slot holds a token id or -1.  A line is
 * present when it has a token, a hunk when it has a present line, a file
 * when it has a present hunk; absent ones cost nothing (they are
 * compacted away before the convolutions), present ones need not be
 * contiguous.  Sequence lengths per batch are the longest present ones,
 * not the caps.  An example without code on a side gets a zero vector
 * for it.
 *
 * Convolutions are ragged: only the valid windows of each row are
 * computed, and backward follows only the max-pool winners (patchnet_net.c);
 * on DPDK this halved the training CPU time and peak memory.
 *
 * Threads: ss_patchnet_net_train_step() either splits the batch between
 * worker threads (each with its own layer copies, arena, dropout stream and
 * gradient vector; gradients summed in worker order) or runs one worker
 * and lets OpenBLAS thread the products.  Data-parallel is the default:
 * on 2 cores, before the ragged convolutions, a step of 64 realistic
 * examples (default sizes) took 29 ms data-parallel, 39 ms with 2 BLAS
 * threads and 46 ms on one thread; the products are small and skinny.
 * The gradient sum, Adam and the zeroing of worker gradients run on the
 * same threads by parameter ranges.  Results are deterministic for
 * (seed, threads, mode).
 */
#ifndef SS_PATCHNET_NET_H
#define SS_PATCHNET_NET_H

#include <stddef.h>
#include <stdint.h>

#include "nn/nn.h"

typedef struct ss_patchnet_config {
	int msg_vocab;      /* message token ids are < this (required) */
	int code_vocab;     /* code token ids are < this (required) */
	int msg_len;        /* 512: message tokens kept */
	int files;          /* 2: files per side */
	int hunks;          /* 5: hunks per file */
	int lines;          /* 8: lines per hunk and side */
	int tokens;         /* 32: tokens per line */
	int embed;          /* 32: embedding width (message and code) */
	int filters;        /* 32: filters per convolution width */
	int hidden;         /* 128: dense hidden width */
	float dropout;      /* 0.5 */
	float lr;           /* 1e-3: Adam learning rate */
	float weight_decay; /* 1e-5: L2 through Adam */
	uint64_t seed;      /* 1: initialisation and dropout */
	int threads;        /* 1: worker or BLAS threads for training */
	int data_parallel;  /* 1: threads split the batch; 0: BLAS threads */
	int features;       /* 0: sparse feature inputs (0: none, the paper's net) */
	int feat_hidden;    /* 32: ReLU units the features pass through */
	float feat_dropout; /* 0: dropout on those units (training only) */
	int wide;           /* 0: also a linear path from the features to the logit */
	float head_dropout; /* 0: dropout on the head's input (training only) */
	int skip;           /* 0: also a dense path from the feature units to the
			       logit: with it the branch is exactly mlp's net,
			       which ss_patchnet_net_warm_start() can copy in */
} ss_patchnet_config;

#define SS_PATCHNET_CONFIG_INIT { 0, 0, 512, 2, 5, 8, 32, 32, 32, 128, 0.5f, \
	1e-3f, 1e-5f, 1, 1, 1, 0, 32, 0.0f, 0, 0.0f, 0 }

/* Sides of the code, and the feature branch in explanations. */
enum { SS_PATCHNET_REMOVED = 0, SS_PATCHNET_ADDED = 1, SS_PATCHNET_FEATURES = 2 };

/*
 * A batch of padded examples.  Fill with ss_patchnet_batch_clear() (all ids
 * -1, label 0, weight 1), then write ids through the accessors and set n.
 */
typedef struct ss_patchnet_batch {
	int n;              /* examples in use, <= cap */
	int cap;
	int msg_len, files, hunks, lines, tokens;  /* the caps, from the config */
	int32_t *msg;       /* [cap][msg_len] */
	int32_t *code[2];   /* per side [cap][files][hunks][lines][tokens] */
	float *label;       /* [cap]: 0 or 1 */
	float *weight;      /* [cap]: example (class) weight */
	/* sparse features (nets with features > 0): example i has feat_n[i]
	 * pairs from feat_off[i] in feat_idx/feat_val */
	size_t *feat_off;   /* [cap] */
	uint32_t *feat_n;   /* [cap] */
	int32_t *feat_idx;
	float *feat_val;
	size_t feat_used, feat_cap;
} ss_patchnet_batch;

int ss_patchnet_batch_new(ss_patchnet_batch **out, const ss_patchnet_config *cfg, int cap);
void ss_patchnet_batch_free(ss_patchnet_batch *b);   /* NULL is a no-op */
void ss_patchnet_batch_clear(ss_patchnet_batch *b);
/* The msg_len id slots of example i's message. */
int32_t *ss_patchnet_batch_msg(ss_patchnet_batch *b, int i);
/* The tokens id slots of one line. */
int32_t *ss_patchnet_batch_line(ss_patchnet_batch *b, int i, int side, int file,
				int hunk, int line);
/* Set example i's sparse features (indices < the config's features), once
 * per example between clears.  0 or SS_ENOMEM. */
int ss_patchnet_batch_features(ss_patchnet_batch *b, int i, const int32_t *idx,
			       const float *val, size_t n);

typedef struct ss_patchnet_net ss_patchnet_net;

/*
 * The number of weights ss_patchnet_net_new() makes for cfg, computed
 * without making them (in double: a corrupt model file's sizes may not
 * fit a size_t), so that a loader can check the file holds that many
 * floats before allocating and initialising them.
 */
double ss_patchnet_net_nparams(const ss_patchnet_config *cfg);

/* A new network with initialised weights; cfg is copied. */
int ss_patchnet_net_new(ss_patchnet_net **out, const ss_patchnet_config *cfg);

/*
 * Start from a trained mlp (one hidden layer, no wide path): w1[feat_hidden]
 * [features] and b1[feat_hidden] become the feature branch, wo[feat_hidden]
 * and bo the skip path, and the head's output layer is zeroed, so that the
 * network's logit is the mlp's until training moves it.  The net must have
 * features, skip and, if wide, its zero-initialised wide path untouched
 * (SS_EINVALID otherwise).
 */
int ss_patchnet_net_warm_start(ss_patchnet_net *net, const float *w1, const float *b1,
			       const float *wo, float bo);
void ss_patchnet_net_free(ss_patchnet_net *net);     /* NULL is a no-op */
const ss_patchnet_config *ss_patchnet_net_config(const ss_patchnet_net *net);
/* The flat weights and gradients (for saving, loading, checking). */
ss_params *ss_patchnet_net_params(ss_patchnet_net *net);

/*
 * Forward over b's n examples on one worker: prob[n] gets probabilities.
 * With train, dropout is active and *loss (if not NULL) gets the weighted
 * mean loss; the state stays for ss_patchnet_net_backward().
 */
int ss_patchnet_net_forward(ss_patchnet_net *net, const ss_patchnet_batch *b,
			    float *prob, int train, double *loss);
/* Add the gradient of the last forward's loss into the params' g. */
int ss_patchnet_net_backward(ss_patchnet_net *net, const ss_patchnet_batch *b);

/* Forward and backward from zero gradients (threads per the config), one
 * Adam step; *loss gets the batch loss before the step.  The gradient sum,
 * the update and the zeroing for the next step run on the threads too, by
 * ranges of the parameters; the params' g keeps the batch's gradient. */
int ss_patchnet_net_train_step(ss_patchnet_net *net, const ss_patchnet_batch *b,
			       double *loss);

/* Probabilities for b's examples without dropout.  Each call borrows a
 * scratch worker from a small pool (made on demand, kept for reuse):
 * threads may predict and explain with one network at the same time (not
 * while it trains). */
int ss_patchnet_net_predict(const ss_patchnet_net *net, const ss_patchnet_batch *b,
			    float *prob);

/* One input position that won max-pools for the score of an example. */
typedef struct ss_patchnet_hit {
	int side;           /* -1 message, SS_PATCHNET_REMOVED, SS_PATCHNET_ADDED,
			       SS_PATCHNET_FEATURES (pos: the example's k-th
			       sparse feature, credited gradient x input
			       through the branch) */
	int file, hunk;     /* code only, slot indices in the batch */
	int pos;            /* message token position, or line slot */
	float share;        /* its share of sum |contribution|, in [0, 1] */
	float contrib;      /* signed logit contribution (gradient x input of
			       the features it won, split evenly over the
			       positions of a width-2 window) */
} ss_patchnet_hit;

/*
 * Explain example i of b: the positions whose values won the max-pools,
 * with the share of the logit they carry, largest share first; at most cap
 * into out, *n gets the total.  *prob (may be NULL) gets the probability.
 */
int ss_patchnet_net_explain(ss_patchnet_hit *out, size_t cap, size_t *n, float *prob,
			    const ss_patchnet_net *net, const ss_patchnet_batch *b, int i);

/* ---- the model kind (models/patchnet.c) -------------------------------- */

struct ss_model;
struct ss_commit;
struct ss_history;

/* Why a PatchNet model scored a commit as it did. */
typedef struct ss_patchnet_reason {
	int side;         /* -1 message word, SS_PATCHNET_REMOVED / _ADDED line */
	char text[160];   /* the word, or "path: +line" / "path: -line" */
	float share;      /* share of sum |contribution| (positions of one
			     word added up) */
	float contrib;    /* signed, logit units */
} ss_patchnet_reason;

/*
 * The message words and code lines that won the network's max-pools for
 * commit c, largest share first (with positive_only: only those raising
 * the score, largest contribution first), at most max into out; *n gets
 * how many were stored.  m must be a trained or loaded patchnet or
 * patchnet-feat model (SS_EINVALID otherwise); hist is what scoring gets
 * (the commits before c, may be NULL) and feeds patchnet-feat's features,
 * which are reasons too (side SS_PATCHNET_FEATURES, text the feature's
 * name).  Thread-safe
 * like scoring.
 */
int ss_patchnet_explain_commit(ss_patchnet_reason *out, size_t max, size_t *n,
			       const struct ss_model *m, const struct ss_commit *c,
			       const struct ss_history *hist, int positive_only);

#endif
