/*
 * rank.c - rows of a ranking, sorted and written (see rank.h).  Subjects
 * and reasons live in one growing string pool, rows refer to offsets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "rank/rank.h"
#include "util/error.h"
#include "util/strbuf.h"

struct row {
	char id[41];
	float score;
	int decision;
	size_t order;
	size_t subject, reasons;  /* offsets into the pool; reasons: "" = none */
};

struct ss_ranking {
	struct row *rows;
	size_t n, cap, picks;
	ss_strbuf pool;  /* NUL-separated strings */
};

int ss_ranking_new(ss_ranking **out)
{
	ss_ranking *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return SS_ENOMEM;
	r->pool = (ss_strbuf)SS_STRBUF_INIT;
	/* offset 0 is the empty string */
	if (ss_strbuf_addch(&r->pool, '\0')) {
		free(r);
		return SS_ENOMEM;
	}
	*out = r;
	return 0;
}

void ss_ranking_free(ss_ranking *r)
{
	if (!r)
		return;
	free(r->rows);
	ss_strbuf_release(&r->pool);
	free(r);
}

int ss_ranking_add(ss_ranking *r, const ss_commit *c, float score, int decision,
		   const ss_contrib *why, size_t nwhy)
{
	struct row *w;
	size_t i;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		struct row *p = realloc(r->rows, cap * sizeof(*p));

		if (!p)
			return SS_ENOMEM;
		r->rows = p;
		r->cap = cap;
	}
	w = &r->rows[r->n];
	memcpy(w->id, c->id, sizeof(w->id));
	w->id[40] = '\0';
	w->score = score;
	w->decision = decision;
	w->order = r->n;
	w->subject = r->pool.len;
	if (ss_strbuf_adds(&r->pool, c->subject ? c->subject : "") || ss_strbuf_addch(&r->pool, '\0'))
		return SS_ENOMEM;
	w->reasons = 0;
	if (nwhy) {
		w->reasons = r->pool.len;
		/* "name\tcontribution\n" per reason */
		for (i = 0; i < nwhy; i++)
			if (ss_strbuf_addf(&r->pool, "%s\t%+.3f\n", why[i].name, (double)why[i].contrib))
				return SS_ENOMEM;
		if (ss_strbuf_addch(&r->pool, '\0'))
			return SS_ENOMEM;
	}
	r->picks += decision != 0;
	r->n++;
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void ss_ranking_sort(ss_ranking *r)
{
	if (r->n)
		qsort(r->rows, r->n, sizeof(*r->rows), cmp_rows);
}

size_t ss_ranking_count(const ss_ranking *r)
{
	return r->n;
}

size_t ss_ranking_picks(const ss_ranking *r)
{
	return r->picks;
}

float ss_ranking_score(const ss_ranking *r, size_t i)
{
	return r->rows[i].score;
}

const char *ss_ranking_id(const ss_ranking *r, size_t i)
{
	return r->rows[i].id;
}

static int shown(const ss_ranking *r, const ss_rank_options *o, size_t i)
{
	if (o->top && i >= o->top)
		return 0;
	return o->min_score < 0 || r->rows[i].score >= o->min_score;
}

/* Replace tabs and newlines so that a subject stays one TSV field. */
static void put_field(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void write_text(const ss_ranking *r, FILE *f, const ss_rank_options *o, const ss_model *m)
{
	size_t i;

	if (m) {
		const ss_model_info *in = ss_model_info_of(m);
		char a[16], b[16];

		ss_format_date(a, in->first);
		ss_format_date(b, in->last);
		fprintf(f, "model: %s (%s), trained on %llu commits %s..%s, threshold %.4f\n",
			ss_model_kind_name(ss_model_get_kind(m)), in->params,
			(unsigned long long)in->n, a, b, (double)ss_model_threshold(m));
	}
	fprintf(f, "%zu commits, %zu picked for stable review\n\n", r->n, r->picks);
	fprintf(f, "%5s %6s %4s  %-12s  %s\n", "rank", "score", "pick", "commit", "subject");
	for (i = 0; i < r->n && shown(r, o, i); i++) {
		const struct row *w = &r->rows[i];
		const char *p;

		fprintf(f, "%5zu %6.3f %4s  %.12s  ", i + 1, (double)w->score, w->decision ? "*" : "",
			w->id);
		put_field(f, r->pool.buf + w->subject);
		fputc('\n', f);
		if (!w->reasons)
			continue;
		fprintf(f, "%32s", "because ");
		for (p = r->pool.buf + w->reasons; *p;) {
			const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');

			if (!tab || !nl)
				break;
			fprintf(f, "%s%.*s (%.*s)", p == r->pool.buf + w->reasons ? "" : ", ",
				(int)(tab - p), p, (int)(nl - tab - 1), tab + 1);
			p = nl + 1;
		}
		fputc('\n', f);
	}
}

static void write_tsv(const ss_ranking *r, FILE *f, const ss_rank_options *o)
{
	size_t i;

	fprintf(f, "sha\tscore\tdecision\tsubject\n");
	for (i = 0; i < r->n && shown(r, o, i); i++) {
		fprintf(f, "%s\t%.6f\t%d\t", r->rows[i].id, (double)r->rows[i].score,
			r->rows[i].decision);
		put_field(f, r->pool.buf + r->rows[i].subject);
		fputc('\n', f);
	}
}

static int write_json(const ss_ranking *r, FILE *f, const ss_rank_options *o, const ss_model *m)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i;
	int rc = 0;

	rc |= ss_strbuf_adds(&sb, "{");
	if (m)
		rc |= ss_strbuf_addf(&sb, "\"model\":\"%s\",\"threshold\":%.6g,",
				     ss_model_kind_name(ss_model_get_kind(m)),
				     (double)ss_model_threshold(m));
	rc |= ss_strbuf_addf(&sb, "\"commits\":%zu,\"picks\":%zu,\"rows\":[", r->n, r->picks);
	for (i = 0; i < r->n && shown(r, o, i) && !rc; i++) {
		const struct row *w = &r->rows[i];
		const char *p;
		int first = 1;

		rc |= ss_strbuf_addf(&sb, "%s{\"sha\":\"%s\",\"score\":%.6g,\"decision\":%s,\"subject\":",
				     i ? "," : "", w->id, (double)w->score, w->decision ? "true" : "false");
		rc |= ss_strbuf_add_json(&sb, r->pool.buf + w->subject);
		rc |= ss_strbuf_adds(&sb, ",\"reasons\":[");
		for (p = w->reasons ? r->pool.buf + w->reasons : ""; *p && !rc;) {
			const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');
			char name[256];

			if (!tab || !nl)
				break;
			snprintf(name, sizeof(name), "%.*s", (int)(tab - p), p);
			rc |= ss_strbuf_addf(&sb, "%s{\"feature\":", first ? "" : ",");
			rc |= ss_strbuf_add_json(&sb, name);
			/* JSON numbers have no leading '+' */
			rc |= ss_strbuf_addf(&sb, ",\"contribution\":%.4g}", strtod(tab + 1, NULL));
			first = 0;
			p = nl + 1;
		}
		rc |= ss_strbuf_adds(&sb, "]}");
		/* keep memory flat on long rankings */
		if (sb.len > (1 << 20)) {
			fwrite(sb.buf, 1, sb.len, f);
			ss_strbuf_reset(&sb);
		}
	}
	rc |= ss_strbuf_adds(&sb, "]}\n");
	if (!rc)
		fwrite(sb.buf, 1, sb.len, f);
	ss_strbuf_release(&sb);
	return rc ? SS_ENOMEM : 0;
}

int ss_ranking_write(const ss_ranking *r, FILE *f, const ss_rank_options *o, const ss_model *m)
{
	int rc = 0;

	switch (o->format) {
	case SS_RANK_TSV:
		write_tsv(r, f, o);
		break;
	case SS_RANK_JSON:
		rc = write_json(r, f, o, m);
		break;
	default:
		write_text(r, f, o, m);
		break;
	}
	if (!rc && ferror(f))
		rc = ss_error_set("cannot write the ranking: %s", strerror(errno));
	return rc;
}
