/*
 * common.c - option parsing and commit iteration shared by the commands.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eval/eval.h"
#include "labels/labels.h"
#include "features/history.h"
#include "models/dataset.h"
#include "util/atomic.h"
#include "util/error.h"

void cli_source_args_init(cli_source_args *a)
{
	static const ss_source_options init = SS_SOURCE_OPTIONS_INIT;

	memset(a, 0, sizeof(*a));
	a->opts = init;
	a->opts.revs = a->revs;
}

static const char *need_value(const char *usage, const char *opt, const char *v)
{
	if (!v)
		usage_die(usage, "option '%s' needs a value", opt);
	return v;
}

size_t cli_parse_count(const char *usage, const char *opt, const char *v, size_t min, size_t max)
{
	unsigned long long n;
	char *end;

	need_value(usage, opt, v);
	/* strtoull takes blanks, a sign and wraps "-1" around: digits only */
	errno = 0;
	n = isdigit((unsigned char)*v) ? strtoull(v, &end, 10) : 0;
	if (!isdigit((unsigned char)*v) || errno || *end || n < min || n > max) {
		if (max == SIZE_MAX)
			usage_die(usage, "option '%s' expects an integer of at least %zu, not '%s'", opt,
				  min, v);
		usage_die(usage, "option '%s' expects an integer from %zu to %zu, not '%s'", opt, min,
			  max, v);
	}
	return (size_t)n;
}

double cli_parse_real(const char *usage, const char *opt, const char *v, double lo, double hi)
{
	char *end;
	double d;

	need_value(usage, opt, v);
	errno = 0;
	d = strtod(v, &end);
	/* !(lo <= d <= hi) also refuses nan; blanks before it are garbage too */
	if (errno || end == v || *end || isspace((unsigned char)*v) || !isfinite(d) ||
	    !(d >= lo && d <= hi))
		usage_die(usage, "option '%s' expects a number from %g to %g, not '%s'", opt, lo, hi,
			  v);
	return d;
}

double cli_parse_prob(const char *usage, const char *opt, const char *v)
{
	return cli_parse_real(usage, opt, v, 0.0, 1.0);
}

int64_t cli_parse_date(const char *usage, const char *opt, const char *v)
{
	int64_t t;

	need_value(usage, opt, v);
	if (ss_parse_date(&t, v))
		usage_die(usage, "option '%s' expects a date YYYY-MM-DD, not '%s'", opt, v);
	return t;
}

long cli_parse_long(const char *usage, const char *opt, const char *v)
{
	return (long)cli_parse_count(usage, opt, v, 0, LONG_MAX);
}

double cli_parse_double(const char *usage, const char *opt, const char *v)
{
	return cli_parse_real(usage, opt, v, -DBL_MAX, DBL_MAX);
}

int cli_source_arg(cli_source_args *a, int argc, const char **argv, int *i, const char *usage)
{
	const char *arg = argv[*i];
	const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;

	if (!strcmp(arg, "--mask-stable-tags")) {
		a->opts.mask_stable_tags = 1;
		return 1;
	}
	if (!strcmp(arg, "--no-diff")) {
		a->opts.with_diff = 0;
		return 1;
	}
	if (!strcmp(arg, "--repo") || !strcmp(arg, "--rev") || !strcmp(arg, "--max-lines")) {
		if (!val)
			usage_die(usage, "option '%s' needs a value", arg);
		(*i)++;
		if (!strcmp(arg, "--repo")) {
			a->repo = a->opts.repo = val;
		} else if (!strcmp(arg, "--rev")) {
			if (a->opts.nrevs >= sizeof(a->revs) / sizeof(a->revs[0]))
				usage_die(usage, "too many --rev options");
			a->revs[a->opts.nrevs++] = val;
		} else {
			/* 0: all lines */
			a->opts.max_lines = cli_parse_count(usage, arg, val, 0, SIZE_MAX);
		}
		return 1;
	}
	return 0;
}

int cli_releases_arg(cli_releases *r, const char *arg, const char *val)
{
	if (!strcmp(arg, "--releases"))
		r->file = val;
	else if (!strcmp(arg, "--release-tags"))
		r->tags = val;
	else
		return 0;
	return 1;
}

void cli_releases_load(const cli_releases *r, ss_history *h, const char *repo, const char *usage)
{
	if (r->tags && !repo)
		usage_die(usage, "--release-tags needs --repo PATH");
	if ((r->file || r->tags) && ss_history_load_releases(h, r->file, repo, r->tags))
		die("%s", ss_error_last());
}

ss_atomic *cli_output_open(const char *path)
{
	ss_atomic *a;

	if (ss_atomic_open(&a, path))
		die("%s", ss_error_last());
	return a;
}

void cli_output_commit(ss_atomic *a, size_t nrows, const char *what)
{
	ss_atomic_info info;
	char *target;

	ss_atomic_get_info(&info, a);
	if (!nrows && info.replaces && info.size > 0)
		warning("replacing '%s' (%lld bytes) with an output of no %s", info.target,
			info.size, what);
	target = info.replaces && info.links > 1 ? strdup(info.target) : NULL;
	if (ss_atomic_commit(a))
		die("%s", ss_error_last());
	if (target)
		warning("'%s' had %lu hard links: replaced by a new file, its other names "
			"keep the old content", target, info.links);
	free(target);
}

void cli_log_line(void *ud, const char *msg)
{
	progress_done();
	fprintf(stderr, "%s: %s\n", (const char *)ud, msg);
}

ss_labels *cli_load_labels(const char *path, const char *column, const char **stable,
			   int nstable)
{
	ss_labels *labels = NULL;
	size_t skipped = 0;

	if (path && ss_labels_from_tsv(&labels, path, column))
		die("%s", ss_error_last());
	if (nstable) {
		if (ss_labels_from_stable(&labels, stable, (size_t)nstable, &skipped))
			die("%s", ss_error_last());
		if (skipped)
			warning("%zu malformed stable messages skipped", skipped);
	}
	return labels;
}

void cli_note_unlisted(const char *cmd, const ss_labels *labels, size_t unlisted, size_t kept)
{
	if (!labels || !unlisted)
		return;
	progress_done();
	fprintf(stderr, "%s: %zu of %zu commits are not in the labels (%s): taken as negative\n",
		cmd, unlisted, kept, ss_labels_describe(labels));
}

/* --history: commits that are only the past of the sources */
struct prime {
	ss_history *hist;
	int rc;
};

static int prime_history(ss_commit *c, void *data)
{
	struct prime *p = data;

	p->rc = ss_history_add(p->hist, c);
	ss_commit_free(c);
	return p->rc;
}

void cli_dataset_history(ss_dataset *d, const cli_releases *rel, cli_source_args *src,
			 const char **specs, int nspecs, const char *usage)
{
	/* the dataset owns its history and hands it out read-only; it is
	 * filled here, before any commit, as the past they are featurized
	 * against */
	ss_history *hist = (ss_history *)ss_dataset_history(d);
	int a;

	cli_releases_load(rel, hist, src->repo, usage);
	for (a = 0; a < nspecs; a++) {
		struct prime p = { hist, 0 };

		if (cli_for_each_commit(src, &specs[a], 1, prime_history, &p) == 0)
			warning("--history %s holds no commits", specs[a]);
		if (p.rc)
			die("cannot read --history %s: %s", specs[a], ss_error_last());
	}
}

int cli_train_arg(cli_train_args *t, cli_source_args *src, int argc, const char **argv,
		  int *a, const char *usage)
{
	const char *arg = argv[*a], *val = *a + 1 < argc ? argv[*a + 1] : NULL;
	int rc;

	if (cli_source_arg(src, argc, argv, a, usage))
		return 1;
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		usage_die(usage, NULL);
	if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
		*t->verbose = 1;
		return 1;
	}
	if (!strcmp(arg, "--no-history-features")) {
		*t->no_history = 1;
		return 1;
	}
	if (arg[0] != '-' || !strcmp(arg, "-")) {
		if (*t->nspecs == t->maxspecs)
			usage_die(usage, "too many sources");
		t->specs[(*t->nspecs)++] = arg;
		return 1;
	}
	rc = ss_train_option(t->o, t->fo, arg, val);
	if (rc >= 0) {
		*a += rc;
		return 1;
	}
	if (rc != SS_ENOTFOUND)
		usage_die(usage, "%s", ss_error_last());
	if (!val)
		usage_die(usage, "unknown option '%s' or missing value", arg);
	return 0;
}

static size_t iterate(ss_source *src, const char *spec, cli_commit_fn fn, void *data)
{
	size_t n = 0;
	ss_commit *c;
	int rc;

	for (;;) {
		rc = ss_source_next(&c, src);
		if (rc == SS_ITEROVER)
			break;
		if (rc == SS_ESKIP) {
			error("%s", ss_error_last());
			continue;
		}
		if (rc)
			die("%s", ss_error_last());
		n++;
		progress(spec, n, 0);
		if (fn(c, data))
			break;
	}
	return n;
}

size_t cli_for_each_commit(cli_source_args *a, const char **specs, int nspecs,
			   cli_commit_fn fn, void *data)
{
	size_t n = 0;
	int i;

	if (!nspecs && !a->repo)
		die("no commits to read: name an mbox, '-' for standard input, or --repo PATH");
	if (!nspecs) {
		ss_source *src;

		if (ss_source_open(&src, a->repo, &a->opts))
			die("%s", ss_error_last());
		n = iterate(src, a->repo, fn, data);
		ss_source_free(src);
		return n;
	}
	for (i = 0; i < nspecs; i++) {
		ss_source *src;
		int rc = ss_source_open(&src, specs[i], &a->opts);

		if (rc)
			die("%s", ss_error_last());
		n += iterate(src, specs[i], fn, data);
		ss_source_free(src);
	}
	return n;
}
