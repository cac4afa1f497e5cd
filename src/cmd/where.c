/*
 * where.c - "stablesel where": where each commit went, from the project
 * index (src/index/index.h): its first mainline release and every stable
 * branch that carries it, under which id, found how, since when; for a
 * stable branch's commit, its upstream commit and where that went; for a
 * release tag, its kind, commit, date and the branches that carry it.
 * run/where_lookup.c opens the index and looks them up; this file prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "index/index.h"
#include "run/where_lookup.h"
#include "util/error.h"
#include "util/strbuf.h"

static const char *const where_usage[] = {
	"stablesel where [--db FILE | --repo PATH] COMMIT|TAG...",
	"",
	"For each commit (a full or abbreviated id), prints its first mainline",
	"release and each stable branch that carries it: the commit there, how it",
	"was found (backport line, patch id, stable-only) and its commit date.  A",
	"stable branch's commit names its upstream commit, and the branches are",
	"those carrying that.  For a release tag: its kind (mainline, stable, rc),",
	"commit, date and the branches that carry it.",
	"Reads the index \"stablesel index\" wrote (and the repository, for the",
	"stable branches that fork after a mainline release).",
	NULL
};

static void format_date(char date[32], int64_t time)
{
	time_t t = (time_t)time;
	struct tm tm;

	snprintf(date, 32, "?");
	if (gmtime_r(&t, &tm))
		strftime(date, 32, "%Y-%m-%d", &tm);
}

static void print_place(ss_index *ix, const ss_index_place *p)
{
	size_t i;

	printf("%s %s\n", p->id, p->subject ? p->subject : "");
	if (p->upstream[0]) {
		ss_index_place up;
		const char *rel = "not yet";

		if (!ss_index_where(&up, ix, p->upstream) && up.first_release)
			rel = up.first_release;
		printf("  upstream: %s %s (%s)\n", p->upstream, p->upstream_subject, p->upstream_how);
		printf("  released: %s (upstream)\n", rel);
		ss_index_place_release(&up);
	} else if (p->mainline)
		printf("  released: %s\n", p->first_release ? p->first_release : "not yet");
	else
		printf("  released: not on the mainline\n");
	if (!p->ncarriers)
		printf("  stable: none\n");
	for (i = 0; i < p->ncarriers; i++) {
		const ss_index_carrier *c = &p->carriers[i];
		char date[32];

		format_date(date, c->time);
		printf("  %s: %s (%s, %s)%s\n", c->branch, c->commit, c->how, date,
		       p->upstream[0] && !strcmp(c->commit, p->id) ? " <- this commit" : "");
	}
}

static void print_tag(ss_index *ix, const ss_index_tag_place *t, const char *repo)
{
	ss_strbuf forked = SS_STRBUF_INIT;
	char date[32];
	size_t i;
	int unknown = 0;

	format_date(date, t->time);
	printf("%s (%s release)\n", t->tag, t->kind);
	printf("  commit: %s%s%s\n", t->commit, *t->subject ? " " : "", t->subject);
	printf("  date: %s\n", date);
	printf("  on:");
	for (i = 0; i < t->nbranches; i++)
		printf("%s %s", i ? "," : "", t->branches[i]);
	if (t->mainline && ss_run_where_forked(&forked, &unknown, ix, t, repo) == 0 && forked.len)
		printf("%s %s", t->nbranches ? "," : "", forked.buf);
	if (!t->nbranches && !forked.len)
		printf(" no indexed branch");
	printf("\n");
	if (t->mainline && unknown)
		printf("  (the stable branches that fork after it are not known without the repository: --repo)\n");
	ss_strbuf_release(&forked);
}

int cmd_where(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *db = NULL, *repo = NULL;
	char *path = NULL;
	ss_index *ix;
	int nargs, i;
	int64_t as_of = 0;
	struct cli_option options[] = {
		CLI_GROUP("Index"),
		CLI_OPT_DB(&db),
		CLI_OPT_REPO(&repo),
		CLI_OPT_AS_OF(&as_of),
		CLI_END(),
	};

	nargs = cli_parse_options(ctx, argc, argv, options, where_usage);
	if (!nargs)
		usage_die("name at least one COMMIT");
	if (ss_run_where_open(&ix, &path, db, repo, as_of))
		die("%s", ss_error_last());
	for (i = 0; i < nargs; i++) {
		ss_run_where_kind kind;
		ss_index_tag_place t;
		ss_index_place p;

		if (ss_run_where_lookup(&kind, &p, &t, ix, path, argv[i])) {
			error("%s", ss_error_last());
		} else if (kind == SS_RUN_WHERE_COMMIT) {
			print_place(ix, &p);
			ss_index_place_release(&p);
		} else {
			print_tag(ix, &t, repo ? repo : ".");
			ss_index_tag_place_release(&t);
		}
	}
	ss_index_free(ix);
	free(path);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
