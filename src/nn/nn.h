/*
 * nn.h - small neural-network kit on flat float arrays: ss_sgemm(), a seeded
 * RNG, a flat parameter set, layers with forward/backward, Adam, a per-batch
 * activation arena and a finite-difference gradient checker.
 *
 * Conventions (binding for every layer):
 *  - arrays are flat, row-major, batch first: a batch of n rows of d
 *    features is float[n][d]; a sequence batch is float[n][t][d];
 *  - matrix weights are [out][in]; the embedding table is [vocab][dim]
 *    (one row per id, it is a lookup table, not a product);
 *  - every parameter and gradient of a model lives in one ss_params: w[] and
 *    a same-shaped g[]; layers only keep offsets into it, so the vectors may
 *    be reallocated while a network is being built;
 *  - forward writes y; backward ADDS into ctx->g and into dx (dx may be NULL
 *    when the input gradient is not needed); nothing is ever overwritten by a
 *    backward pass, so callers zero g (ss_params_zero_grad) and dx buffers
 *    (ss_nn_arena_zeros) first;
 *  - scratch and per-batch layer state (dropout masks, im2col columns, max
 *    argmax) come from the context's ss_nn_arena; it is reset once per batch
 *    and stays valid until the next reset, so backward may use what forward
 *    left there.
 *
 * How to build and train an MLP over sparse features (what models/mlp uses):
 *
 *     ss_params *p = ss_params_new();
 *     ss_rng rng;  ss_rng_seed(&rng, 42);
 *     ss_layer l1, relu, drop, l2, loss;
 *     ss_layer_sparse_dense(&l1, p, &rng, nfeat, 128, SS_INIT_HE);
 *     ss_layer_relu(&relu, 128);
 *     ss_layer_dropout(&drop, 128, 0.5f);
 *     ss_layer_dense(&l2, p, &rng, 128, 1, SS_INIT_XAVIER);
 *     ss_layer_sigmoid_bce(&loss);
 *     ss_adam_opts ao = SS_ADAM_OPTS_INIT;  ao.weight_decay = 1e-5f;
 *     ss_adam *adam = ss_adam_new(p->n, &ao);
 *     ss_nn_arena *ar = ss_nn_arena_new();
 *     ss_nn_ctx c = { .w = p->w, .g = p->g, .arena = ar, .rng = &rng,
 *                     .train = 1 };
 *     for each mini-batch (ss_csr x with n rows, float t[n], float wt[n]):
 *         ss_nn_arena_reset(ar);  ss_params_zero_grad(p);
 *         float *h1 = ss_nn_arena_floats(ar, n * 128), *h2 = ..., *h3 = ...,
 *               *z = ss_nn_arena_floats(ar, n), *prob = ...(n);
 *         ss_layer_forward(&l1, &c, n, &x, h1);
 *         ss_layer_forward(&relu, &c, n, h1, h2);
 *         ss_layer_forward(&drop, &c, n, h2, h3);
 *         ss_layer_forward(&l2, &c, n, h3, z);
 *         loss.target = t;  loss.weight = wt;        // class weights
 *         ss_layer_forward(&loss, &c, n, z, prob);    // loss.loss = mean loss
 *         float *dz = zeros(n), *dh3 = zeros(n*128), *dh2 = ..., *dh1 = ...;
 *         ss_layer_backward(&loss, &c, n, z, prob, NULL, dz);
 *         ss_layer_backward(&l2, &c, n, h3, z, dz, dh3);
 *         ss_layer_backward(&drop, &c, n, h2, h3, dh3, dh2);
 *         ss_layer_backward(&relu, &c, n, h1, h2, dh2, dh1);
 *         ss_layer_backward(&l1, &c, n, &x, h1, dh1, NULL);
 *         ss_adam_step(adam, p);
 *     for prediction: c.train = 0 (dropout is the identity), no backward.
 *
 * Re-read c.w/c.g after adding parameters (ss_params_add may realloc).
 * For data-parallel training each thread takes a copy of the ss_layer
 * structs (they hold per-batch state), its own arena and its own gradient
 * vector as ctx.g; the caller sums the gradients into p->g before the step.
 * Nothing here prints or exits; functions returning int return 0 or a
 * negative SS_E* code with the message in ss_error_last().
 */
#ifndef SS_NN_H
#define SS_NN_H

#include <stddef.h>
#include <stdint.h>

/* ---- matrix product ---------------------------------------------------- */

/*
 * C = alpha * op(A) * op(B) + beta * C, row-major, op(X) = X or X^T.
 * C is M x N; op(A) is M x K, so A is stored M x K (transA == 0) or K x M
 * (transA != 0); op(B) is K x N, so B is stored K x N or N x K.  Leading
 * dimensions are the stored row lengths (the arrays are dense).  With
 * beta == 0, C need not be initialised.  The only caller of cblas_sgemm.
 */
void ss_sgemm(int transA, int transB, int M, int N, int K, float alpha,
	      const float *A, const float *B, float beta, float *C);

/* Number of OpenBLAS threads for ss_sgemm (process-wide); 0 = library
 * default.  Returns the previous setting as the library reports it. */
int ss_nn_set_blas_threads(int n);

/*
 * The BLAS thread count.  OpenBLAS starts one thread per CPU it sees; its
 * idle threads spin before they sleep, so more threads than the CPUs this
 * process may use (a cgroup quota in a container, say) only steal time
 * from the threads that work.  Training and scoring that split batches
 * over their own worker threads set it to 1 while they run.
 */
#define SS_NN_MAX_BLAS_THREADS 64 /* OpenBLAS's own limit on Debian */

/* The CPUs this process may run on: its affinity mask (sched_getaffinity),
 * at most the cgroup v2 CPU quota (/sys/fs/cgroup/cpu.max) rounded up;
 * at least 1. */
int ss_nn_cpus(void);
/* A cgroup v2 cpu.max line ("150000 100000") as whole CPUs rounded up
 * (2); 0 for "max", NULL or anything unreadable. */
int ss_nn_cpu_quota_parse(const char *cpu_max);
/*
 * The BLAS thread count from the environment and the CPU count: ours
 * (SS_BLAS_THREADS) when set, as given; else openblas
 * (OPENBLAS_NUM_THREADS) when set and valid, at most cpus; else cpus;
 * always within 1..SS_NN_MAX_BLAS_THREADS.
 * Returns -1 when ours is set but not a number in that range (the caller
 * says so).  Pure: reads no environment itself.
 */
int ss_nn_blas_threads_choose(const char *ours, const char *openblas, int cpus);

/* ---- random numbers ---------------------------------------------------- */

/* xoshiro256** seeded through splitmix64: the same seed gives the same
 * stream on every platform.  Plain value type, one per thread. */
typedef struct ss_rng {
	uint64_t s[4];
} ss_rng;

void ss_rng_seed(ss_rng *out, uint64_t seed);
uint64_t ss_rng_next(ss_rng *r);
float ss_rng_uniform(ss_rng *r);               /* [0, 1) */
float ss_rng_normal(ss_rng *r);                /* mean 0, sd 1 */
uint32_t ss_rng_below(ss_rng *r, uint32_t n);  /* [0, n), n > 0 */

/* ---- parameter set ----------------------------------------------------- */

/* All parameters w[n] and their gradients g[n] of one model.  Fields are
 * public so that model files can save and load w directly; w and g may move
 * on every ss_params_add(). */
typedef struct ss_params {
	float *w;
	float *g;
	size_t n;
	size_t cap;
} ss_params;

ss_params *ss_params_new(void);                  /* NULL when out of memory */
void ss_params_free(ss_params *p);               /* NULL is a no-op */
/* Append n zeroed parameters; *out gets their offset into w and g. */
int ss_params_add(size_t *out, ss_params *p, size_t n);
void ss_params_zero_grad(ss_params *p);

enum ss_init {
	SS_INIT_ZERO,    /* all zero */
	SS_INIT_HE,      /* normal, sd sqrt(2 / fan_in): before ReLU */
	SS_INIT_XAVIER,  /* uniform +-sqrt(6 / (fan_in + fan_out)) */
	SS_INIT_EMBED    /* normal, sd 0.1 */
};

/* Fill n values at w with the given scheme. */
void ss_params_init(float *w, size_t n, enum ss_init how, int fan_in,
		    int fan_out, ss_rng *rng);

/* ---- Adam -------------------------------------------------------------- */

typedef struct ss_adam_opts {
	float lr;            /* 1e-3 */
	float beta1;         /* 0.9 */
	float beta2;         /* 0.999 */
	float eps;           /* 1e-8 */
	float weight_decay;  /* 0: L2, adds weight_decay * w to the gradient,
				i.e. loss + weight_decay / 2 * |w|^2 */
} ss_adam_opts;

#define SS_ADAM_OPTS_INIT { 1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f }

typedef struct ss_adam ss_adam;

/* Moments for n parameters; opts NULL means defaults.  NULL on OOM. */
ss_adam *ss_adam_new(size_t n, const ss_adam_opts *opts);
void ss_adam_free(ss_adam *a);                  /* NULL is a no-op */
/* One update of p->w from p->g (p->n must equal the n given to _new;
 * returns SS_EINVALID otherwise).  Leaves p->g as it is. */
int ss_adam_step(ss_adam *a, ss_params *p);
/* The same split for threads: ss_adam_tick() once (the step count), then
 * ss_adam_update() over ranges [from, to) covering [0, n), concurrently
 * for disjoint ranges.  Bit-identical to ss_adam_step(). */
void ss_adam_tick(ss_adam *a);
void ss_adam_update(ss_adam *a, ss_params *p, size_t from, size_t to);
void ss_adam_set_lr(ss_adam *a, float lr);

/*
 * Flush subnormal floats to zero in the calling thread (x86: the MXCSR's
 * FTZ and DAZ bits; elsewhere nothing) until ss_nn_ftz_end(saved) puts
 * the caller's state back.  Training runs under it: late in training,
 * gradients of saturated examples and the moments of rare features fall
 * below FLT_MIN, and on x86 every float operation on a subnormal, in our
 * loops or in OpenBLAS's kernels, costs a microcode assist (mlp's Adam
 * and patchnet's sgemm ran many times slower).  Values that small carry
 * nothing next to the weights; the result stays deterministic.
 */
unsigned ss_nn_ftz_begin(void);
void ss_nn_ftz_end(unsigned saved);

/* y[0..n) += a * x[0..n); y and x do not overlap.  Vectorised (GCC's -O2
 * alone leaves such loops scalar).  ss_adam_update() is not: GCC will not
 * vectorise sqrtf without -fno-math-errno. */
void ss_nn_axpy(float *restrict y, const float *restrict x, float a, size_t n);

/* ---- activation arena -------------------------------------------------- */

/* One block of scratch memory for a batch.  Allocations are 64-byte
 * aligned and live until the next reset.  When a batch needs more than the
 * block holds, the overflow is served from extra chunks and the next reset
 * replaces the block by one of the high-water size plus a quarter: after
 * the first batch of the largest shape there are no more mallocs. */
typedef struct ss_nn_arena ss_nn_arena;

ss_nn_arena *ss_nn_arena_new(void);
void ss_nn_arena_free(ss_nn_arena *a);           /* NULL is a no-op */
void ss_nn_arena_reset(ss_nn_arena *a);
void *ss_nn_arena_alloc(ss_nn_arena *a, size_t bytes);  /* NULL: OOM, set */
float *ss_nn_arena_floats(ss_nn_arena *a, size_t n);    /* uninitialised */
float *ss_nn_arena_zeros(ss_nn_arena *a, size_t n);
size_t ss_nn_arena_capacity(const ss_nn_arena *a);     /* block bytes */

/* ---- layers ------------------------------------------------------------ */

/* What every forward/backward call shares.  w/g usually are params->w/g; a
 * worker thread may pass its own g.  rng is used by dropout when train. */
typedef struct ss_nn_ctx {
	const float *w;
	float *g;
	ss_nn_arena *arena;
	ss_rng *rng;
	int train;
} ss_nn_ctx;

/* A sparse batch in CSR form: row i has the (idx[k], val[k]) pairs for
 * k in [row[i], row[i + 1]); indices are < the layer's in. */
typedef struct ss_csr {
	int n;
	const size_t *row;   /* [n + 1] */
	const int32_t *idx;
	const float *val;
} ss_csr;

enum ss_layer_kind {
	SS_LAYER_DENSE,        /* x float[n][in] -> y float[n][out] */
	SS_LAYER_SPARSE_DENSE, /* x ss_csr (n rows) -> y float[n][out] */
	SS_LAYER_RELU,         /* float[n][in] -> float[n][in] */
	SS_LAYER_DROPOUT,      /* float[n][in] -> float[n][in] */
	SS_LAYER_SIGMOID_BCE,  /* logits float[n] -> probabilities float[n] */
	SS_LAYER_EMBED,        /* ids int32_t[n][t] -> float[n][t][out] */
	SS_LAYER_CONV1D,       /* float[n][t][in] -> float[n][t-width+1][out] */
	SS_LAYER_MAXPOOL       /* float[n][t][in] -> float[n][in] */
};

/*
 * One layer.  Built by an ss_layer_*() constructor; the caller may then set
 * the per-call inputs before each forward and read the per-batch outputs
 * after it.  Holds offsets into an ss_params and pointers into the arena,
 * never owned memory: a layer needs no free.
 */
typedef struct ss_layer {
	enum ss_layer_kind kind;
	int in, out;        /* features per row / per time step */
	int t;              /* input time steps (embed, conv1d, maxpool) */
	int width;          /* conv1d kernel width */
	float rate;         /* dropout probability of zeroing */
	size_t w_off, b_off;

	/* per-call inputs, set by the caller (NULL = default) */
	const float *target;  /* bce: labels 0/1 [n]; required */
	const float *weight;  /* bce: example weights [n]; NULL = all 1 */
	const int *len;       /* maxpool: valid steps per row [n]; NULL = t */

	/* per-batch state and outputs (arena memory) */
	float *mask;        /* dropout: 0 or 1 / (1 - rate) per value */
	const float *cols;  /* conv1d: im2col [n * (t-width+1)][width * in] */
	int *argmax;        /* maxpool: [n][in] winning step, -1 = empty row */
	double loss;        /* bce: sum_i weight_i * bce_i / n */
} ss_layer;

/* Constructors.  Those with parameters append them to p and initialise them
 * (bias zero); they return 0 or SS_ENOMEM / SS_EINVALID. */
int ss_layer_dense(ss_layer *out, ss_params *p, ss_rng *rng, int in,
		   int nout, enum ss_init how);
int ss_layer_sparse_dense(ss_layer *out, ss_params *p, ss_rng *rng, int in,
			  int nout, enum ss_init how);
/* Embedding ids >= vocab are rejected by forward; ids < 0 are padding:
 * a zero vector with no gradient. */
int ss_layer_embed(ss_layer *out, ss_params *p, ss_rng *rng, int vocab,
		   int dim, int t);
/* Valid convolution: output step s sees input steps s .. s+width-1; weights
 * [out][width * in] with input index j * in + c for offset j, channel c. */
int ss_layer_conv1d(ss_layer *out, ss_params *p, ss_rng *rng, int in,
		    int nout, int t, int width, enum ss_init how);
void ss_layer_relu(ss_layer *out, int in);
void ss_layer_dropout(ss_layer *out, int in, float rate);
void ss_layer_maxpool(ss_layer *out, int in, int t);
void ss_layer_sigmoid_bce(ss_layer *out);

/* Output floats per row (out * steps for sequences). */
size_t ss_layer_out_size(const ss_layer *l);

/*
 * x is const float * except for SPARSE_DENSE (const ss_csr *, whose n must
 * equal n) and EMBED (const int32_t *).  y has n * ss_layer_out_size() floats.
 * Backward takes the same x and the y forward produced, dy shaped like y
 * (ignored by SIGMOID_BCE, which is the loss: dL/dlogit = weight * (p - t) / n
 * is added into dx), and adds into dx shaped like x (must be NULL for
 * SPARSE_DENSE and EMBED).  Both return 0 or a negative SS_E* code.
 */
int ss_layer_forward(ss_layer *l, const ss_nn_ctx *c, int n, const void *x,
		     float *y);
int ss_layer_backward(ss_layer *l, const ss_nn_ctx *c, int n, const void *x,
		      const float *y, const float *dy, float *dx);

/* Concatenate k inputs x[j] float[n][dims[j]] into y float[n][sum dims];
 * backward adds the matching slices of dy into dx[j] (NULL entries skip). */
void ss_nn_concat_forward(float *y, int n, int k, const float *const *x,
			  const int *dims);
void ss_nn_concat_backward(float *const *dx, int n, int k, const int *dims,
			   const float *dy);

/* ---- gradient checking ------------------------------------------------- */

/*
 * Loss at parameters w[nw] and input x[nx] (x may be NULL when nx == 0).
 * When gw is non-NULL, also store dL/dw in gw[nw] and, when gx is non-NULL,
 * dL/dx in gx[nx] (overwrite, not add).  The loss should be summed in
 * double.  Must be deterministic (same dropout mask on every call).
 */
typedef double (*ss_nn_lossfn)(void *ud, const float *w, float *gw,
			       const float *x, float *gx);

typedef struct ss_gradcheck_opts {
	float eps;          /* 1e-3: central difference step */
	double floor;       /* 1e-2: relative error = |a - n| / max(|a|, |n|,
			       floor), so tiny gradients count absolutely */
	size_t max_coords;  /* 0: every coordinate; else this many, spread
			       evenly over w and over x */
	double kink_tol;    /* 0: off; else a coordinate whose one-sided
			       differences (up and down by eps) differ by more
			       than this (relative, as above) has a ReLU or
			       max switch within eps: it is counted, not
			       checked.  A kink below the tolerance moves the
			       central difference by at most half of it */
} ss_gradcheck_opts;

#define SS_GRADCHECK_OPTS_INIT { 1e-3f, 1e-2, 0, 0.0 }

typedef struct ss_gradcheck_result {
	double max_rel_err;  /* over the checked coordinates */
	size_t checked;      /* coordinates compared */
	size_t kinks;        /* coordinates left out as non-differentiable */
	size_t worst;        /* index of the worst one (w first, then x) */
} ss_gradcheck_result;

/*
 * Compare the analytic gradient of f against central differences at w and
 * x (perturbed in place and restored).  opts NULL means defaults.  Returns
 * 0 or SS_ENOMEM.
 */
int ss_nn_gradcheck_full(ss_gradcheck_result *out, ss_nn_lossfn f, void *ud,
			 float *w, size_t nw, float *x, size_t nx,
			 const ss_gradcheck_opts *opts);

/* The same, *out = the maximal relative error. */
int ss_nn_gradcheck(double *out, ss_nn_lossfn f, void *ud, float *w,
		    size_t nw, float *x, size_t nx,
		    const ss_gradcheck_opts *opts);

#endif
