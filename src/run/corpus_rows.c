/*
 * corpus_rows.c - the multi-project corpus: its file parsed, each
 * project's labelled feature rows read from its project index
 * (corpus_rows.h; "stablesel corpus", run/corpus_train.c, trains on them),
 * every project's into one dataset (ss_run_corpus_read, moved from the
 * command side, cmd/corpus.c, which says what each project gave).
 */
#include "run/corpus_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/split.h"
#include "labels/labels.h"
#include "models/model.h"
#include "run/index_open.h"
#include "util/error.h"

/* Copy field f into out[size]; 0, or -1 when it does not fit or is empty. */
static int field(char *out, size_t size, const char *f)
{
	size_t len = strlen(f);

	if (!len || len >= size)
		return -1;
	memcpy(out, f, len + 1);
	return 0;
}

static int is_hex40(const char *s)
{
	size_t i;

	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[40] == '\0';
}

/* One line's fields into p; NULL or the problem. */
static const char *parse_line(ss_corpus_project *p, char *line)
{
	char *f[7], *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(line, "\t", &save); t && n < 7; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n != 6 && n != 7)
		return "expected 6 or 7 tab-separated fields (name url commit date since until "
		       "[index-options])";
	memset(p, 0, sizeof(*p));
	p->weight = 1;
	if (field(p->name, sizeof(p->name), f[0]) || strchr(p->name, '/'))
		return "bad project name";
	if (field(p->url, sizeof(p->url), f[1]))
		return "bad url";
	p->mail = !strncmp(p->url, "data:", 5);
	if (p->mail ? strcmp(f[2], "-") != 0 :
		      (field(p->commit, sizeof(p->commit), f[2]) || !is_hex40(p->commit)))
		return p->mail ? "a data: project has no snapshot commit ('-')" :
				 "the snapshot commit is not a 40-hex id";
	if (field(p->date, sizeof(p->date), f[3]))
		return "bad snapshot date";
	if (ss_parse_date(&p->since, f[4]) || ss_parse_date(&p->until, f[5])) {
		ss_error_clear();
		return "since and until must be YYYY-MM-DD dates";
	}
	if (p->until <= p->since)
		return "until must come after since";
	if (p->mail) {
		/* "--labels FILE --label-column NAME" */
		char *w[4], *save2 = NULL;
		int k = 0;

		if (n != 7)
			return "a data: project needs '--labels FILE --label-column NAME'";
		for (t = strtok_r(f[6], " ", &save2); t && k < 4; t = strtok_r(NULL, " ", &save2))
			w[k++] = t;
		if (k != 4 || t || strcmp(w[0], "--labels") || strcmp(w[2], "--label-column") ||
		    field(p->labels, sizeof(p->labels), w[1]) ||
		    field(p->column, sizeof(p->column), w[3]))
			return "a data: project needs '--labels FILE --label-column NAME'";
	}
	return NULL;
}

int ss_corpus_load(ss_corpus *out, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	const char *bad;
	size_t lineno = 0, len;
	int rc = 0;

	out->n = 0;
	if (!f)
		return ss_error_code(SS_ERROR, "cannot open corpus '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			rc = ss_error_code(SS_EINVALID, "%s:%zu: line too long", path, lineno);
			break;
		}
		if (!len || line[0] == '#')
			continue;
		if (out->n == SS_CORPUS_MAX) {
			rc = ss_error_code(SS_EINVALID, "%s:%zu: more than %d projects", path,
					   lineno, SS_CORPUS_MAX);
			break;
		}
		if ((bad = parse_line(&out->p[out->n], line))) {
			rc = ss_error_code(SS_EINVALID, "%s:%zu: %s", path, lineno, bad);
			break;
		}
		if (ss_corpus_find(out, out->p[out->n].name)) {
			rc = ss_error_code(SS_EINVALID, "%s:%zu: project '%s' listed twice", path,
					   lineno, out->p[out->n].name);
			break;
		}
		out->n++;
	}
	if (!rc && ferror(f))
		rc = ss_error_code(SS_ERROR, "cannot read corpus '%s'", path);
	fclose(f);
	if (!rc && !out->n)
		rc = ss_error_code(SS_EINVALID, "corpus '%s' lists no project", path);
	return rc;
}

ss_corpus_project *ss_corpus_find(ss_corpus *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->p[i].name, name))
			return &c->p[i];
	return NULL;
}

/* p's examples are the dataset's newest since p->first: their number,
 * and how many of those kept (since p->since) are positive. */
static void count_kept(ss_corpus_project *p, const ss_dataset *d)
{
	size_t i;

	p->n = ss_dataset_count(d) - p->first;
	p->npos = 0;
	for (i = p->first; i < p->first + p->n; i++)
		if (ss_dataset_example(d, i)->time >= p->since)
			p->npos += ss_dataset_example(d, i)->label;
}

int ss_corpus_read(ss_dataset *d, ss_corpus_project *p, const char *dir,
		   const ss_run_history_reader *hr, const ss_run_report *rp)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_run_feature_store *fs = NULL;
	ss_backports *bp = NULL;
	ss_labels *labels = NULL;
	ss_split_sink sink;
	ss_index *ix = NULL;
	char *repo = NULL, *db = NULL;
	const char *revs[1];
	int64_t newest = 0;
	int got = 0, rc;

	if (asprintf(&repo, "%s/%s.git", dir, p->name) < 0 ||
	    asprintf(&db, "%s/%s.db", dir, p->name) < 0) {
		free(repo);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	if ((rc = ss_index_open(&ix, db, SS_INDEX_READ))) {
		rc = ss_run_fail(rc, "corpus project '%s'", p->name);
		goto out;
	}
	if ((rc = ss_backports_new(&bp, NULL)) || (rc = ss_run_backports_from_index(bp, ix, db)) ||
	    (rc = ss_labels_from_backports(&labels, bp, db)))
		goto out;
	revs[0] = p->commit;
	so.revs = revs;
	so.nrevs = 1;
	/* the feature store takes ix and its path */
	rc = ss_run_feature_store_open(&fs, ix, db, &fo, &so);
	ix = NULL;
	db = NULL;
	if (rc)
		goto out;
	ss_run_feature_store_mask_tag(fs);
	memset(&sink, 0, sizeof(sink));
	sink.d = d;
	sink.labels = labels;
	sink.before = p->until;
	p->first = ss_dataset_count(d);
	if ((rc = ss_run_feature_store_read(&got, fs, repo, &so, hr, &sink, 0, &newest, rp)))
		goto out;
	if (got != 1) {
		rc = ss_error_code(SS_ENOTFOUND, "corpus project '%s': its index '%s/%s.db' keeps no "
				   "feature rows reaching its snapshot %.12s (run 'stablesel index' on "
				   "it)", p->name, dir, p->name, p->commit);
		goto out;
	}
	count_kept(p, d);
out:
	ss_run_feature_store_close(fs, rp);
	ss_index_free(ix);
	ss_labels_free(labels);
	ss_backports_free(bp);
	free(db);
	free(repo);
	return rc;
}

struct mail_read {
	ss_dataset *d, *own;   /* the corpus; the project's own (its history) */
	const ss_labels *labels;
	int64_t until;
	int rc;
};

static int add_mail(ss_commit *c, void *data)
{
	struct mail_read *r = data;
	int label = ss_labels_get(r->labels, c->id);
	const ss_feat_raw *raw;

	if ((r->rc = ss_dataset_add(r->own, c, label, 0)))
		goto out;
	raw = ss_dataset_last_raw(r->own);
	if (raw && c->author.time < r->until)
		r->rc = ss_dataset_add_raw(r->d, c, raw, label, 0);
out:
	ss_commit_free(c);
	return r->rc != 0;
}

int ss_corpus_read_mail(ss_dataset *d, ss_corpus_project *p, const char *data,
			const ss_run_report *rp)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	struct mail_read r;
	ss_labels *labels = NULL;
	char *mbox = NULL, *lpath = NULL;
	size_t n;
	int rc;

	memset(&r, 0, sizeof(r));
	if (asprintf(&mbox, "%s/%s", data, p->url + 5) < 0 ||
	    asprintf(&lpath, "%s/%s", data, p->labels) < 0) {
		free(mbox);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	if ((rc = ss_labels_from_tsv(&labels, lpath, p->column)) ||
	    (rc = ss_dataset_new(&r.own, &fo)))
		goto out;
	/* the label is the tag: every trace of it masked */
	so.mask_stable_tags = 1;
	r.d = d;
	r.labels = labels;
	r.until = p->until;
	p->first = ss_dataset_count(d);
	if ((rc = ss_run_read_commits(&n, mbox, &so, add_mail, &r, NULL, rp)))
		goto out;
	if ((rc = r.rc)) {
		rc = ss_run_fail(rc, "corpus project '%s'", p->name);
		goto out;
	}
	count_kept(p, d);
out:
	ss_dataset_free(r.own);
	ss_labels_free(labels);
	free(mbox);
	free(lpath);
	return rc;
}

int ss_corpus_examples(size_t **out, size_t *n, const ss_corpus *c, const char *skip,
		       const ss_dataset *d, int weighted)
{
	size_t i, j, cap = 0;
	unsigned w;

	*n = 0;
	for (i = 0; i < c->n; i++)
		cap += c->p[i].n * (weighted ? c->p[i].weight : 1);
	if (!(*out = malloc((cap ? cap : 1) * sizeof(**out))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	for (i = 0; i < c->n; i++) {
		const ss_corpus_project *p = &c->p[i];

		if (skip && !strcmp(p->name, skip))
			continue;
		for (j = p->first; j < p->first + p->n; j++)
			if (ss_dataset_example(d, j)->time >= p->since)
				for (w = 0; w < (weighted ? p->weight : 1); w++)
					(*out)[(*n)++] = j;
	}
	return 0;
}

int ss_corpus_set_weight(ss_corpus *c, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char name[64], *end;
	unsigned long w;
	ss_corpus_project *p;

	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(name))
		return ss_error_code(SS_EINVALID, "weight '%s' is not NAME=N", spec);
	memcpy(name, spec, (size_t)(eq - spec));
	name[eq - spec] = '\0';
	w = strtoul(eq + 1, &end, 10);
	if (*end || end == eq + 1 || w < 1 || w > 100)
		return ss_error_code(SS_EINVALID, "weight '%s': N must be 1 to 100", spec);
	if (!(p = ss_corpus_find(c, name)))
		return ss_error_code(SS_EINVALID, "weight '%s': no project '%s' in the corpus", spec,
				     name);
	p->weight = (unsigned)w;
	return 0;
}

int ss_run_corpus_read(ss_dataset **out, ss_corpus *c, const char *dir, const char *data,
		       void (*read)(const ss_corpus_project *p, void *ud), void *ud,
		       const ss_run_report *rp)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_dataset *d = NULL;
	int rc;

	*out = NULL;
	if ((rc = ss_dataset_new(&d, &fo)) || (rc = ss_model_prepare_dataset(SS_MODEL_LINEAR, d)))
		goto free_d;
	for (size_t i = 0; i < c->n; i++) {
		if ((rc = c->p[i].mail ? ss_corpus_read_mail(d, &c->p[i], data, rp)
				       : ss_corpus_read(d, &c->p[i], dir, NULL, rp)))
			goto free_d;
		if (read)
			read(&c->p[i], ud);
	}
	*out = d;
	return 0;
free_d:
	ss_dataset_free(d);
	return rc;
}
