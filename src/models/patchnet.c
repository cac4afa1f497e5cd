/*
 * patchnet.c - the PatchNet model kind: the token streams of every commit
 * kept by a dataset extractor, vocabularies chosen on the training commits,
 * the network of patchnet_net.c trained on shuffled mini-batches with
 * class weights and early-stopped on the validation slice's average
 * precision (the best epoch's weights are kept; no refit).
 *
 * Tokens.  Message: subject, body and the keys of its trailers, split into
 * words (letters, digits, '_'), lower-cased; numbers become "<num>", hex
 * strings of 8 or more characters "<sha>".  Code: the first files with
 * changed lines, their first hunks with changed lines, per hunk and side
 * the first non-empty removed (added) lines, each through the C tokenizer
 * (features/ctok.h) with one comment state per side that also sees the
 * context lines.  Vocabularies keep tokens in at least PN_MIN_DF training
 * commits, most frequent first; other message words become "<unk>", other
 * identifiers "<id>" and other code tokens "<unk>".
 *
 * patchnet-feat starts warm (unless --no-warm-start): mlp is trained on
 * the same split and copied into the feature branch and a skip path to
 * the logit, with the head's output at zero, so that the untrained net is
 * that mlp; it is "epoch 0" of the early stopping, and the CNN's epochs
 * replace it only by beating it on validation.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/ctok.h"
#include "util/strmap.h"
#include "util/strbuf.h"
#include "models/impl.h"
#include "models/patchnet_net.h"
#include "nn/nn.h"
#include "util/error.h"
#include "util/grow.h"

#define PN_MIN_DF 2
#define PN_MSG_VOCAB 20000
#define PN_CODE_VOCAB 20000
#define PN_BATCH 64
#define PN_SCORE_THREADS 2
/* reserved model ids */
#define MSG_UNK 0
#define CODE_UNK 0
#define CODE_ID 1
#define MSG_RESERVED 1
#define CODE_RESERVED 2

extern const ss_model_ops ss_patchnet_ops;

/* ---- tokenizing a commit ---------------------------------------------- */

/* Where tokens of a commit go: the dataset store or a batch. */
struct sink {
	int (*msg)(void *ud, const char *s, size_t len);
	/* t is a token of ln (a line of the file at path) */
	int (*code)(void *ud, int side, int file, int hunk, int line, const ss_ctok *t,
		    const ss_line *ln, const char *path);
	void *ud;
};

static int is_hexword(const char *s, size_t len)
{
	int digit = 0, alpha = 0;

	if (len < 8)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (isdigit((unsigned char)s[i]))
			digit = 1;
		else if (strchr("abcdef", s[i]))
			alpha = 1;
		else
			return 0;
	}
	return digit && alpha;
}

/* Words of text into the sink, at most *left more. */
static int msg_words(const struct sink *k, const char *text, int *left)
{
	char buf[64];
	const char *p = text;
	int rc;

	while (p && *p && *left > 0) {
		size_t len = 0, n;
		int num = 1;

		while (*p && !(isalnum((unsigned char)*p) || *p == '_'))
			p++;
		while (p[len] && (isalnum((unsigned char)p[len]) || p[len] == '_')) {
			num &= isdigit((unsigned char)p[len]) != 0;
			len++;
		}
		if (!len)
			break;
		n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)tolower((unsigned char)p[i]);
		if (num)
			rc = k->msg(k->ud, "<num>", 5);
		else if (is_hexword(buf, n))
			rc = k->msg(k->ud, "<sha>", 5);
		else
			rc = k->msg(k->ud, buf, n);
		if (rc)
			return rc;
		(*left)--;
		p += len;
	}
	return 0;
}

static int tokenize_commit(const struct sink *k, const ss_commit *c, const ss_patchnet_config *cfg)
{
	ss_ctok toks[128];
	int left = cfg->msg_len, nfile = 0, rc;

	if ((rc = msg_words(k, c->subject, &left)) || (rc = msg_words(k, c->body, &left)))
		return rc;
	for (size_t t = 0; t < c->ntrailers; t++)
		if ((rc = msg_words(k, c->trailers[t].key, &left)))
			return rc;
	for (size_t f = 0; f < c->nfiles && nfile < cfg->files; f++) {
		const ss_file *file = &c->files[f];
		int nhunk = 0;

		if (file->binary)
			continue;
		for (size_t h = 0; h < file->nhunks && nhunk < cfg->hunks; h++) {
			const ss_hunk *hk = &file->hunks[h];
			ss_ctok_state st[2] = { SS_CTOK_STATE_INIT, SS_CTOK_STATE_INIT };
			int nline[2] = { 0, 0 };

			for (size_t l = 0; l < hk->nlines; l++) {
				const ss_line *ln = &hk->lines[l];
				int side = ln->origin == '-' ? SS_PATCHNET_REMOVED :
					   ln->origin == '+' ? SS_PATCHNET_ADDED : -1;
				size_t n;

				if (side < 0) {
					/* context keeps both sides' comment state */
					ss_ctok_line(NULL, 0, &st[0], ln->text, ln->len);
					ss_ctok_line(NULL, 0, &st[1], ln->text, ln->len);
					continue;
				}
				n = ss_ctok_line(toks, 128, &st[side], ln->text, ln->len);
				if (!n || nline[side] >= cfg->lines)
					continue;
				if (n > (size_t)cfg->tokens)
					n = (size_t)cfg->tokens;
				for (size_t q = 0; q < n; q++)
					if ((rc = k->code(k->ud, side, nfile, nhunk, nline[side], &toks[q],
							  ln, ss_file_path(file))))
						return rc;
				nline[side]++;
			}
			nhunk += nline[0] || nline[1];
		}
		nfile += nhunk > 0;
	}
	return 0;
}

/* ---- the dataset store ------------------------------------------------- */

struct pn_line {
	uint8_t side, file, hunk, line;
	uint32_t n;          /* tokens */
	size_t first;        /* in tok */
};

struct pn_ex {
	size_t msg_first, line_first;
	uint32_t msg_n, nlines;
};

struct pn_store {
	ss_patchnet_config caps;   /* the caps tokens were cut at */
	ss_strmap *msg_dict, *code_dict;
	uint8_t *code_ident;       /* per code_dict id: an identifier */
	size_t ident_cap;
	uint32_t *tok;
	size_t ntok, tokcap;
	struct pn_line *lines;
	size_t nlines, linecap;
	struct pn_ex *ex;
	size_t nex, excap;
};

static void store_free(void *state)
{
	struct pn_store *s = state;

	if (!s)
		return;
	ss_strmap_free(s->msg_dict);
	ss_strmap_free(s->code_dict);
	free(s->code_ident);
	free(s->tok);
	free(s->lines);
	free(s->ex);
	free(s);
}

#define NOMEM_TOKENS() ss_error_code(SS_ENOMEM, "out of memory for patchnet tokens")

static int store_tok(struct pn_store *s, uint32_t id)
{
	if (SS_GROW(s->tok, s->ntok + 1, s->tokcap))
		return NOMEM_TOKENS();
	s->tok[s->ntok++] = id;
	return 0;
}

static int store_msg(void *ud, const char *w, size_t len)
{
	struct pn_store *s = ud;
	uint32_t id;
	int rc;

	if ((rc = ss_strmap_intern(s->msg_dict, w, len, &id)) || (rc = store_tok(s, id)))
		return rc;
	s->ex[s->nex].msg_n++;
	return 0;
}

static int store_code(void *ud, int side, int file, int hunk, int line, const ss_ctok *t,
		      const ss_line *ln, const char *path)
{
	struct pn_store *s = ud;
	struct pn_ex *e = &s->ex[s->nex];
	struct pn_line *last = e->nlines ? &s->lines[s->nlines - 1] : NULL;
	uint32_t id;
	int rc;

	(void)ln;
	(void)path;
	if ((rc = ss_strmap_intern(s->code_dict, t->text, t->len, &id)))
		return rc;
	if (id >= s->ident_cap) {
		size_t old = s->ident_cap;

		if (SS_GROW(s->code_ident, (size_t)id + 1, s->ident_cap))
			return NOMEM_TOKENS();
		memset(s->code_ident + old, 0, s->ident_cap - old);
	}
	if (t->kind == SS_CTOK_IDENT || t->kind == SS_CTOK_HEADER)
		s->code_ident[id] = 1;
	if (!last || last->side != side || last->file != file || last->hunk != hunk ||
	    last->line != line) {
		if (SS_GROW(s->lines, s->nlines + 1, s->linecap))
			return NOMEM_TOKENS();
		last = &s->lines[s->nlines++];
		*last = (struct pn_line){ (uint8_t)side, (uint8_t)file, (uint8_t)hunk, (uint8_t)line,
					  0, s->ntok };
		e->nlines++;
	}
	if ((rc = store_tok(s, id)))
		return rc;
	last->n++;
	return 0;
}

static int store_add(void *state, const ss_commit *c, size_t i)
{
	struct pn_store *s = state;
	struct sink k = { store_msg, store_code, s };
	int rc;

	if (i != s->nex)
		return ss_error_code(SS_EINVALID, "patchnet store got commit %zu after %zu", i, s->nex);
	if (SS_GROW(s->ex, s->nex + 1, s->excap))
		return NOMEM_TOKENS();
	s->ex[s->nex] = (struct pn_ex){ s->ntok, s->nlines, 0, 0 };
	if ((rc = tokenize_commit(&k, c, &s->caps)))
		return rc;
	/* the message goes first, so its tokens are contiguous */
	s->nex++;
	return 0;
}

static int pn_prepare_dataset(ss_dataset *d)
{
	static const ss_patchnet_config caps = SS_PATCHNET_CONFIG_INIT;
	struct pn_store *s;
	ss_dataset_extractor x = { SS_MODEL_PATCHNET, NULL, store_add, store_free };

	if (ss_dataset_ext(d, SS_MODEL_PATCHNET))
		return 0; /* patchnet and patchnet-feat share one store */
	x.state = s = calloc(1, sizeof(*s));
	if (!s)
		return ss_error_code(SS_ENOMEM, "out of memory for the patchnet store");
	s->caps = caps;
	if (ss_strmap_new(&s->msg_dict) || ss_strmap_new(&s->code_dict)) {
		store_free(s);
		return ss_error_code(SS_ENOMEM, "out of memory for the patchnet store");
	}
	return ss_dataset_add_extractor(d, &x);
}

/* ---- model state and vocabularies -------------------------------------- */

struct pn_model {
	ss_patchnet_config cfg;
	ss_patchnet_net *net;
	ss_strmap *msg_vocab, *code_vocab;  /* model id = strmap id + reserved */
	int epochs;                         /* of the kept weights */
	/* patchnet-feat: the named features' scale (see ss_rows_fit_scale);
	 * cfg.features is the featurizer's dimension */
	float scale[SS_NDENSE];
};

/* patchnet-feat's feature rows of the examples idx[0..n) (row i =
 * example idx[i]), or with idx NULL of every dataset example (row i =
 * example i); NULL rows for patchnet. */
static int feature_rows(ss_rows **out, const ss_model *m, const ss_dataset *d,
			const size_t *idx, size_t n)
{
	const struct pn_model *pm = m->priv;
	size_t *all = NULL;
	ss_rows *rows;
	int rc;

	*out = NULL;
	if (m->kind != SS_MODEL_PATCHNET_FEAT)
		return 0;
	rows = calloc(1, sizeof(*rows));
	if (!rows)
		return ss_error_code(SS_ENOMEM, "out of memory for patchnet features");
	if (!idx) {
		n = ss_dataset_count(d);
		all = malloc((n ? n : 1) * sizeof(*all));
		if (!all) {
			free(rows);
			return ss_error_code(SS_ENOMEM, "out of memory for patchnet features");
		}
		for (size_t i = 0; i < n; i++)
			all[i] = i;
		idx = all;
	}
	rc = ss_rows_build(rows, &m->feat, d, idx, n, pm->scale);
	free(all);
	if (rc) {
		free(rows);
		return rc;
	}
	*out = rows;
	return 0;
}

static void feature_rows_free(ss_rows *rows)
{
	if (rows)
		ss_rows_free(rows);
	free(rows);
}

static void pn_free(ss_model *m)
{
	struct pn_model *pm = m->priv;

	if (!pm)
		return;
	ss_patchnet_net_free(pm->net);
	ss_strmap_free(pm->msg_vocab);
	ss_strmap_free(pm->code_vocab);
	free(pm);
	m->priv = NULL;
}

struct by_df {
	const ss_strmap *dict;
	const uint32_t *df;
};

/* qsort_r's comparison (the context with the call: no global). */
static int cmp_by_df(const void *a, const void *b, void *ud)
{
	const struct by_df *c = ud;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (c->df[x] != c->df[y])
		return c->df[x] > c->df[y] ? -1 : 1;
	return strcmp(ss_strmap_str(c->dict, x), ss_strmap_str(c->dict, y));
}

/* Words of dict in at least PN_MIN_DF of the examples, most frequent first,
 * at most max, into a new map.  df[ndict] holds the document frequencies. */
static int choose_vocab(ss_strmap **out, const ss_strmap *dict, const uint32_t *df, size_t max)
{
	size_t nd = ss_strmap_count(dict), k = 0;
	uint32_t *ids = malloc((nd ? nd : 1) * sizeof(*ids)), id;
	int rc;

	if (!ids)
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet vocabulary");
	if ((rc = ss_strmap_new(out)))
		goto free_ids;
	for (uint32_t i = 0; i < nd; i++)
		if (df[i] >= PN_MIN_DF)
			ids[k++] = i;
	{
		struct by_df c = { dict, df };

		qsort_r(ids, k, sizeof(*ids), cmp_by_df, &c);
	}
	if (k > max)
		k = max;
	for (size_t i = 0; i < k && !rc; i++)
		rc = ss_strmap_intern(*out, ss_strmap_str(dict, ids[i]), ss_strmap_len(dict, ids[i]),
				      &id);

free_ids:
	free(ids);
	return rc;
}

static int build_vocab(struct pn_model *pm, const struct pn_store *s, const size_t *idx,
		       size_t n)
{
	size_t nm = ss_strmap_count(s->msg_dict), nc = ss_strmap_count(s->code_dict);
	uint32_t *dfm = calloc(nm ? nm : 1, sizeof(*dfm)), *dfc = calloc(nc ? nc : 1, sizeof(*dfc));
	uint32_t *seenm = calloc(nm ? nm : 1, sizeof(*seenm));
	uint32_t *seenc = calloc(nc ? nc : 1, sizeof(*seenc));
	int rc = SS_ENOMEM;

	if (!dfm || !dfc || !seenm || !seenc)
		goto free_df;
	/* document frequency: seen[] holds the last example (+1) counted */
	for (size_t i = 0; i < n; i++) {
		const struct pn_ex *e = &s->ex[idx[i]];

		for (uint32_t q = 0; q < e->msg_n; q++) {
			uint32_t id = s->tok[e->msg_first + q];

			if (seenm[id] != i + 1) {
				seenm[id] = (uint32_t)(i + 1);
				dfm[id]++;
			}
		}
		for (uint32_t l = 0; l < e->nlines; l++) {
			const struct pn_line *ln = &s->lines[e->line_first + l];

			for (uint32_t q = 0; q < ln->n; q++) {
				uint32_t id = s->tok[ln->first + q];

				if (seenc[id] != i + 1) {
					seenc[id] = (uint32_t)(i + 1);
					dfc[id]++;
				}
			}
		}
	}
	if ((rc = choose_vocab(&pm->msg_vocab, s->msg_dict, dfm, PN_MSG_VOCAB)))
		goto free_df;
	rc = choose_vocab(&pm->code_vocab, s->code_dict, dfc, PN_CODE_VOCAB);

free_df:
	free(dfm);
	free(dfc);
	free(seenm);
	free(seenc);
	if (rc == SS_ENOMEM)
		ss_error_code(SS_ENOMEM, "out of memory for patchnet vocabularies");
	return rc;
}

/* Model ids for the store's dictionary ids. */
struct remap {
	int32_t *msg, *code;
};

static void remap_free(struct remap *r)
{
	free(r->msg);
	free(r->code);
}

static int remap_build(struct remap *r, const struct pn_model *pm, const struct pn_store *s)
{
	size_t nm = ss_strmap_count(s->msg_dict), nc = ss_strmap_count(s->code_dict);

	r->msg = malloc((nm ? nm : 1) * sizeof(*r->msg));
	r->code = malloc((nc ? nc : 1) * sizeof(*r->code));
	if (!r->msg || !r->code) {
		remap_free(r);
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet vocabulary map");
	}
	for (uint32_t i = 0; i < nm; i++) {
		uint32_t v = ss_strmap_find(pm->msg_vocab, ss_strmap_str(s->msg_dict, i),
					    ss_strmap_len(s->msg_dict, i));

		r->msg[i] = v == SS_STRMAP_NONE ? MSG_UNK : (int32_t)(v + MSG_RESERVED);
	}
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t v = ss_strmap_find(pm->code_vocab, ss_strmap_str(s->code_dict, i),
					    ss_strmap_len(s->code_dict, i));

		if (v != SS_STRMAP_NONE)
			r->code[i] = (int32_t)(v + CODE_RESERVED);
		else
			r->code[i] = i < s->ident_cap && s->code_ident[i] ? CODE_ID : CODE_UNK;
	}
	return 0;
}

/* Put dataset example e into slot j of b (its features from row row of
 * rows when not NULL). */
static int fill_slot(ss_patchnet_batch *b, int j, const struct pn_store *s, const struct remap *r,
		     const ss_rows *rows, size_t e, size_t row)
{
	const struct pn_ex *x = &s->ex[e];
	int32_t *msg = ss_patchnet_batch_msg(b, j);
	uint32_t nm = x->msg_n < (uint32_t)b->msg_len ? x->msg_n : (uint32_t)b->msg_len;

	for (uint32_t q = 0; q < nm; q++)
		msg[q] = r->msg[s->tok[x->msg_first + q]];
	for (uint32_t l = 0; l < x->nlines; l++) {
		const struct pn_line *ln = &s->lines[x->line_first + l];
		int32_t *t;
		uint32_t n = ln->n < (uint32_t)b->tokens ? ln->n : (uint32_t)b->tokens;

		if (ln->file >= b->files || ln->hunk >= b->hunks || ln->line >= b->lines)
			continue;
		t = ss_patchnet_batch_line(b, j, ln->side, ln->file, ln->hunk, ln->line);
		for (uint32_t q = 0; q < n; q++)
			t[q] = r->code[s->tok[ln->first + q]];
	}
	if (!rows)
		return 0;
	return ss_patchnet_batch_features(b, j, rows->idx + rows->row[row],
					  rows->val + rows->row[row], rows->row[row + 1] - rows->row[row]);
}

/* ---- scoring ----------------------------------------------------------- */

struct score_job {
	const struct pn_model *pm;
	const struct pn_store *s;
	const struct remap *r;
	const ss_rows *rows;
	int positional;         /* row of idx[i] is i, not idx[i] */
	const size_t *idx;
	size_t n;
	float *out;
	int nthreads;
};

static int score_share(void *arg, int t)
{
	struct score_job *j = arg;
	size_t a = j->n * (size_t)t / (size_t)j->nthreads;
	size_t z = j->n * (size_t)(t + 1) / (size_t)j->nthreads;
	ss_patchnet_batch *b;
	int rc;

	if (a == z)
		return 0;
	if ((rc = ss_patchnet_batch_new(&b, &j->pm->cfg, PN_BATCH)))
		return rc;
	for (size_t i = a; i < z && !rc; i += PN_BATCH) {
		size_t m = z - i < PN_BATCH ? z - i : PN_BATCH;

		ss_patchnet_batch_clear(b);
		b->n = (int)m;
		for (size_t k = 0; k < m && !rc; k++)
			rc = fill_slot(b, (int)k, j->s, j->r, j->rows, j->idx[i + k],
				       j->positional ? i + k : j->idx[i + k]);
		if (!rc)
			rc = ss_patchnet_net_predict(j->pm->net, b, j->out + i);
	}
	ss_patchnet_batch_free(b);
	return rc;
}

static int predict_examples(const struct pn_model *pm, const struct pn_store *s,
			    const struct remap *r, const ss_rows *rows, int positional,
			    const size_t *idx, size_t n, float *out)
{
	struct score_job j = { pm, s, r, rows, positional, idx, n, out, PN_SCORE_THREADS };

	return ss_model_parallel(j.nthreads, score_share, &j);
}

static int pn_score(const ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
		    float *out)
{
	const struct pn_model *pm = m->priv;
	const struct pn_store *s = ss_dataset_ext(d, SS_MODEL_PATCHNET);
	ss_rows *rows;
	struct remap r;
	int prev, rc;

	if (!s)
		return ss_error_code(SS_EINVALID, "dataset has no patchnet tokens");
	/* rows of the scored examples only (rank scores a few at a time) */
	if ((rc = feature_rows(&rows, m, d, idx, n)))
		return rc;
	if ((rc = remap_build(&r, pm, s))) {
		feature_rows_free(rows);
		return rc;
	}
	prev = ss_nn_set_blas_threads(1);
	rc = predict_examples(pm, s, &r, rows, 1, idx, n, out);
	ss_nn_set_blas_threads(prev);
	remap_free(&r);
	feature_rows_free(rows);
	return rc;
}

/* Tokens of one commit straight into slot 0 of a batch, by model
 * vocabulary; for explanations also what each slot holds. */
struct direct {
	const struct pn_model *pm;
	ss_patchnet_batch *b;
	int nmsg;
	int ntok[2];    /* tokens in the current line of each side */
	int cur[2][3];  /* file, hunk, line of that line */
	char (*words)[32];         /* [msg_len] message words, or NULL */
	const ss_line **lines;     /* [2][files][hunks][lines], or NULL */
	const char **paths;        /* [files] */
};

static int direct_msg(void *ud, const char *w, size_t len)
{
	struct direct *d = ud;
	uint32_t v = ss_strmap_find(d->pm->msg_vocab, w, len);

	if (d->nmsg >= d->b->msg_len)
		return 0;
	if (d->words)
		snprintf(d->words[d->nmsg], sizeof(d->words[0]), "%.*s", (int)len, w);
	ss_patchnet_batch_msg(d->b, 0)[d->nmsg++] =
		v == SS_STRMAP_NONE ? MSG_UNK : (int32_t)(v + MSG_RESERVED);
	return 0;
}

static int direct_code(void *ud, int side, int file, int hunk, int line, const ss_ctok *t,
		       const ss_line *ln, const char *path)
{
	struct direct *d = ud;
	uint32_t v = ss_strmap_find(d->pm->code_vocab, t->text, t->len);
	int32_t id;

	if (d->lines) {
		const ss_patchnet_batch *b = d->b;

		d->lines[(((size_t)side * b->files + file) * b->hunks + hunk) * b->lines + line] = ln;
		d->paths[file] = path;
	}
	if (d->cur[side][0] != file || d->cur[side][1] != hunk || d->cur[side][2] != line) {
		d->cur[side][0] = file;
		d->cur[side][1] = hunk;
		d->cur[side][2] = line;
		d->ntok[side] = 0;
	}
	if (v != SS_STRMAP_NONE)
		id = (int32_t)(v + CODE_RESERVED);
	else
		id = t->kind == SS_CTOK_IDENT || t->kind == SS_CTOK_HEADER ? CODE_ID : CODE_UNK;
	if (d->ntok[side] < d->b->tokens)
		ss_patchnet_batch_line(d->b, 0, side, file, hunk, line)[d->ntok[side]++] = id;
	return 0;
}

/* Slot 0 of b gets commit c's features under m (patchnet-feat); names
 * (may be NULL) the names of its hashed features. */
static int direct_features(ss_patchnet_batch *b, const ss_model *m, const ss_commit *c,
			   const ss_history *hist, ss_strbuf *names)
{
	const struct pn_model *pm = m->priv;
	ss_svec v;
	int rc;

	if (m->kind != SS_MODEL_PATCHNET_FEAT)
		return 0;
	ss_svec_init(&v);
	if (!(rc = ss_featurizer_vector(&v, &m->feat, c, hist, names))) {
		ss_rows_scale_vec(&v, pm->scale);
		rc = ss_patchnet_batch_features(b, 0, (const int32_t *)v.idx, v.val, v.n);
	}
	ss_svec_release(&v);
	return rc;
}

static int pn_score_commit(const ss_model *m, const ss_commit *c, const ss_history *hist,
			   float *out)
{
	const struct pn_model *pm = m->priv;
	ss_patchnet_batch *b;
	struct direct d = { pm, NULL, 0, { 0, 0 }, { { -1, -1, -1 }, { -1, -1, -1 } }, NULL, NULL,
			    NULL };
	struct sink k = { direct_msg, direct_code, &d };
	int rc;

	if ((rc = ss_patchnet_batch_new(&b, &pm->cfg, 1)))
		return rc;
	d.b = b;
	b->n = 1;
	if (!(rc = tokenize_commit(&k, c, &pm->cfg)) &&
	    !(rc = direct_features(b, m, c, hist, NULL)))
		rc = ss_patchnet_net_predict(pm->net, b, out);
	ss_patchnet_batch_free(b);
	return rc;
}

/* ---- explanations ------------------------------------------------------ */

static int cmp_reason_pos(const void *a, const void *b)
{
	const ss_patchnet_reason *x = a, *y = b;

	if (x->contrib != y->contrib)
		return x->contrib > y->contrib ? -1 : 1;
	return strcmp(x->text, y->text);
}

static int cmp_reason(const void *a, const void *b)
{
	const ss_patchnet_reason *x = a, *y = b;

	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* Reasons by side and text, then by position among the hits. */
static int cmp_reason_key(const void *a, const void *b, void *arg)
{
	const ss_patchnet_reason *all = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c;

	if (all[i].side != all[j].side)
		return all[i].side < all[j].side ? -1 : 1;
	if ((c = strcmp(all[i].text, all[j].text)))
		return c;
	return i < j ? -1 : i > j;
}

static int explain_commit(ss_patchnet_reason *out, size_t max, size_t *n, const ss_model *m,
			  const ss_commit *c, const ss_history *hist, int positive_only)
{
	const struct pn_model *pm = m->priv;
	const ss_patchnet_config *cfg = &pm->cfg;
	size_t nslots = (size_t)2 * cfg->files * cfg->hunks * cfg->lines;
	size_t cap, nh = 0, nr = 0;
	struct direct d = { pm, NULL, 0, { 0, 0 }, { { -1, -1, -1 }, { -1, -1, -1 } }, NULL, NULL,
			    NULL };
	struct sink k = { direct_msg, direct_code, &d };
	ss_patchnet_hit *hits = NULL;
	ss_patchnet_reason *all = NULL, *merged = NULL;
	ss_patchnet_batch *b = NULL;
	ss_strbuf names = SS_STRBUF_INIT, name = SS_STRBUF_INIT;
	ss_feat_names *ix = NULL;
	size_t *order = NULL;
	int rc;

	*n = 0;
	d.words = malloc((size_t)cfg->msg_len * sizeof(*d.words));
	d.lines = calloc(nslots, sizeof(*d.lines));
	d.paths = calloc((size_t)cfg->files, sizeof(*d.paths));
	if (!d.words || !d.lines || !d.paths) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a patchnet explanation");
		goto free_all;
	}
	if ((rc = ss_patchnet_batch_new(&b, cfg, 1)))
		goto free_all;
	d.b = b;
	b->n = 1;
	if ((rc = tokenize_commit(&k, c, cfg)) || (rc = direct_features(b, m, c, hist, &names)))
		goto free_all;
	/* every position that can win a pool, and every feature */
	cap = (size_t)cfg->msg_len + nslots + b->feat_n[0];
	hits = malloc(cap * sizeof(*hits));
	all = malloc(cap * sizeof(*all));
	if (!hits || !all) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a patchnet explanation");
		goto free_all;
	}
	if ((rc = ss_patchnet_net_explain(hits, cap, &nh, NULL, pm->net, b, 0)))
		goto free_all;
	if (nh > cap)
		nh = cap;
	order = malloc((nh ? nh : 1) * sizeof(*order));
	merged = malloc((nh ? nh : 1) * sizeof(*merged));
	if (!order || !merged) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a patchnet explanation");
		goto free_all;
	}
	if ((rc = ss_feat_names_new(&ix, &m->feat, names.buf)))
		goto free_all;
	for (size_t i = 0; i < nh; i++) {
		const ss_patchnet_hit *h = &hits[i];
		ss_patchnet_reason r = { h->side, "", h->share, h->contrib };

		if (h->side < 0) {
			snprintf(r.text, sizeof(r.text), "%s", d.words[h->pos]);
		} else if (h->side == SS_PATCHNET_FEATURES) {
			uint32_t fi = (uint32_t)b->feat_idx[b->feat_off[0] + (size_t)h->pos];

			name.len = 0;
			if ((rc = ss_featurizer_name_ix(&m->feat, fi, ix, &name)))
				goto free_all;
			snprintf(r.text, sizeof(r.text), "%s", name.buf ? name.buf : "?");
		} else {
			const ss_line *ln = d.lines[(((size_t)h->side * cfg->files + h->file) *
						     cfg->hunks + h->hunk) * cfg->lines + h->pos];
			const char *t = ln ? ln->text : "";

			while (*t == ' ' || *t == '\t')
				t++;
			snprintf(r.text, sizeof(r.text), "%s: %c%s",
				 d.paths[h->file] ? d.paths[h->file] : "?",
				 h->side == SS_PATCHNET_ADDED ? '+' : '-', t);
		}
		all[i] = r;
		order[i] = i;
	}
	/*
	 * One reason per word or line: a word's positions add up, in the
	 * order of the hits.  Sorted by text rather than searched for, as a
	 * commit of 200,000 files has a million features.
	 */
	qsort_r(order, nh, sizeof(*order), cmp_reason_key, all);
	for (size_t i = 0; i < nh; i++) {
		const ss_patchnet_reason *r = &all[order[i]];

		if (nr && merged[nr - 1].side == r->side && !strcmp(merged[nr - 1].text, r->text)) {
			merged[nr - 1].share += r->share;
			merged[nr - 1].contrib += r->contrib;
		} else {
			merged[nr++] = *r;
		}
	}
	free(all);
	all = merged;
	merged = NULL;
	if (positive_only) {
		size_t kept = 0;

		for (size_t q = 0; q < nr; q++)
			if (all[q].contrib > 0.0f)
				all[kept++] = all[q];
		nr = kept;
	}
	qsort(all, nr, sizeof(*all), positive_only ? cmp_reason_pos : cmp_reason);
	memcpy(out, all, (nr < max ? nr : max) * sizeof(*all));
	*n = nr < max ? nr : max;

free_all:
	ss_patchnet_batch_free(b);
	ss_feat_names_free(ix);
	free(order);
	free(merged);
	free(hits);
	free(all);
	free(d.words);
	free(d.lines);
	free(d.paths);
	ss_strbuf_release(&names);
	ss_strbuf_release(&name);
	return rc;
}

int ss_patchnet_explain_commit(ss_patchnet_reason *out, size_t max, size_t *n,
			       const struct ss_model *m, const struct ss_commit *c,
			       const ss_history *hist, int positive_only)
{
	*n = 0;
	if ((m->kind != SS_MODEL_PATCHNET && m->kind != SS_MODEL_PATCHNET_FEAT) || !m->priv)
		return ss_error_code(SS_EINVALID, "not a patchnet model");
	return explain_commit(out, max, n, m, c, hist, positive_only);
}

/* ---- training ---------------------------------------------------------- */

static int fit(struct pn_model *pm, const ss_dataset *d, const struct pn_store *s,
	       const struct remap *r, const ss_rows *rows, const size_t *fitx, size_t nfit,
	       const size_t *val, size_t nval, const ss_train_options *o, float *val_score)
{
	ss_params *p = ss_patchnet_net_params(pm->net);
	size_t *perm = malloc((nfit ? nfit : 1) * sizeof(*perm)), npos = 0;
	float *best_w = malloc(p->n * sizeof(*best_w)), *vs = malloc((nval ? nval : 1) * sizeof(*vs));
	uint8_t *vlabel = malloc((nval ? nval : 1) * sizeof(*vlabel));
	float wpos = 1.0f, wneg = 1.0f;
	ss_patchnet_batch *b = NULL;
	ss_early_stop es = SS_EARLY_STOP_INIT(o->patience);
	ss_rng rng;
	int rc = SS_ENOMEM;

	if (!perm || !best_w || !vs || !vlabel)
		goto free_all;
	if ((rc = ss_patchnet_batch_new(&b, &pm->cfg, PN_BATCH)))
		goto free_all;
	ss_rng_seed(&rng, o->seed ^ 0x5041544348ULL);
	for (size_t i = 0; i < nfit; i++) {
		perm[i] = fitx[i];
		npos += ss_dataset_example(d, fitx[i])->label;
	}
	if (o->mlp_balance && npos && npos < nfit) {
		/* each class weighs as much as the other in the loss */
		wpos = (float)((double)nfit / (2.0 * (double)npos));
		wneg = (float)((double)nfit / (2.0 * (double)(nfit - npos)));
	}
	for (size_t i = 0; i < nval; i++)
		vlabel[i] = ss_dataset_example(d, val[i])->label;
	memcpy(best_w, p->w, p->n * sizeof(*best_w));
	pm->epochs = 0;
	if (pm->cfg.skip && nval) {
		/* warm-started: the untrained net is the mlp, and it stays
		 * unless an epoch beats it on validation */
		if ((rc = predict_examples(pm, s, r, rows, 0, val, nval, val_score)))
			goto free_all;
		es.best = ss_metrics_avg_precision(val_score, vlabel, nval);
		ss_model_logf(o, "patchnet: epoch 0 loss - validation PR-AUC %.4f", es.best);
	}
	for (int e = 1; e <= o->epochs; e++) {
		double loss = 0.0, bl;
		size_t nb = 0;

		for (size_t i = nfit; i > 1; i--) {
			size_t j = ss_rng_below(&rng, (uint32_t)i), tmp = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = tmp;
		}
		for (size_t i = 0; i < nfit; i += PN_BATCH) {
			size_t m = nfit - i < PN_BATCH ? nfit - i : PN_BATCH;

			ss_patchnet_batch_clear(b);
			b->n = (int)m;
			for (size_t k = 0; k < m; k++) {
				int lab = ss_dataset_example(d, perm[i + k])->label;

				if ((rc = fill_slot(b, (int)k, s, r, rows, perm[i + k], perm[i + k])))
					goto free_all;
				b->label[k] = (float)lab;
				b->weight[k] = lab ? wpos : wneg;
			}
			if ((rc = ss_patchnet_net_train_step(pm->net, b, &bl)))
				goto free_all;
			loss += bl;
			nb++;
		}
		if (!nval) {
			ss_model_logf(o, "patchnet: epoch %d loss %.4f", e, loss / (double)(nb ? nb : 1));
			memcpy(best_w, p->w, p->n * sizeof(*best_w));
			pm->epochs = e;
			continue;
		}
		if ((rc = predict_examples(pm, s, r, rows, 0, val, nval, vs)))
			goto free_all;
		{
			double ap;
			int v = ss_early_stop_epoch(&es, e, vs, vlabel, nval, &ap);

			ss_model_logf(o, "patchnet: epoch %d loss %.4f validation PR-AUC %.4f", e,
				      loss / (double)(nb ? nb : 1), ap);
			if (v == SS_EARLY_STOP_BEST) {
				pm->epochs = e;
				memcpy(best_w, p->w, p->n * sizeof(*best_w));
				memcpy(val_score, vs, nval * sizeof(*vs));
			} else if (v == SS_EARLY_STOP_STOP) {
				break;
			}
		}
	}
	memcpy(p->w, best_w, p->n * sizeof(*best_w));
	rc = 0;

free_all:
	if (rc == SS_ENOMEM)
		ss_error_code(SS_ENOMEM, "out of memory for patchnet training");
	ss_patchnet_batch_free(b);
	free(perm);
	free(best_w);
	free(vs);
	free(vlabel);
	return rc;
}

/*
 * Train mlp on the same split with the same options (one hidden layer of
 * the branch's width, no wide path, no refit) and copy it into pm's net,
 * whose head starts silent: the net scores as the mlp does before its
 * first step.  The CNN then learns what the features miss, and fit()
 * keeps the mlp when no epoch beats it on validation.
 */
static int warm_start(struct pn_model *pm, const ss_model *m, const ss_dataset *d,
		      const size_t *fitx, size_t nfit, const size_t *val, size_t nval,
		      const ss_train_options *o)
{
	ss_model mlp = { .kind = SS_MODEL_MLP, .ops = &ss_mlp_ops, .feat = m->feat };
	ss_train_options mo = *o;
	float *vs = malloc((nval ? nval : 1) * sizeof(*vs));
	ss_mlp_weights mw;
	int rc;

	if (!vs)
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet model");
	mo.hidden = pm->cfg.feat_hidden;
	mo.hidden2 = 0;
	mo.wide = 0;
	mo.refit = 0;
	/* mlp reads the featurizer in place (borrowed from m, not freed) */
	if ((rc = ss_mlp_ops.train(&mlp, d, fitx, nfit, val, nval, &mo, vs)) ||
	    (rc = ss_mlp_get_weights(&mw, &mlp)))
		goto free_mlp;
	if (mw.in != pm->cfg.features || mw.h1 != pm->cfg.feat_hidden) {
		rc = ss_error_code(SS_EINVALID, "mlp of %d -> %d cannot start a branch of %d -> %d",
				   mw.in, mw.h1, pm->cfg.features, pm->cfg.feat_hidden);
		goto free_mlp;
	}
	/* the features are scaled as the mlp scaled them */
	memcpy(pm->scale, mw.scale, sizeof(pm->scale));
	rc = ss_patchnet_net_warm_start(pm->net, mw.w1, mw.b1, mw.wo, mw.bo);

free_mlp:
	if (mlp.priv)
		ss_mlp_ops.free(&mlp);
	free(vs);
	return rc;
}

static int pn_train(ss_model *m, const ss_dataset *d, const size_t *fitx, size_t nfit,
		    const size_t *val, size_t nval, const ss_train_options *o, float *val_score)
{
	const struct pn_store *s = ss_dataset_ext(d, SS_MODEL_PATCHNET);
	struct pn_model *pm;
	ss_rows *rows = NULL;
	size_t *all;
	struct remap r;
	int rc, prev;

	if (!s)
		return ss_error_code(SS_EINVALID,
				     "dataset has no patchnet tokens (prepare it for patchnet)");
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet model");
	m->priv = pm;
	pm->cfg = s->caps;
	all = malloc((nfit + nval) * sizeof(*all));
	if (!all)
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet model");
	memcpy(all, fitx, nfit * sizeof(*all));
	if (nval)
		memcpy(all + nfit, val, nval * sizeof(*all));
	/* the vocabulary comes from training commits only (fit and val) */
	rc = build_vocab(pm, s, all, nfit + nval);
	free(all);
	if (rc)
		return rc;
	pm->cfg.msg_vocab = (int)ss_strmap_count(pm->msg_vocab) + MSG_RESERVED;
	pm->cfg.code_vocab = (int)ss_strmap_count(pm->code_vocab) + CODE_RESERVED;
	/* --lr, --dropout, --no-class-weights, --epochs and --patience are
	 * shared with mlp (same defaults); --weight-decay and --batch are
	 * not: mlp's 3e-3 decay and 128 batch were chosen for another net */
	pm->cfg.lr = o->lr;
	pm->cfg.dropout = o->dropout;
	pm->cfg.seed = o->seed;
	pm->cfg.threads = o->threads > 0 ? o->threads : 1;
	pm->cfg.data_parallel = 1;
	if (m->kind == SS_MODEL_PATCHNET_FEAT) {
		/* the branch is mlp's first layer: --hidden sets its width, and
		 * --weight-decay (mlp's 3e-3 by default) holds the whole net,
		 * whose 26k x 32 sparse weights overfit at patchnet's 1e-5
		 * (bench/out/patchnet-feat-tune.txt) */
		pm->cfg.weight_decay = o->weight_decay;
		/* dropout on the branch too, and a linear path from the
		 * features to the logit: on tip's validation slice (mean of 3
		 * seeds) average precision 0.403 without either, 0.417 with the
		 * dropout, 0.415 with the path, 0.433 with both; DPDK 0.923
		 * either way (docs/patchnet.md) */
		pm->cfg.feat_dropout = o->dropout;
		pm->cfg.wide = 1;
		/* and dropout 0.3 on the head's input, so that the head cannot
		 * lean on a few CNN filters that fit the training commits: tip
		 * validation 0.433 -> 0.449 (0.445 at 0.5), DPDK 0.923 either
		 * way */
		pm->cfg.head_dropout = 0.3f;
		pm->cfg.features = (int)ss_featurizer_dim(&m->feat);
		pm->cfg.feat_hidden = o->hidden > 0 ? o->hidden : 32;
		/* start from mlp trained on the same split (warm_start(); off
		 * with --no-warm-start): mean validation PR-AUC of 3 seeds
		 * 0.450 on tip (0.449 cold) and 0.924 on DPDK (0.923); the
		 * CNN is kept only where it beats the features alone */
		pm->cfg.skip = o->warm_start != 0;
		/* a warm start takes the scale of its mlp, fitted on the same
		 * rows */
		if (!pm->cfg.skip && (rc = ss_rows_fit_scale(pm->scale, &m->feat, d, fitx, nfit)))
			return rc;
	}
	if ((rc = ss_patchnet_net_new(&pm->net, &pm->cfg)))
		return rc;
	if (pm->cfg.skip && (rc = warm_start(pm, m, d, fitx, nfit, val, nval, o)))
		return rc;
	if ((rc = feature_rows(&rows, m, d, NULL, 0)))
		return rc;
	if ((rc = remap_build(&r, pm, s))) {
		feature_rows_free(rows);
		return rc;
	}
	/* our threads split batches: measured faster than BLAS threads */
	prev = ss_nn_set_blas_threads(1);
	rc = fit(pm, d, s, &r, rows, fitx, nfit, val, nval, o, val_score);
	ss_nn_set_blas_threads(prev);
	remap_free(&r);
	feature_rows_free(rows);
	if (!rc) {
		char branch[64] = "";

		if (pm->cfg.features)
			snprintf(branch, sizeof(branch), " features=%d->%d%s head-dropout=%g%s",
				 pm->cfg.features, pm->cfg.feat_hidden, pm->cfg.wide ? " wide" : "",
				 (double)pm->cfg.head_dropout, pm->cfg.skip ? " warm-start" : "");
		snprintf(m->info.params, sizeof(m->info.params),
			 "embed=%d filters=%d hidden=%d dropout=%g lr=%g l2=%g batch=%d "
			 "epochs=%d vocab=%d/%d%s%s", pm->cfg.embed, pm->cfg.filters,
			 pm->cfg.hidden, (double)pm->cfg.dropout, (double)pm->cfg.lr,
			 (double)pm->cfg.weight_decay, PN_BATCH, pm->epochs, pm->cfg.msg_vocab,
			 pm->cfg.code_vocab, o->mlp_balance ? " balanced" : "", branch);
	}
	return rc;
}

/* ---- files ------------------------------------------------------------- */

static void save_vocab(ss_wbuf *w, const ss_strmap *v)
{
	size_t n = ss_strmap_count(v);

	ss_w_u32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		ss_w_str(w, ss_strmap_str(v, (uint32_t)i));
}

static int load_vocab(ss_strmap **out, ss_rbuf *r, uint32_t max)
{
	uint32_t n = ss_r_u32(r), id;
	char word[1024];
	int rc;

	if (r->err || n > max)
		return ss_error_code(SS_EINVALID, "bad patchnet vocabulary size %u", n);
	if ((rc = ss_strmap_new(out)))
		return rc;
	for (uint32_t i = 0; i < n && !r->err; i++) {
		ss_r_str(r, word, sizeof(word), sizeof(word) - 1);
		if (r->err)
			break;
		if ((rc = ss_strmap_intern(*out, word, strlen(word), &id)))
			return rc;
		if (id != i)
			return ss_error_code(SS_EINVALID, "repeated patchnet vocabulary word");
	}
	return r->err;
}

static void pn_save(const ss_model *m, ss_wbuf *w)
{
	const struct pn_model *pm = m->priv;
	const ss_patchnet_config *c = &pm->cfg;
	ss_params *p = ss_patchnet_net_params(pm->net);

	ss_w_u32(w, (uint32_t)c->msg_len);
	ss_w_u32(w, (uint32_t)c->files);
	ss_w_u32(w, (uint32_t)c->hunks);
	ss_w_u32(w, (uint32_t)c->lines);
	ss_w_u32(w, (uint32_t)c->tokens);
	ss_w_u32(w, (uint32_t)c->embed);
	ss_w_u32(w, (uint32_t)c->filters);
	ss_w_u32(w, (uint32_t)c->hidden);
	ss_w_f32(w, c->dropout);
	ss_w_u32(w, (uint32_t)pm->epochs);
	if (m->kind == SS_MODEL_PATCHNET_FEAT) {
		ss_w_u32(w, (uint32_t)c->features);
		ss_w_u32(w, (uint32_t)c->feat_hidden);
		/* flags: the wide path, the skip path (files without it read
		 * as before) */
		ss_w_u32(w, (uint32_t)(c->wide | c->skip << 1));
		ss_w_f32s(w, pm->scale, SS_NDENSE);
	}
	save_vocab(w, pm->msg_vocab);
	save_vocab(w, pm->code_vocab);
	ss_w_u64(w, p->n);
	ss_w_f32s(w, p->w, p->n);
}

static int pn_load(ss_model *m, ss_rbuf *r)
{
	struct pn_model *pm = calloc(1, sizeof(*pm));
	ss_patchnet_config *c;
	ss_params *p;
	uint64_t n;
	uint32_t flags;
	size_t i;
	int rc;

	if (!pm)
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet model");
	m->priv = pm;
	c = &pm->cfg;
	*c = (ss_patchnet_config)SS_PATCHNET_CONFIG_INIT;
	c->msg_len = (int)ss_r_u32(r);
	c->files = (int)ss_r_u32(r);
	c->hunks = (int)ss_r_u32(r);
	c->lines = (int)ss_r_u32(r);
	c->tokens = (int)ss_r_u32(r);
	c->embed = (int)ss_r_u32(r);
	c->filters = (int)ss_r_u32(r);
	c->hidden = (int)ss_r_u32(r);
	c->dropout = ss_r_f32(r);
	pm->epochs = (int)ss_r_u32(r);
	if (m->kind == SS_MODEL_PATCHNET_FEAT) {
		c->features = (int)ss_r_u32(r);
		c->feat_hidden = (int)ss_r_u32(r);
		flags = ss_r_u32(r);
		c->wide = flags & 1;
		c->skip = flags >> 1 & 1;
		ss_r_f32s(r, pm->scale, SS_NDENSE);
		if (!r->err && (i = ss_model_nonfinite(pm->scale, SS_NDENSE)) < SS_NDENSE)
			return ss_model_nonfinite_error("patchnet-feat input scale", i, pm->scale[i]);
		if (!r->err && (c->features != (int)ss_featurizer_dim(&m->feat) ||
				c->feat_hidden < 1 || c->feat_hidden > 65536 || flags > 3))
			return ss_error_code(SS_EINVALID, "bad patchnet feature branch");
	}
	if (r->err)
		return SS_EINVALID;
	/* the tokenizer stores slot numbers in bytes */
	if (c->msg_len < 1 || c->msg_len > 1 << 16 || c->files < 1 || c->files > 255 ||
	    c->hunks < 1 || c->hunks > 255 || c->lines < 1 || c->lines > 255 || c->tokens < 1 ||
	    c->tokens > 4096 || c->embed < 1 || c->embed > 4096 || c->filters < 1 ||
	    c->filters > 4096 || c->hidden < 1 || c->hidden > 65536 || !(c->dropout >= 0.0f) ||
	    !(c->dropout < 1.0f))
		return ss_error_code(SS_EINVALID, "bad patchnet shape");
	if ((rc = load_vocab(&pm->msg_vocab, r, 1u << 24)) ||
	    (rc = load_vocab(&pm->code_vocab, r, 1u << 24)))
		return rc;
	c->msg_vocab = (int)ss_strmap_count(pm->msg_vocab) + MSG_RESERVED;
	c->code_vocab = (int)ss_strmap_count(pm->code_vocab) + CODE_RESERVED;
	/* the shape must fit the floats the file still holds before any is
	 * allocated: a corrupt shape would otherwise make (and initialise)
	 * gigabytes of weights first (fuzz finding 12) */
	if (ss_patchnet_net_nparams(c) * 4.0 + 8.0 > (double)(r->end - r->p))
		return ss_error_code(SS_EINVALID, "patchnet of %.0f weights in %zu bytes",
				     ss_patchnet_net_nparams(c), (size_t)(r->end - r->p));
	if ((rc = ss_patchnet_net_new(&pm->net, c)))
		return rc;
	p = ss_patchnet_net_params(pm->net);
	n = ss_r_u64(r);
	if (r->err)
		return SS_EINVALID;
	if (n != p->n)
		return ss_error_code(SS_EINVALID, "%llu weights for a patchnet of %zu",
				     (unsigned long long)n, p->n);
	ss_r_f32s(r, p->w, p->n);
	if (r->err)
		return r->err;
	if ((i = ss_model_nonfinite(p->w, p->n)) < p->n)
		return ss_model_nonfinite_error(m->kind == SS_MODEL_PATCHNET_FEAT ? "patchnet-feat weight"
										   : "patchnet weight",
						i, p->w[i]);
	return 0;
}

static size_t pn_nweights(const ss_model *m)
{
	const struct pn_model *pm = m->priv;

	return pm && pm->net ? ss_patchnet_net_params(pm->net)->n : 0;
}

/* patchnet and patchnet-feat differ only in their kind (which feature_rows,
 * direct_features, save and load look at) and in using the features. */
#define PN_OPS(k, n, feat)                                                     \
	{ .kind = (k), .name = (n), .uses_features = (feat), .train = pn_train,  \
	  .score = pn_score, .score_commit = pn_score_commit, .explain = NULL,   \
	  .prepare_dataset = pn_prepare_dataset, .save = pn_save, .load = pn_load, \
	  .nweights = pn_nweights, .free = pn_free }

/* The paper's network with one more branch: the commit features of linear
 * and mlp (history, metrics, words, paths, people) into the head. */
const ss_model_ops ss_patchnet_feat_ops = PN_OPS(SS_MODEL_PATCHNET_FEAT, "patchnet-feat", 1);
const ss_model_ops ss_patchnet_ops = PN_OPS(SS_MODEL_PATCHNET, "patchnet", 0);
