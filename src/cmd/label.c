/*
 * label.c - "stablesel label": upstream commits a stable tree carries.
 *
 * Writes a TSV "sha in_stable stable_branches" (one row per upstream sha
 * named by a backport) that "train --labels" takes.
 */
#include <string.h>

#include "cli.h"
#include "labels/backports.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel label --stable SOURCE [--branches GLOB] [--upstream-ref REF]\n"
	"                [--upstream-pattern REGEX...] [--releases FILE] [-o FILE]";

int cmd_label(int argc, const char **argv)
{
	ss_backports_options opts = SS_LABEL_OPTIONS_INIT;
	const char *patterns[32], *stable[32], *output = "-";
	size_t nstable = 0, skipped = 0, i;
	ss_atomic *out;
	ss_backports *l;
	int a;

	opts.patterns = patterns;
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
			usage_die(usage, NULL);
		if (!val)
			usage_die(usage, arg[0] == '-' ? "option '%s' needs a value" :
				  "unexpected argument '%s'", arg);
		if (!strcmp(arg, "--stable")) {
			if (nstable == 32)
				usage_die(usage, "too many --stable sources");
			stable[nstable++] = val;
		} else if (!strcmp(arg, "--branches")) {
			opts.branches = val;
		} else if (!strcmp(arg, "--upstream-ref")) {
			opts.upstream_ref = val;
		} else if (!strcmp(arg, "--upstream-pattern")) {
			if (opts.npatterns == 32)
				usage_die(usage, "too many --upstream-pattern options");
			patterns[opts.npatterns++] = val;
		} else if (!strcmp(arg, "--releases")) {
			opts.releases = val;
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
			output = val;
		} else {
			usage_die(usage, "unknown option '%s'", arg);
		}
		a++;
	}
	if (!nstable)
		usage_die(usage, "--stable SOURCE is required");
	out = cli_output_open(output);
	if (ss_backports_new(&l, &opts))
		die("%s", ss_error_last());
	for (i = 0; i < nstable; i++) {
		size_t before = skipped;

		if (ss_backports_read(l, stable[i], &skipped))
			die("%s", ss_error_last());
		if (skipped > before)
			error("%zu malformed messages skipped in '%s' (first: %s)",
			      skipped - before, stable[i], ss_error_last());
	}
	if (ss_backports_write(l, ss_atomic_file(out))) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, ss_backports_count(l), "labels");
	ss_backports_free(l);
	return 0;
}
