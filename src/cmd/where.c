/*
 * where.c - "stablesel where": where each commit went, from the project
 * index (src/index/index.h): its first mainline release and every stable
 * branch that carries it, under which id, found how, since when; for a
 * stable branch's commit, its upstream commit and where that went; for a
 * release tag, its kind, commit, date and the branches that carry it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "index/index.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
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

struct tag_refs {
	const ss_index_tag_place *t;
	const char *repo;
	ss_repo *r;          /* repo, opened for the first branch asked (as given) */
	ss_strbuf *forked;   /* stable branches that fork after it */
	int unknown;         /* the repository could not tell */
};

/* A stable branch of the index that forks from the mainline after the
 * tag's commit: the index keeps only a branch's own commits, so ask git. */
static int tag_ref(const ss_index_ref *r, void *ud)
{
	struct tag_refs *x = ud;
	size_t i;
	int yes = 0;

	if (strcmp(r->kind, "stable") || x->unknown)
		return 0;
	for (i = 0; i < x->t->nbranches; i++)
		if (!strcmp(x->t->branches[i], r->name))
			return 0;
	if ((!x->r && ss_repo_open_as_given(&x->r, x->repo)) ||
	    ss_repo_contains(&yes, x->r, r->tip, x->t->commit)) {
		x->unknown = 1;
		return 0;
	}
	if (yes)
		ss_strbuf_addf(x->forked, "%s%s", x->forked->len ? ", " : "", r->name);
	return 0;
}

static void print_tag(ss_index *ix, const ss_index_tag_place *t, const char *repo)
{
	ss_strbuf forked = SS_STRBUF_INIT;
	struct tag_refs x = { t, repo, NULL, &forked, 0 };
	char date[32];
	size_t i;

	format_date(date, t->time);
	printf("%s (%s release)\n", t->tag, t->kind);
	printf("  commit: %s%s%s\n", t->commit, *t->subject ? " " : "", t->subject);
	printf("  date: %s\n", date);
	printf("  on:");
	for (i = 0; i < t->nbranches; i++)
		printf("%s %s", i ? "," : "", t->branches[i]);
	if (t->mainline && ss_index_for_each_ref(ix, tag_ref, &x) == 0 && forked.len)
		printf("%s %s", t->nbranches ? "," : "", forked.buf);
	if (!t->nbranches && !forked.len)
		printf(" no indexed branch");
	printf("\n");
	if (t->mainline && x.unknown)
		printf("  (the stable branches that fork after it are not known without the repository: --repo)\n");
	ss_repo_free(x.r);
	ss_strbuf_release(&forked);
}

int cmd_where(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *db = NULL, *repo = NULL;
	char *path = NULL, id[41];
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
	if (!db) {
		if (ss_index_default_path(&path, repo ? repo : "."))
			die("%s", ss_error_last());
		db = path;
	}
	if (ss_index_open(&ix, db, SS_INDEX_READ) || (as_of && ss_index_as_of(ix, as_of)))
		die("%s", ss_error_last());
	if (repo && ss_index_check_repository(ix, repo)) {
		char *msg = strdup(ss_error_last());

		ss_index_free(ix);
		die("%s", msg ? msg : "out of memory");
	}
	for (i = 0; i < nargs; i++) {
		ss_index_tag_place t;
		ss_index_place p;
		int rc = SS_ENOTFOUND;

		/* an id first; a name that is no indexed id may be a tag */
		if (ss_hexid_is_prefix(argv[i]) && (rc = ss_index_resolve(id, ix, argv[i])) != SS_ENOTFOUND) {
			if (rc || ss_index_where(&p, ix, id)) {
				error("%s", ss_error_last());
				continue;
			}
			print_place(ix, &p);
			ss_index_place_release(&p);
			continue;
		}
		if (ss_index_where_tag(&t, ix, argv[i])) {
			if (rc == SS_ENOTFOUND && ss_hexid_is_prefix(argv[i]))
				error("unknown commit '%s': not in index '%s' (nor a release tag)", argv[i], db);
			else
				error("%s", ss_error_last());
			continue;
		}
		print_tag(ix, &t, repo ? repo : ".");
		ss_index_tag_place_release(&t);
	}
	ss_index_free(ix);
	free(path);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
