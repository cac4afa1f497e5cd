/*
 * where.c - "stablesel where": where each commit went, from the project
 * index (src/index/index.h): its first mainline release and every stable
 * branch that carries it, under which id, found how, since when.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "index/index.h"
#include "util/error.h"

static const char *const where_usage[] = {
	"stablesel where [--db FILE | --repo PATH] COMMIT...",
	"",
	"For each commit (a full or abbreviated id), prints its first mainline",
	"release and each stable branch that carries it: the commit there, how it",
	"was found (backport line, patch id, stable-only) and its commit date.",
	"Reads the index \"stablesel index\" wrote.",
	NULL
};

static void print_place(const ss_index_place *p)
{
	size_t i;

	printf("%s %s\n", p->id, p->subject ? p->subject : "");
	if (p->mainline)
		printf("  released: %s\n", p->first_release ? p->first_release : "not yet");
	else
		printf("  released: not on the mainline\n");
	if (!p->ncarriers)
		printf("  stable: none\n");
	for (i = 0; i < p->ncarriers; i++) {
		const ss_index_carrier *c = &p->carriers[i];
		time_t t = (time_t)c->time;
		struct tm tm;
		char date[32] = "?";

		if (gmtime_r(&t, &tm))
			strftime(date, sizeof(date), "%Y-%m-%d", &tm);
		printf("  %s: %s (%s, %s)\n", c->branch, c->commit, c->how, date);
	}
}

int cmd_where(int argc, const char **argv)
{
	const char *db = NULL, *repo = NULL;
	char *path = NULL, id[41];
	ss_index *ix;
	int nargs, i;
	struct cli_option options[] = {
		CLI_GROUP("Index"),
		CLI_STRING(0, "db", &db, "FILE",
			   "the index database (default: the repository's <gitdir>/stablesel/index.db)"),
		CLI_STRING(0, "repo", &repo, "PATH",
			   "the repository whose index to read (default: the current directory)"),
		CLI_END(),
	};

	nargs = cli_parse_options(argc, argv, options, where_usage);
	if (!nargs)
		usage_die("name at least one COMMIT");
	if (!db) {
		if (ss_index_default_path(&path, repo ? repo : "."))
			die("%s", ss_error_last());
		db = path;
	}
	if (ss_index_open(&ix, db, SS_INDEX_READ))
		die("%s", ss_error_last());
	if (repo && ss_index_check_repository(ix, repo)) {
		char *msg = strdup(ss_error_last());

		ss_index_free(ix);
		die("%s", msg ? msg : "out of memory");
	}
	for (i = 0; i < nargs; i++) {
		ss_index_place p;

		if (ss_index_resolve(id, ix, argv[i]) || ss_index_where(&p, ix, id)) {
			error("%s", ss_error_last());
			continue;
		}
		print_place(&p);
		ss_index_place_release(&p);
	}
	ss_index_free(ix);
	free(path);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
