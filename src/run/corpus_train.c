/*
 * corpus_train.c - the general model of a corpus and the rows of its
 * leave-one-project-out table, how the general model picks in a project
 * it has never seen (corpus_train.h).  Moved from the command side,
 * cmd/corpus.c, which prints the table and the model's figures.
 */
#include "run/corpus_train.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "util/error.h"

struct ss_run_corpus_lopo {
	const ss_dataset *d;
	ss_lopo_project p[SS_CORPUS_MAX];
	size_t *idx[SS_CORPUS_MAX];
	size_t n;
};

int ss_run_corpus_lopo_new(ss_run_corpus_lopo **out, const ss_dataset *d, const ss_corpus *c)
{
	ss_run_corpus_lopo *l = calloc(1, sizeof(*l));
	int rc;

	*out = NULL;
	if (!l)
		return ss_error_code(SS_ENOMEM, "out of memory");
	l->d = d;
	for (size_t i = 0; i < c->n; i++) {
		ss_corpus one = { .n = 1 };
		size_t n;

		one.p[0] = c->p[i];
		if ((rc = ss_corpus_examples(&l->idx[i], &n, &one, NULL, d, 0))) {
			ss_run_corpus_lopo_free(l);
			return rc;
		}
		l->n = i + 1;
		l->p[i].name = c->p[i].name;
		l->p[i].idx = l->idx[i];
		l->p[i].n = n;
		l->p[i].weight = c->p[i].weight;
	}
	*out = l;
	return 0;
}

void ss_run_corpus_lopo_free(ss_run_corpus_lopo *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->idx[i]);
	free(l);
}

int ss_run_corpus_lopo_one(ss_lopo_row *out, const ss_run_corpus_lopo *l, size_t i,
			   double test_share, const ss_train_options *o)
{
	return ss_lopo_run(out, l->d, l->p, l->n, i, test_share, o);
}

void ss_run_corpus_lopo_add(ss_lopo_row *sum, const ss_lopo_row *r)
{
	sum->base += r->base;
	sum->keyword_f1 += r->keyword_f1;
	sum->rule_f1 += r->rule_f1;
	sum->general.ap += r->general.ap;
	sum->general.f1 += r->general.f1;
	sum->project.ap += r->project.ap;
	sum->project.f1 += r->project.f1;
	sum->adapted.ap += r->adapted.ap;
	sum->adapted.f1 += r->adapted.f1;
	sum->near.ap += r->near.ap;
	sum->near.f1 += r->near.f1;
}

void ss_run_corpus_unseen_score(ss_run_corpus_unseen *out, const ss_corpus *c,
				const ss_lopo_row *rows)
{
	double f1, p, r, sf1 = 0.0, sr = 0.0, sap = 0.0;
	size_t i;
	float t;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < c->n; i++) {
		ss_run_corpus_unseen_row *u = &out->p[i];

		if (!rows[i].gscore)
			continue;
		t = ss_lopo_threshold(rows, c->n, i);
		ss_lopo_general_at(&rows[i], t, &f1, &p, &r);
		u->shown = 1;
		u->threshold = t;
		u->precision = p;
		u->recall = r;
		u->f1 = f1;
		u->ap = rows[i].general.ap;
		u->ap_base = rows[i].general.ap / rows[i].base;
		sf1 += f1;
		sr += r;
		sap += rows[i].general.ap / rows[i].base;
		out->done++;
	}
	if (!out->done)
		return;
	out->recall = sr / (double)out->done;
	out->f1 = sf1 / (double)out->done;
	out->ap_base = sap / (double)out->done;
	for (int rule = 0; rule < 2; rule++) {
		double mp = 0.0, mr = 0.0, mf = 0.0;

		for (i = 0; i < c->n; i++) {
			if (!rows[i].gscore)
				continue;
			t = rule ? ss_lopo_expected_threshold(&rows[i])
				 : ss_lopo_share_threshold(rows, c->n, i);
			ss_lopo_general_at(&rows[i], t, &f1, &p, &r);
			mp += p;
			mr += r;
			mf += f1;
		}
		out->rule[rule].precision = mp / (double)out->done;
		out->rule[rule].recall = mr / (double)out->done;
		out->rule[rule].f1 = mf / (double)out->done;
	}
}

int ss_run_corpus_train(ss_model **out, ss_run_corpus_general *g, const ss_dataset *d,
			const ss_corpus *c, const ss_train_options *o, const char *list,
			const ss_lopo_row *rows)
{
	ss_model *m = NULL;
	ss_model_info *in;
	size_t *idx;
	int rc;

	*out = NULL;
	memset(g, 0, sizeof(*g));
	if ((rc = ss_corpus_examples(&idx, &g->n, c, NULL, d, 1)))
		return rc;
	for (size_t i = 0; i < g->n; i++)
		g->npos += ss_dataset_example(d, idx[i])->label;
	rc = ss_model_train(&m, SS_MODEL_LINEAR, d, idx, g->n, o);
	free(idx);
	if (rc)
		return ss_run_fail(rc, "cannot train");
	g->pooled = ss_model_threshold(m);
	if (rows) {
		ss_model_set_threshold(m, ss_lopo_threshold(rows, c->n, SIZE_MAX));
		/* what rank uses on a project the model never saw: the
		 * projects' own score scales differ (lopo.h) */
		ss_model_set_pick_share(m, ss_lopo_share(rows, c->n, SIZE_MAX));
	}
	in = ss_model_get_info(m);
	snprintf(in->source, sizeof(in->source), "corpus:%s (%zu projects)", list, c->n);
	snprintf(in->labels, sizeof(in->labels), "the projects' stable branches");
	in->masked = 1;
	*out = m;
	return 0;
}
