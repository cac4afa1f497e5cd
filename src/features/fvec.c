/*
 * fvec.c - a commit's features as a sparse vector and back to names (see
 * features.h and docs/features.md): sparse vectors (ss_svec), the
 * featurizer that maps raw features (features.c) to indices, the names of
 * its indices, and names in words for explanations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/features.h"
#include "util/error.h"
#include "util/grow.h"

/* ---- sparse vectors -------------------------------------------------- */

void ss_svec_init(ss_svec *v)
{
	memset(v, 0, sizeof(*v));
}

void ss_svec_release(ss_svec *v)
{
	free(v->idx);
	free(v->val);
	ss_svec_init(v);
}

int ss_svec_push(ss_svec *v, uint32_t idx, float val)
{
	if (v->n == v->cap) {
		size_t cap = ss_grow_cap(v->cap, v->n + 1);

		if (ss_grow_to(&v->idx, cap, sizeof(*v->idx)) ||
		    ss_grow_to(&v->val, cap, sizeof(*v->val)))
			return SS_ENOMEM;
		v->cap = cap;
	}
	v->idx[v->n] = idx;
	v->val[v->n++] = val;
	return 0;
}

/* Restore the max-heap order of idx[0..n) below node i (values move along). */
static void svec_sift(uint32_t *idx, float *val, size_t i, size_t n)
{
	uint32_t ki = idx[i];
	float vi = val[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && idx[c + 1] > idx[c])
			c++;
		if (idx[c] <= ki)
			break;
		idx[i] = idx[c];
		val[i] = val[c];
		i = c;
	}
	idx[i] = ki;
	val[i] = vi;
}

void ss_svec_finish(ss_svec *v)
{
	size_t i, out = 0, n = v->n;
	int sorted = 1;

	/*
	 * Heapsort in place: O(n log n) with no allocation, since one commit
	 * may touch 200,000 files or carry 300,000 trailers.  It is not
	 * stable, but repeats are merged to their largest value below, which
	 * does not depend on their order.
	 */
	for (i = 1; i < n && sorted; i++)
		sorted = v->idx[i - 1] <= v->idx[i];
	if (!sorted) {
		for (i = n / 2; i-- > 0;)
			svec_sift(v->idx, v->val, i, n);
		for (i = n; i-- > 1;) {
			uint32_t k = v->idx[0];
			float x = v->val[0];

			v->idx[0] = v->idx[i];
			v->val[0] = v->val[i];
			v->idx[i] = k;
			v->val[i] = x;
			svec_sift(v->idx, v->val, 0, i);
		}
	}
	for (i = 0; i < n; i++) {
		if (out && v->idx[out - 1] == v->idx[i]) {
			if (v->val[i] > v->val[out - 1])
				v->val[out - 1] = v->val[i];
			continue;
		}
		v->idx[out] = v->idx[i];
		v->val[out++] = v->val[i];
	}
	v->n = out;
}

/* ---- featurizer ------------------------------------------------------ */

int ss_featurizer_init(ss_featurizer *f, const ss_feat_options *opts)
{
	f->opts = *opts;
	if (f->opts.hash_bits < 8 || f->opts.hash_bits > 24)
		return ss_error_code(SS_EINVALID, "hash bits must be between 8 and 24, not %u",
				     f->opts.hash_bits);
	return ss_strmap_new(&f->vocab);
}

int ss_featurizer_copy(ss_featurizer *out, const ss_featurizer *from)
{
	uint32_t i, id;
	int rc;

	if ((rc = ss_featurizer_init(out, &from->opts)))
		return rc;
	for (i = 0; i < (uint32_t)ss_strmap_count(from->vocab); i++) {
		const char *w = ss_strmap_str(from->vocab, i);

		if ((rc = ss_strmap_intern(out->vocab, w, strlen(w), &id))) {
			ss_featurizer_release(out);
			return rc;
		}
	}
	return 0;
}

void ss_featurizer_release(ss_featurizer *f)
{
	ss_strmap_free(f->vocab);
	f->vocab = NULL;
}

size_t ss_featurizer_dim(const ss_featurizer *f)
{
	return SS_NDENSE + ss_strmap_count(f->vocab) + ((size_t)1 << f->opts.hash_bits);
}

size_t ss_featurizer_tag_traces(const ss_featurizer *f, uint32_t *out, size_t max)
{
	uint32_t hbase = (uint32_t)(SS_NDENSE + ss_strmap_count(f->vocab));
	uint32_t mask = ((uint32_t)1 << f->opts.hash_bits) - 1;
	size_t n = 0;

	if (n < max)
		out[n++] = SS_F_HAS_STABLE;
	if (n < max)
		out[n++] = hbase + (ss_feat_hash_name("k:", "cc") & mask);
	return n;
}

int ss_featurizer_map(ss_svec *out, const ss_featurizer *f, const ss_feat_raw *raw)
{
	uint32_t hbase = (uint32_t)(SS_NDENSE + ss_strmap_count(f->vocab));
	uint32_t mask = ((uint32_t)1 << f->opts.hash_bits) - 1;
	const char *w = raw->words.buf;
	size_t i;

	out->n = 0;
	for (i = 0; i < SS_NDENSE; i++)
		if (raw->dense[i] != 0.0f && ss_svec_push(out, (uint32_t)i, raw->dense[i]))
			return SS_ENOMEM;
	for (i = 0; i < raw->nwords; i++) {
		size_t len = strlen(w);
		uint32_t id = ss_strmap_find(f->vocab, w, len);

		if (id != SS_STRMAP_NONE && ss_svec_push(out, SS_NDENSE + id, 1.0f))
			return SS_ENOMEM;
		w += len + 1;
	}
	for (i = 0; i < raw->nhashed; i++)
		if (ss_svec_push(out, hbase + (raw->hashed[i] & mask), 1.0f))
			return SS_ENOMEM;
	ss_svec_finish(out);
	return 0;
}

int ss_featurizer_vector(ss_svec *out, const ss_featurizer *f, const ss_commit *c,
			 const ss_history *hist, ss_strbuf *names)
{
	ss_feat_raw raw;
	int rc;

	ss_feat_raw_init(&raw);
	raw.names = names;
	rc = ss_feat_extract(&raw, c, hist, &f->opts);
	if (!rc)
		rc = ss_featurizer_map(out, f, &raw);
	ss_feat_raw_release(&raw);
	return rc;
}

/* One recorded name: "%08x\t<name>\n" at names + off. */
struct feat_name {
	uint32_t slot;
	uint32_t dup;   /* the same name came earlier in this slot */
	size_t off, len;
};

struct ss_feat_names {
	const char *names;
	struct feat_name *e;
	size_t n;
};

static int cmp_name_text(const void *a, const void *b, void *names)
{
	const struct feat_name *x = a, *y = b;
	size_t len = x->len < y->len ? x->len : y->len;
	int c;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if ((c = memcmp((const char *)names + x->off, (const char *)names + y->off, len)))
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_name_order(const void *a, const void *b)
{
	const struct feat_name *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

int ss_feat_names_new(ss_feat_names **out, const ss_featurizer *f, const char *names)
{
	uint32_t mask = ((uint32_t)1 << f->opts.hash_bits) - 1;
	ss_feat_names *ix = calloc(1, sizeof(*ix));
	size_t cap = 0, i;
	const char *p;

	*out = NULL;
	if (!ix)
		return ss_error_code(SS_ENOMEM, "out of memory for feature names");
	ix->names = names;
	for (p = names; p && *p;) {
		const char *nl = strchr(p, '\n'), *tab = strchr(p, '\t');

		if (!nl)
			nl = p + strlen(p);
		if (tab && tab < nl) {
			if (SS_GROW(ix->e, ix->n + 1, cap)) {
				ss_feat_names_free(ix);
				return ss_error_code(SS_ENOMEM, "out of memory for feature names");
			}
			ix->e[ix->n].slot = (uint32_t)strtoul(p, NULL, 16) & mask;
			ix->e[ix->n].dup = 0;
			ix->e[ix->n].off = (size_t)(tab + 1 - names);
			ix->e[ix->n].len = (size_t)(nl - tab - 1);
			ix->n++;
		}
		p = *nl ? nl + 1 : nl;
	}
	/*
	 * Sorted by slot and text, repeats (a path renamed in several hunks,
	 * a directory of many files) are the later of equal neighbours; then
	 * by slot and position, the order names are shown in.  Two sorts,
	 * where a scan per feature was quadratic in a commit's size.
	 */
	if (ix->n > 1) {
		qsort_r(ix->e, ix->n, sizeof(*ix->e), cmp_name_text, (void *)names);
		for (i = 1; i < ix->n; i++)
			ix->e[i].dup = ix->e[i - 1].slot == ix->e[i].slot &&
				       ix->e[i - 1].len == ix->e[i].len &&
				       !memcmp(names + ix->e[i - 1].off, names + ix->e[i].off, ix->e[i].len);
		qsort(ix->e, ix->n, sizeof(*ix->e), cmp_name_order);
	}
	*out = ix;
	return 0;
}

void ss_feat_names_free(ss_feat_names *ix)
{
	if (!ix)
		return;
	free(ix->e);
	free(ix);
}

int ss_featurizer_name_ix(const ss_featurizer *f, uint32_t i, const ss_feat_names *ix,
			  ss_strbuf *sb)
{
	size_t nvocab = ss_strmap_count(f->vocab), lo = 0, hi = ix ? ix->n : 0;
	uint32_t slot;
	int found = 0;

	if (i < SS_NDENSE)
		return ss_strbuf_adds(sb, ss_dense_features[i].name);
	if (i < SS_NDENSE + nvocab)
		return ss_strbuf_addf(sb, "word:%s", ss_strmap_str(f->vocab, i - SS_NDENSE));
	slot = (uint32_t)(i - SS_NDENSE - nvocab);
	/* the first name of the slot */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->e[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; ix && lo < ix->n && ix->e[lo].slot == slot; lo++) {
		/* show each name once: files repeat across hunks of renames */
		if (ix->e[lo].dup)
			continue;
		if ((found && ss_strbuf_addch(sb, '|')) ||
		    ss_strbuf_add(sb, ix->names + ix->e[lo].off, ix->e[lo].len))
			return SS_ENOMEM;
		found = 1;
	}
	if (!found)
		return ss_strbuf_addf(sb, "hash:%u", slot);
	return 0;
}

int ss_featurizer_name(const ss_featurizer *f, uint32_t i, const char *names, ss_strbuf *sb)
{
	ss_feat_names *ix = NULL;
	int rc;

	if (i >= SS_NDENSE + ss_strmap_count(f->vocab) && names && *names &&
	    (rc = ss_feat_names_new(&ix, f, names)))
		return rc;
	rc = ss_featurizer_name_ix(f, i, ix, sb);
	ss_feat_names_free(ix);
	return rc;
}

/* ---- names in words ---------------------------------------------------- */

/* A dense feature's doc string without the transform a maintainer need
 * not know ("files touched, log(1+n)" -> "number of files touched"). */
static int dense_words(ss_strbuf *sb, const char *doc)
{
	const char *cut = strstr(doc, ", log(1+n)");

	if (!cut)
		return ss_strbuf_adds(sb, doc);
	return ss_strbuf_addf(sb, "number of %.*s", (int)(cut - doc), doc);
}

static int effect_words(ss_strbuf *sb, const char *lead, const char *e, size_t len)
{
	size_t i, start = sb->len;

	if (ss_strbuf_adds(sb, lead) || ss_strbuf_add(sb, e, len))
		return SS_ENOMEM;
	for (i = start + strlen(lead); i < sb->len; i++)
		if (sb->buf[i] == '_')
			sb->buf[i] = ' ';
	return 0;
}

/* One name of ss_featurizer_name_ix() (no '|') in words. */
static int one_name_words(ss_strbuf *sb, const char *name, size_t len)
{
	static const struct {
		const char *name, *words;
	} fixed[] = {
		{ "h:fix_of_fix", "fix of a fix" },
		{ "h:revert_of_released", "reverts a commit that was released" },
		{ "e:any", "says what the bug did" },
		{ "t:lag_0d", "committed within a day of being written" },
		{ "t:lag_1_6d", "committed 1-6 days after being written" },
		{ "t:lag_7_29d", "committed 7-29 days after being written" },
		{ "t:lag_30_89d", "committed 30-89 days after being written" },
		{ "t:lag_90d", "committed 90 days or more after being written" },
		{ "t:week_12", "committed 12 weeks or more after a release" },
		{ "l:no_link", "no Link: to a mailed patch" },
		{ "l:unnumbered", "mailed without a number in its series" },
		{ "l:part_1", "patch 1 of its series" },
		{ "l:part_2", "patch 2 of its series" },
		{ "l:part_3", "patch 3 of its series" },
		{ "l:part_4_9", "patch 4-9 of its series" },
		{ "l:part_10", "patch 10 or later of its series" },
	};
	static const struct {
		const char *prefix, *words;
	} open[] = {
		{ "a:", "author: " },
		{ "c:", "committer: " },
		{ "p:", "named in a trailer: " },
		{ "d:", "touches " },
		{ "f:", "touches " },
		{ "s:", "subsystem " },
		{ "m:", "its pull request says: " },
		{ "u:", "links to " },
		{ "e:", "says the bug caused: " },
		{ "word:", "the word " },
		{ "hash:", "an unnamed hashed feature, slot " },
	};
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i].name) == len && !memcmp(name, fixed[i].name, len))
			return ss_strbuf_adds(sb, fixed[i].words);
	if (len > 7 && !memcmp(name, "t:week_", 7))
		return ss_strbuf_addf(sb, "committed in week %.*s after a release", (int)(len - 7),
				      name + 7);
	/* a release line is the number after the dot of any year's release
	 * (history.h): "r:11" is v20.11 as much as v21.11 */
	if (len > 2 && !memcmp(name, "r:", 2))
		return ss_strbuf_addf(sb, "the bug shipped in a *.%.*s release (any year's v*.%.*s)",
				      (int)(len - 2), name + 2, (int)(len - 2), name + 2);
	if (len > 2 && !memcmp(name, "n:", 2)) {
		/* the nearest past decisions, "n:T/F" (models/near.c) */
		const char *slash = memchr(name, '/', len);

		if (slash)
			return ss_strbuf_addf(sb, "%.*s of its %.*s nearest past commits reached "
					      "stable", (int)(slash - name - 2), name + 2,
					      (int)(len - (size_t)(slash - name) - 1), slash + 1);
	}
	if (len > 2 && !memcmp(name, "k:", 2))
		return ss_strbuf_addf(sb, "its message has a \"%.*s:\" line", (int)(len - 2), name + 2);
	for (i = 0; i < sizeof(open) / sizeof(open[0]); i++) {
		size_t n = strlen(open[i].prefix);

		if (len > n && !memcmp(name, open[i].prefix, n)) {
			const char *q = !strcmp(open[i].prefix, "word:") ? "\"" : "";

			if (!strcmp(open[i].prefix, "e:"))  /* "null_deref" -> "null deref" */
				return effect_words(sb, open[i].words, name + n, len - n);
			return ss_strbuf_addf(sb, "%s%s%.*s%s", open[i].words, q, (int)(len - n),
					      name + n, q);
		}
	}
	for (i = 0; i < SS_NDENSE; i++)
		if (strlen(ss_dense_features[i].name) == len &&
		    !memcmp(name, ss_dense_features[i].name, len))
			return dense_words(sb, ss_dense_features[i].doc);
	return ss_strbuf_add(sb, name, len);
}

/* Is [name, name+len) a hashed name ("x:..." with a known prefix)?  Only
 * then does a '|' join names of one slot: PatchNet's code lines hold '|'. */
static int hashed_name(const char *name, size_t len)
{
	static const char *const prefixes[] = { "a:", "c:", "p:", "d:", "f:", "s:", "r:", "e:",
						"h:", "t:", "l:", "m:", "k:", "u:", NULL };
	size_t i;

	for (i = 0; prefixes[i]; i++)
		if (len > 2 && !memcmp(name, prefixes[i], 2))
			return 1;
	return 0;
}

int ss_feat_name_words(ss_strbuf *sb, const char *name)
{
	const char *p = name;
	int rc = 0;

	if (!strncmp(name, "feature:", 8))  /* PatchNet's side features */
		return ss_feat_name_words(sb, name + 8);
	for (p = name; hashed_name(p, strcspn(p, "|")); p += strcspn(p, "|") + 1)
		if (!p[strcspn(p, "|")])
			break;
	if (!hashed_name(p, strcspn(p, "|")) || p[strcspn(p, "|")])
		return one_name_words(sb, name, strlen(name)) ? SS_ENOMEM : 0;
	for (p = name;;) {
		size_t len = strcspn(p, "|");

		rc |= one_name_words(sb, p, len);
		if (!p[len])
			break;
		rc |= ss_strbuf_adds(sb, " or ");
		p += len + 1;
	}
	return rc ? SS_ENOMEM : 0;
}
