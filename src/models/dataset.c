/*
 * dataset.c - featurized commits in flat arrays (see dataset.h).
 *
 * Per example: ss_example, SS_NDENSE floats, and one span of a shared
 * uint32 pool holding first the name hashes, then the sorted distinct word
 * ids.  About 1 KB per commit instead of the commit's megabytes of diff.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commit/patchid.h"
#include "models/dataset.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/u64map.h"

#define MAX_EXTRACTORS 8

struct ss_dataset {
	ss_feat_options opts;
	ss_strmap *words;
	ss_example *ex;
	float *dense;           /* [n][SS_NDENSE] */
	size_t *off;            /* [n + 1] spans of pool */
	uint32_t *nhash;        /* [n] hashes at the start of each span */
	size_t *subj;           /* [n] offsets into subjects */
	ss_strbuf subjects;     /* each example's subject, NUL-terminated */
	uint32_t *pool;
	size_t n, cap, npool, poolcap;
	ss_history *hist;       /* the commits added so far */
	ss_feat_raw raw;        /* reused scratch */
	uint32_t *ids;          /* scratch for one commit's word ids */
	size_t idcap;
	ss_dataset_extractor ext[MAX_EXTRACTORS];
	size_t next;
	/* one example per patch: open addressing from patch key to example */
	int fold_copies;
	ss_u64map patches;      /* patch key -> its first example */
	ss_dataset_copies copies;
	ss_dataset_reads reads;
	int last_extracted;     /* the last add extracted d->raw from a commit */
};

int ss_dataset_new(ss_dataset **out, const ss_feat_options *opts)
{
	ss_dataset *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return SS_ENOMEM;
	d->opts = *opts;
	ss_feat_raw_init(&d->raw);
	d->off = calloc(1, sizeof(*d->off));
	if (!d->off || ss_strmap_new(&d->words) || ss_history_new(&d->hist)) {
		ss_dataset_free(d);
		return SS_ENOMEM;
	}
	*out = d;
	return 0;
}

void ss_dataset_free(ss_dataset *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->next; i++)
		if (d->ext[i].free)
			d->ext[i].free(d->ext[i].state);
	ss_strmap_free(d->words);
	ss_history_free(d->hist);
	ss_feat_raw_release(&d->raw);
	free(d->ex);
	free(d->dense);
	free(d->off);
	free(d->nhash);
	free(d->subj);
	ss_strbuf_release(&d->subjects);
	free(d->pool);
	ss_u64map_release(&d->patches);
	free(d->ids);
	free(d);
}

int ss_dataset_add_extractor(ss_dataset *d, const ss_dataset_extractor *x)
{
	if (d->next == MAX_EXTRACTORS || d->n) {
		if (x->free)
			x->free(x->state);
		return ss_error_set("cannot add an extractor to a dataset %s",
				    d->n ? "that already holds commits" : "that has too many");
	}
	d->ext[d->next++] = *x;
	return 0;
}

void *ss_dataset_ext(const ss_dataset *d, int kind)
{
	size_t i;

	for (i = 0; i < d->next; i++)
		if (d->ext[i].kind == kind)
			return d->ext[i].state;
	return NULL;
}

int ss_commit_says_fix(const ss_commit *c)
{
	if (c->subject && (strcasestr(c->subject, "fix") || strcasestr(c->subject, "bug")))
		return 1;
	return c->message && (strcasestr(c->message, "fix") || strcasestr(c->message, "bug"));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The per-example arrays share d->cap (off has one element more). */
static int grow(ss_dataset *d)
{
	size_t cap = ss_grow_cap(d->cap, d->n + 1);

	if (ss_grow_to(&d->ex, cap, sizeof(*d->ex)) ||
	    ss_grow_to(&d->dense, cap, SS_NDENSE * sizeof(*d->dense)) ||
	    ss_grow_to(&d->off, cap + 1, sizeof(*d->off)) ||
	    ss_grow_to(&d->nhash, cap, sizeof(*d->nhash)) ||
	    ss_grow_to(&d->subj, cap, sizeof(*d->subj)))
		return SS_ENOMEM;
	d->cap = cap;
	return 0;
}

static int pool_reserve(ss_dataset *d, size_t extra)
{
	return SS_GROW(d->pool, d->npool + extra, d->poolcap);
}

void ss_dataset_set_fold_copies(ss_dataset *d, int fold)
{
	d->fold_copies = fold;
}

void ss_dataset_copies_get(ss_dataset_copies *out, const ss_dataset *d)
{
	*out = d->copies;
}

/*
 * A copy of an example's patch: folded into it (same part) or dropped
 * (an earlier part), and added to the history.  1 when c was such a copy,
 * 0 when it is to be an example (its key then recorded for example d->n),
 * < 0 on error.
 */
static int fold_copy(ss_dataset *d, const ss_commit *c, int label, uint8_t part)
{
	uint64_t key = ss_commit_patch_key(c);
	size_t first;
	int rc;

	if (!key || (rc = ss_u64map_find_or_put(&d->patches, key, d->n, &first)) == 0)
		return 0;
	if (rc < 0)
		return rc;
	if (d->ex[first].part == part) {
		ss_example *e = &d->ex[first];

		d->copies.folded++;
		d->copies.relabelled += e->label != (label ? 1 : 0);
		e->label |= label ? 1 : 0;
	} else {
		d->copies.dropped++;
	}
	return (rc = ss_history_add(d->hist, c)) ? rc : 1;
}

/* Append example c with the raw features r (d->raw, or a stored row). */
static int append(ss_dataset *d, const ss_commit *c, const ss_feat_raw *r, int label,
		  uint8_t part)
{
	ss_example *e;
	const char *w;
	size_t i, nids = 0, k;
	int rc;

	if (SS_GROW(d->ids, r->nwords, d->idcap))
		return SS_ENOMEM;
	for (i = 0, w = r->words.buf; i < r->nwords; i++) {
		size_t len = strlen(w);

		if ((rc = ss_strmap_intern(d->words, w, len, &d->ids[nids++])))
			return rc;
		w += len + 1;
	}
	if (nids)
		qsort(d->ids, nids, sizeof(*d->ids), cmp_u32);
	for (i = 0, k = 0; i < nids; i++)
		if (!k || d->ids[k - 1] != d->ids[i])
			d->ids[k++] = d->ids[i];
	nids = k;
	if ((rc = pool_reserve(d, r->nhashed + nids)))
		return rc;
	for (i = 0; i < d->next; i++)
		if ((rc = d->ext[i].add(d->ext[i].state, c, d->n)))
			return rc;

	if (r->nhashed)
		memcpy(d->pool + d->npool, r->hashed, r->nhashed * sizeof(*r->hashed));
	if (nids)
		memcpy(d->pool + d->npool + r->nhashed, d->ids, nids * sizeof(*d->ids));
	d->npool += r->nhashed + nids;
	memcpy(d->dense + d->n * SS_NDENSE, r->dense, sizeof(r->dense));
	d->nhash[d->n] = (uint32_t)r->nhashed;
	e = &d->ex[d->n];
	memset(e, 0, sizeof(*e));
	memcpy(e->id, c->id, sizeof(e->id));
	e->id[40] = '\0';
	e->time = c->author.time;
	e->label = label ? 1 : 0;
	e->tagged = ss_commit_was_tagged(c);
	e->keyword = (uint8_t)ss_commit_says_fix(c);
	e->part = part;
	{
		/* the subject's first line, for what is shown of the example */
		const char *sj = c->subject ? c->subject : "";
		size_t len = strcspn(sj, "\n");

		d->subj[d->n] = d->subjects.len;
		if (ss_strbuf_add(&d->subjects, sj, len < SS_DATASET_SUBJECT_MAX ? len
						     : SS_DATASET_SUBJECT_MAX) ||
		    ss_strbuf_add(&d->subjects, "", 1))
			return SS_ENOMEM;
	}
	d->off[++d->n] = d->npool;
	return 0;
}

const char *ss_dataset_subject(const ss_dataset *d, size_t i)
{
	return d->subjects.buf ? d->subjects.buf + d->subj[i] : "";
}

int ss_dataset_add(ss_dataset *d, const ss_commit *c, int label, uint8_t part)
{
	int rc;

	d->last_extracted = 0;
	if (d->n == d->cap && (rc = grow(d)))
		return rc;
	if (d->fold_copies && (rc = fold_copy(d, c, label, part)))
		return rc > 0 ? 0 : rc;
	/* the commit's past only: it joins the history after extraction */
	if ((rc = ss_feat_extract(&d->raw, c, d->hist, &d->opts)) ||
	    (rc = ss_history_add(d->hist, c)) || (rc = append(d, c, &d->raw, label, part)))
		return rc;
	d->reads.extracted++;
	d->last_extracted = 1;
	return 0;
}

int ss_dataset_add_raw(ss_dataset *d, const ss_commit *c, const ss_feat_raw *raw, int label,
		       uint8_t part)
{
	int rc;

	d->last_extracted = 0;
	if (d->next || d->fold_copies)
		return ss_error_set("cannot add stored features to a dataset that %s",
				    d->next ? "keeps more than features" : "folds copies");
	if (d->n == d->cap && (rc = grow(d)))
		return rc;
	if ((rc = append(d, c, raw, label, part)))
		return rc;
	d->reads.stored++;
	return 0;
}

long ss_dataset_keep_last(ss_dataset *d, size_t keep)
{
	size_t drop, base, sbase, i;

	if (d->next || d->fold_copies || d->reads.extracted)
		return ss_error_set("cannot drop examples of a dataset that %s",
				    d->next ? "keeps more than features" : d->fold_copies ?
				    "folds copies" : "extracted features against its history");
	if (keep >= d->n)
		return 0;
	drop = d->n - keep;
	base = d->off[drop];
	memmove(d->pool, d->pool + base, (d->npool - base) * sizeof(*d->pool));
	d->npool -= base;
	for (i = 0; i <= keep; i++)
		d->off[i] = d->off[i + drop] - base;
	memmove(d->ex, d->ex + drop, keep * sizeof(*d->ex));
	memmove(d->dense, d->dense + drop * SS_NDENSE, keep * SS_NDENSE * sizeof(*d->dense));
	memmove(d->nhash, d->nhash + drop, keep * sizeof(*d->nhash));
	sbase = d->subj[drop];
	memmove(d->subjects.buf, d->subjects.buf + sbase, d->subjects.len - sbase);
	d->subjects.len -= sbase;
	d->subjects.buf[d->subjects.len] = '\0';
	for (i = 0; i < keep; i++)
		d->subj[i] = d->subj[i + drop] - sbase;
	d->n = keep;
	return (long)drop;
}

const ss_feat_raw *ss_dataset_last_raw(const ss_dataset *d)
{
	return d->last_extracted ? &d->raw : NULL;
}

void ss_dataset_reads_get(ss_dataset_reads *out, const ss_dataset *d)
{
	*out = d->reads;
}

size_t ss_dataset_count(const ss_dataset *d)
{
	return d->n;
}

const ss_example *ss_dataset_example(const ss_dataset *d, size_t i)
{
	return &d->ex[i];
}

ss_example *ss_dataset_example_mut(ss_dataset *d, size_t i)
{
	return &d->ex[i];
}

const ss_feat_options *ss_dataset_options(const ss_dataset *d)
{
	return &d->opts;
}

const ss_history *ss_dataset_history(const ss_dataset *d)
{
	return d->hist;
}

ss_history *ss_dataset_history_mut(ss_dataset *d)
{
	return d->hist;
}

const ss_strmap *ss_dataset_words(const ss_dataset *d)
{
	return d->words;
}

struct cand {
	uint32_t id, df;
	const char *s;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->df != y->df)
		return x->df > y->df ? -1 : 1;
	return strcmp(x->s, y->s);
}

int ss_dataset_vocab(ss_featurizer *f, const ss_dataset *d, const size_t *idx, size_t n)
{
	size_t nwords = ss_strmap_count(d->words), i, k, ncand = 0;
	uint32_t *df = calloc(nwords ? nwords : 1, sizeof(*df));
	struct cand *cand = NULL;
	int rc = SS_ENOMEM;

	if (!df)
		return SS_ENOMEM;
	/* one cleanup below: cand is NULL until allocated */
	for (i = 0; i < n; i++) {
		size_t e = idx[i];

		for (k = d->off[e] + d->nhash[e]; k < d->off[e + 1]; k++)
			df[d->pool[k]]++;
	}
	cand = malloc((nwords ? nwords : 1) * sizeof(*cand));
	if (!cand)
		goto free_counts;
	for (i = 0; i < nwords; i++)
		if (df[i] >= f->opts.min_df && df[i] > 0) {
			cand[ncand].id = (uint32_t)i;
			cand[ncand].df = df[i];
			cand[ncand++].s = ss_strmap_str(d->words, (uint32_t)i);
		}
	qsort(cand, ncand, sizeof(*cand), cmp_cand);
	if (ncand > f->opts.vocab_size)
		ncand = f->opts.vocab_size;
	for (i = 0; i < ncand; i++) {
		uint32_t id;

		if ((rc = ss_strmap_intern(f->vocab, cand[i].s, strlen(cand[i].s), &id)))
			goto free_counts;
	}
	rc = 0;

free_counts:
	free(cand);
	free(df);
	return rc;
}

int ss_dataset_remap(uint32_t **out, const ss_featurizer *f, const ss_dataset *d)
{
	size_t nwords = ss_strmap_count(d->words), i;
	uint32_t *map = malloc((nwords ? nwords : 1) * sizeof(*map));

	*out = NULL;
	if (!map)
		return SS_ENOMEM;
	for (i = 0; i < nwords; i++) {
		uint32_t id = ss_strmap_find(f->vocab, ss_strmap_str(d->words, (uint32_t)i),
					     ss_strmap_len(d->words, (uint32_t)i));

		map[i] = id == SS_STRMAP_NONE ? SS_STRMAP_NONE : (uint32_t)(SS_NDENSE + id);
	}
	*out = map;
	return 0;
}

int ss_dataset_vector(ss_svec *out, const ss_featurizer *f, const uint32_t *remap,
		      const ss_dataset *d, size_t i)
{
	uint32_t hbase = (uint32_t)(SS_NDENSE + ss_strmap_count(f->vocab));
	uint32_t mask = ((uint32_t)1 << f->opts.hash_bits) - 1;
	const float *dense = d->dense + i * SS_NDENSE;
	size_t k, end = d->off[i] + d->nhash[i];

	out->n = 0;
	/* a model may use fewer groups than the dataset was read with
	 * (ss_train_options.groups_off): it sees what it would extract */
	for (k = 0; k < SS_NDENSE; k++)
		if (dense[k] != 0.0f && (ss_dense_features[k].group & f->opts.groups) &&
		    ss_svec_push(out, (uint32_t)k, dense[k]))
			return SS_ENOMEM;
	for (k = end; k < d->off[i + 1]; k++)
		if (remap[d->pool[k]] != SS_STRMAP_NONE && ss_svec_push(out, remap[d->pool[k]], 1.0f))
			return SS_ENOMEM;
	for (k = d->off[i]; k < end; k++)
		if (ss_svec_push(out, hbase + (d->pool[k] & mask), 1.0f))
			return SS_ENOMEM;
	ss_svec_finish(out);
	return 0;
}

size_t ss_dataset_bytes(const ss_dataset *d)
{
	return d->cap * (sizeof(ss_example) + SS_NDENSE * sizeof(float) + sizeof(size_t) +
			 sizeof(uint32_t)) + d->poolcap * sizeof(uint32_t);
}

/* ---- feature rows (CSR) for the networks --------------------------------- */

void ss_rows_free(ss_rows *r)
{
	free(r->row);
	free(r->idx);
	free(r->val);
	memset(r, 0, sizeof(*r));
}

int ss_rows_build(ss_rows *out, const ss_featurizer *f, const ss_dataset *d, const size_t *idx,
		  size_t n, const float *scale)
{
	uint32_t *remap;
	ss_svec v;
	size_t i, k;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ss_dataset_remap(&remap, f, d)))
		return rc;
	ss_svec_init(&v);
	out->row = malloc((n + 1) * sizeof(*out->row));
	if (!out->row) {
		rc = SS_ENOMEM;
		goto free_v;
	}
	out->row[0] = 0;
	for (i = 0; i < n; i++) {
		if ((rc = ss_dataset_vector(&v, f, remap, d, idx[i])))
			goto free_v;
		if (out->nnz + v.n > out->cap) {
			size_t cap = ss_grow_cap(out->cap, out->nnz + v.n);

			if (ss_grow_to(&out->idx, cap, sizeof(*out->idx)) ||
			    ss_grow_to(&out->val, cap, sizeof(*out->val))) {
				rc = SS_ENOMEM;
				goto free_v;
			}
			out->cap = cap;
		}
		if (scale)
			ss_rows_scale_vec(&v, scale);
		for (k = 0; k < v.n; k++) {
			out->idx[out->nnz] = (int32_t)v.idx[k];
			out->val[out->nnz++] = v.val[k];
		}
		out->row[i + 1] = out->nnz;
	}
	out->n = n;

free_v:
	if (rc)
		ss_rows_free(out);
	ss_svec_release(&v);
	free(remap);
	return rc;
}

int ss_rows_fit_scale(float *scale, const ss_featurizer *f, const ss_dataset *d,
		      const size_t *idx, size_t n)
{
	float top[SS_NDENSE] = { 0 };
	uint32_t *remap;
	ss_svec v;
	size_t i, k;
	int rc;

	if ((rc = ss_dataset_remap(&remap, f, d)))
		return rc;
	ss_svec_init(&v);
	for (i = 0; i < n && !rc; i++) {
		rc = ss_dataset_vector(&v, f, remap, d, idx[i]);
		for (k = 0; !rc && k < v.n && v.idx[k] < SS_NDENSE; k++)
			if (fabsf(v.val[k]) > top[v.idx[k]])
				top[v.idx[k]] = fabsf(v.val[k]);
	}
	for (k = 0; k < SS_NDENSE; k++)
		scale[k] = top[k] > 0 ? 1.0f / top[k] : 1.0f;
	ss_svec_release(&v);
	free(remap);
	return rc;
}

void ss_rows_scale_vec(ss_svec *v, const float *scale)
{
	size_t k;

	for (k = 0; k < v->n && v->idx[k] < SS_NDENSE; k++)
		v->val[k] *= scale[v->idx[k]];
}

/* qsort_r's comparison: examples by author time, ties by index. */
static int cmp_time(const void *a, const void *b, void *ud)
{
	const ss_dataset *d = ud;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int64_t x = ss_dataset_example(d, i)->time;
	int64_t y = ss_dataset_example(d, j)->time;

	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

void ss_dataset_sort_by_time(size_t *idx, size_t n, const ss_dataset *d)
{
	/* glibc's qsort_r: the context goes with the call, so that threads
	 * sorting different datasets never share it */
	qsort_r(idx, n, sizeof(*idx), cmp_time, (void *)d);
}
