/*
 * corpus.c - "stablesel corpus": the general model, trained on the
 * projects of a corpus (run/corpus_rows.h; scripts/corpus.sh builds the
 * folder), and the leave-one-project-out table (eval/lopo.h).
 * run/corpus_rows.c reads the rows, run/corpus_train.c trains and
 * computes the table's figures; this file prints.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "eval/eval.h"
#include "eval/lopo.h"
#include "models/model.h"
#include "run/corpus_rows.h"
#include "run/corpus_train.h"
#include "util/atomic.h"
#include "util/error.h"

static const char *const corpus_usage[] = {
	"stablesel corpus --list FILE --dir DIR [-o MODEL] [--leave-one-out]",
	"",
	"Reads the labelled feature rows of every project of the corpus FILE",
	"(scripts/corpus.tsv: name, url, snapshot commit and date, since, until) from",
	"the project indexes in DIR (DIR/<name>.db of DIR/<name>.git, made by",
	"scripts/corpus.sh), and trains one linear model on all of them (-o), the",
	"model built into stablesel (make default-model); with --leave-one-out,",
	"prints for each project how a model trained on the others, its own",
	"model and its own adapted from the others rank its newest commits.",
	NULL
};

static void print_row_header(void)
{
	printf("%-16s %6s %5s %6s %6s  %-28s %11s %11s %11s %11s %s\n", "project", "test", "base",
	       "kw F1", "rule", "best single rule (older part)", "general", "project",
	       "adapted", "+nearest", "adapted chose");
	printf("%-16s %6s %5s %6s %6s  %-28s %11s %11s %11s %11s\n", "", "", "", "", "F1", "",
	       "AP / F1", "AP / F1", "AP / F1", "AP / F1");
}

static void print_row(const char *name, const ss_lopo_row *r)
{
	const ss_linear_adapt *a = &r->adapt;

	printf("%-16s %6zu %5.3f %6.3f %6.3f  %-28.28s %5.3f/%.3f %5.3f/%.3f %5.3f/%.3f "
	       "%5.3f/%.3f prior %.2f", name, r->ntest, r->base, r->keyword_f1, r->rule_f1, r->rule,
	       r->general.ap, r->general.f1, r->project.ap, r->project.f1, r->adapted.ap,
	       r->adapted.f1, r->near.ap, r->near.f1, a->alpha);
	if (a->boost > 0.0f)
		printf(", rule %ld raised %.2f (validation AP %.3f -> %.3f, rule F1 %.3f)", a->rule,
		       (double)a->boost, a->ap_model, a->ap_final, a->f1_rule);
	printf(", nearest weight %g", (double)r->near_adapt.near_beta);
	putchar('\n');
	fflush(stdout);
}

/* How the general model picks in a project it has never seen: each
 * project at the median of the other projects' best thresholds
 * (run/corpus_train.h computes the figures). */
static void print_unseen(const ss_corpus *c, const ss_lopo_row *rows)
{
	ss_run_corpus_unseen u;
	size_t i;

	ss_run_corpus_unseen_score(&u, c, rows);
	printf("\nthe general model in a project it has never seen, at the median of the other "
	       "projects' best thresholds:\n");
	printf("%-16s %9s %6s %6s %6s %6s %8s\n", "project", "threshold", "P", "R", "F1", "AP",
	       "AP/base");
	for (i = 0; i < c->n; i++) {
		const ss_run_corpus_unseen_row *p = &u.p[i];

		if (!p->shown)
			continue;
		printf("%-16s %9.4f %6.3f %6.3f %6.3f %6.3f %8.2f\n", c->p[i].name,
		       (double)p->threshold, p->precision, p->recall, p->f1, p->ap, p->ap_base);
	}
	if (!u.done)
		return;
	printf("%-16s %9s %6s %6.3f %6.3f %6s %8.2f\n", "mean", "", "", u.recall, u.f1, "",
	       u.ap_base);
	/* the other ways to pick (lopo.h), as means */
	for (int rule = 0; rule < 2; rule++)
		printf("%-44s P %.3f R %.3f F1 %.3f (means)\n",
		       rule ? "picking its expected positives (sum of scores):"
			    : "picking the median share the others pick:",
		       u.rule[rule].precision, u.rule[rule].recall, u.rule[rule].f1);
}

/* The leave-one-project-out table; rows[c->n] keep each project's row. */
static void leave_one_out(const ss_dataset *d, ss_corpus *c, const ss_train_options *o,
			  double test_share, ss_lopo_row *rows)
{
	ss_run_corpus_lopo *l;
	ss_lopo_row sum;
	size_t done = 0;

	memset(&sum, 0, sizeof(sum));
	if (ss_run_corpus_lopo_new(&l, d, c))
		die("%s", ss_error_last());
	print_row_header();
	for (size_t i = 0; i < c->n; i++) {
		progress("holding out each project in turn", i + 1, c->n);
		if (ss_run_corpus_lopo_one(&rows[i], l, i, test_share, o)) {
			progress_done();
			error("%s", ss_error_last());
			continue;
		}
		progress_done();
		print_row(c->p[i].name, &rows[i]);
		done++;
		ss_run_corpus_lopo_add(&sum, &rows[i]);
	}
	if (done) {
		double k = 1.0 / (double)done;

		printf("%-16s %6s %5.3f %6.3f %6.3f  %-28s %5.3f/%.3f %5.3f/%.3f %5.3f/%.3f "
		       "%5.3f/%.3f\n", "mean", "", sum.base * k, sum.keyword_f1 * k, sum.rule_f1 * k,
		       "", sum.general.ap * k, sum.general.f1 * k, sum.project.ap * k,
		       sum.project.f1 * k, sum.adapted.ap * k, sum.adapted.f1 * k, sum.near.ap * k,
		       sum.near.f1 * k);
		print_unseen(c, rows);
	}
	ss_run_corpus_lopo_free(l);
}

/* What project p gave the corpus, said once its rows are read. */
static void print_read(const ss_corpus_project *p, void *ud)
{
	(void)ud;
	fprintf(stderr, "corpus: %s: %zu commits before the cut, %zu of those kept reached a "
		"stable branch\n", p->name, p->n, p->npos);
}

/* Train on every project and write the model; rows (NULL: none) set its
 * threshold to the median of the projects' best ones when held out. */
static void train_general(const ss_dataset *d, ss_corpus *c, const ss_train_options *o,
			  const char *output, const char *list, const ss_lopo_row *rows)
{
	ss_atomic *out = cli_output_open(output);
	ss_run_corpus_general g;
	ss_model *m = NULL;
	double t0 = ss_now();

	if (ss_run_corpus_train(&m, &g, d, c, o, list, rows))
		die("%s", ss_error_last());
	if (rows) {
		printf("threshold %.4f (on the pooled validation slice: %.4f): the median of the "
		       "projects' best thresholds when held out, for a project it has never seen\n",
		       (double)ss_model_threshold(m), (double)g.pooled);
		printf("pick share %.4f: the median share of the projects' commits at their best "
		       "thresholds when held out; rank proposes that share of a project it has "
		       "never seen\n", (double)ss_model_pick_share(m));
	}
	cli_model_write(out, m, output);
	{
		const ss_model_info *in = ss_model_info_of(m);
		char first[16], last[16];

		ss_format_date(first, in->first);
		ss_format_date(last, in->last);
		printf("trained linear on %zu commits (weights counted) of %zu projects %s..%s (%zu "
		       "reached a stable branch, %.1f%%; the Cc: stable feature cleared) in %.1fs\n"
		       "settings: %s\n"
		       "pooled validation (%llu newest commits, %llu positive) at the "
		       "pooled threshold: P %.3f R %.3f F1 %.3f PR-AUC %.3f\n"
		       "wrote %s (%zu weights)\n", g.n, c->n, first, last, g.npos,
		       g.n ? 100.0 * (double)g.npos / (double)g.n : 0.0, ss_now() - t0, in->params,
		       (unsigned long long)in->nval,
		       (unsigned long long)in->nval_pos, in->val_precision, in->val_recall,
		       in->val_f1, in->val_pr_auc, output, ss_model_nweights(m));
		cli_print_calibration(m);
	}
	ss_model_free(m);
}

int cmd_corpus(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *list = NULL, *dir = NULL, *output = NULL, *only = NULL;
	const char *data = "../shared/data";
	int lopo = 0, threads = 2;
	const char *weights[SS_CORPUS_MAX];
	size_t nweights = 0;
	double C = 0.0, test_share = 0.25;
	struct cli_option options[] = {
		CLI_GROUP("Corpus"),
		CLI_STRING(0, "list", &list, "FILE", "the corpus file (scripts/corpus.tsv)"),
		CLI_STRING(0, "dir", &dir, "DIR", "the folder of its repositories and indexes"),
		CLI_STRING(0, "data", &data, "DIR",
			   "the data folder of the list's data: projects (default ../shared/data)"),
		CLI_STRING(0, "only", &only, "NAME", "read only this project of the list"),
		CLI_STRLIST("weight", weights, &nweights, "NAME=N",
			    "each commit of project NAME counts N times in training"),
		CLI_GROUP("What to do"),
		CLI_OUTPUT(&output, "train on every project and write the model to FILE"),
		CLI_FLAG(0, "leave-one-out", &lopo, "hold each project out in turn and print the table"),
		CLI_REAL("test-share", &test_share, "F", 0.05, 0.9,
			 "with --leave-one-out: the newest share of a project that is tested"),
		CLI_OPT_COST(&C),
		CLI_OPT_THREADS(&threads),
		CLI_END(),
	};
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_corpus c;
	ss_dataset *d = NULL;
	ss_lopo_row rows[SS_CORPUS_MAX];
	size_t i;

	if (cli_parse_options(ctx, argc, argv, options, corpus_usage))
		usage_die("unexpected operand '%s'", argv[0]);
	if (!list || !dir)
		usage_die("--list FILE and --dir DIR are required");
	if (!output && !lopo)
		usage_die("nothing to do: -o MODEL, --leave-one-out or both");
	if (ss_corpus_load(&c, list))
		die("%s", ss_error_last());
	if (only) {
		ss_corpus_project *p = ss_corpus_find(&c, only);

		if (!p)
			usage_die("--only: '%s' is not a project of %s", only, list);
		c.p[0] = *p;
		c.n = 1;
	}
	for (i = 0; i < nweights; i++)
		if (ss_corpus_set_weight(&c, weights[i]))
			usage_die("--weight: %s", ss_error_last());
	o.C = C;
	o.threads = threads;
	if (ss_run_corpus_read(&d, &c, dir, data, print_read, NULL, cli_run_report()))
		die("%s", ss_error_last());
	memset(rows, 0, sizeof(rows));
	if (lopo)
		leave_one_out(d, &c, &o, test_share, rows);
	if (output)
		train_general(d, &c, &o, output, list, lopo ? rows : NULL);
	for (i = 0; i < c.n; i++)
		ss_lopo_row_release(&rows[i]);
	ss_dataset_free(d);
	return 0;
}
