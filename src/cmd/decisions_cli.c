/*
 * decisions_cli.c - what mark, status and review share, and the rank/report
 * hook that has run/decisions.c apply the review decisions to a ranking
 * (decisions_cli.h; docs/review.md).  One concept, the review decisions,
 * split across three floors: kept in the index (index/index_decisions.c),
 * applied to a ranking (run/decisions.c), named and printed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decisions_cli.h"
#include "run/decisions.h"
#include "run/replay_cut.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/strbuf.h"

ss_index *cli_decisions_open(const char *db, const char *repo, int write, char **path,
			     ss_run *run)
{
	ss_run *own = NULL;
	ss_index *ix = NULL;
	ss_repo *rh;

	*path = NULL;
	/* one open of the repository for its index's path and the check
	 * (none with --db and no --repo) */
	if (!run && ss_run_new(&own))
		die("%s", ss_error_last());
	rh = !db || repo ? ss_run_repo(run ? run : own, repo ? repo : ".") : NULL;
	if (db ? !(*path = strdup(db))
	       : rh ? ss_index_default_path_repo(path, rh)
		    : ss_index_default_path(path, repo ? repo : "."))
		die("%s", db ? "out of memory" : ss_error_last());
	if (ss_index_open(&ix, *path, write ? SS_INDEX_WRITE : SS_INDEX_READ))
		die("%s", ss_error_last());
	if (write) {
		int empty = 0;

		/* a file just made, or a build that never finished, holds no
		 * commits to decide on */
		if (ss_index_is_empty(ix, &empty) || empty) {
			ss_index_free(ix);
			die("index '%s' holds no commits: run 'stablesel index' first", *path);
		}
	}
	if (repo &&
	    (rh ? ss_index_check_repository_repo(ix, rh) : ss_index_check_repository(ix, repo))) {
		char *msg = strdup(ss_error_last());

		ss_index_free(ix);
		die("%s", msg ? msg : "out of memory");
	}
	ss_run_free(own);
	return ix;
}

void cli_branch_identity(char *out, size_t size, ss_index *ix, const char *repo, const char *name)
{
	int rc = ss_index_branch_identity(out, size, ix, name, NULL);
	char id[41];

	/* a tag or a commit the index does not hold: the repository's (the
	 * index's message kept when that is no branch either) */
	if (rc == SS_ENOTFOUND && repo) {
		char *msg = strdup(ss_error_last());

		if (!ss_git_resolve(id, repo, name))
			rc = ss_index_branch_identity(out, size, ix, name, id);
		if (rc == SS_ENOTFOUND && msg)
			ss_error_set("%s", msg);
		free(msg);
	}
	if (rc == SS_ENOTFOUND || rc == SS_EINVALID)
		usage_die("%s", ss_error_last());
	if (rc)
		die("%s", ss_error_last());
}

/* name into out[*n] unless it is there already (two spellings of one
 * branch decide once). */
static void add_branch(char **out, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(out[i], name))
			return;
	if (!(out[*n] = strdup(name)))
		die("out of memory");
	++*n;
}

size_t cli_decision_branches(char **out, size_t max, ss_index *ix, const char *path,
			     const char *repo, const char *const *named, size_t n)
{
	char *found[SS_RANK_MAX_BRANCHES], name[256];
	size_t more = 0, nf, kept = 0;

	if (n) {
		for (size_t i = 0; i < n && kept < max; i++) {
			cli_branch_identity(name, sizeof(name), ix, repo, named[i]);
			add_branch(out, &kept, name);
		}
		return kept;
	}
	nf = cli_index_branches(found, max < SS_RANK_MAX_BRANCHES ? max : SS_RANK_MAX_BRANCHES,
				&more, ix, path);
	if (!nf)
		die("index '%s' knows no live stable branch: name one with --branch", path);
	if (more)
		warning("%zu more stable branches than %zu: name them with --branch", more, max);
	for (size_t i = 0; i < nf; i++) {
		cli_branch_identity(name, sizeof(name), ix, NULL, found[i]);
		add_branch(out, &kept, name);
		free(found[i]);
	}
	return kept;
}

int cli_decision_commit(char out[41], ss_index *ix, const char *repo, const char *arg)
{
	int rc = ss_hexid_is_prefix(arg) ? ss_index_resolve(out, ix, arg) : SS_ENOTFOUND;

	if (!rc)
		return 0;
	if (rc == SS_ENOTFOUND && repo && !ss_git_resolve(out, repo, arg))
		return 0;
	if (rc == SS_ENOTFOUND)
		error("unknown commit '%s': not in the index%s", arg, repo ? " nor in the repository" : "");
	else
		error("%s", ss_error_last());
	return -1;
}

const char *cli_decision_date(char buf[16], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	snprintf(buf, 16, "?");
	if (gmtime_r(&tt, &tm))
		strftime(buf, 16, "%Y-%m-%d", &tm);
	return buf;
}

const char *cli_decision_time(char buf[32], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	snprintf(buf, 32, "?");
	if (gmtime_r(&tt, &tm))
		strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

const char *cli_escaped(ss_strbuf *sb, const char *s)
{
	ss_strbuf_reset(sb);
	if (ss_strbuf_add_escaped(sb, s))
		die("out of memory");
	return sb->buf;
}

const char *cli_decisions_word(size_t n)
{
	return n == 1 ? "decision" : "decisions";
}

void cli_decisions_apply(cli_ranking *k, const char *repo)
{
	char *names[SS_RANK_MAX_BRANCHES], *path = NULL;
	size_t nb = 0, more = 0;
	int any = 0;
	ss_run_decisions_options o = { names, 0, k->queue_extras, k->queue_b,
				       k->show_decided, (int64_t)time(NULL), cli_run_report() };
	ss_index *ix;

	if (k->hist_args.ix.no_index || !(ix = cli_index_open(&k->hist_args.ix, repo, &path)))
		return;
	/* no decision at all: nothing to look up for each row */
	if (ss_index_decisions_any(ix, NULL, &any))
		die("cannot read the decisions of '%s': %s", path, ss_error_last());
	if (any) {
		if (k->nonto) {
			/* the branch identities open_branches resolved */
			for (nb = 0; nb < k->nonto; nb++)
				if (!(names[nb] = strdup(k->ident[nb] ? k->ident[nb]
							 : ss_run_branches_name(k->br, nb))))
					die("out of memory");
			/* a replay (an --onto set back) judges deferrals by its
			 * own clock, not today's */
			if (k->onto_repo || repo) {
				const char *onto_repo = k->onto_repo ? k->onto_repo : repo;
				int64_t clock;

				if (ss_run_replay_clock(&clock, ix, path, onto_repo,
							ss_run_repo(k->run, onto_repo), k->onto, k->nonto))
					die("%s", ss_error_last());
				if (clock)
					o.now = clock;
			}
		} else {
			char name[256];

			/* the index's refs under their identity ("origin/21.11"
			 * is "21.11") */
			nb = cli_index_branches(names, SS_RANK_MAX_BRANCHES, &more, ix, path);
			for (size_t b = 0; b < nb; b++) {
				cli_branch_identity(name, sizeof(name), ix, NULL, names[b]);
				free(names[b]);
				if (!(names[b] = strdup(name)))
					die("out of memory");
			}
		}
		o.nbranches = nb;
		if (k->as_of)  /* deferrals judged by the clock of then */
			o.now = k->as_of;
		if (ss_run_decisions_apply(k->r, ix, path, &o))
			die("%s", ss_error_last());
	}
	for (size_t b = 0; b < nb; b++)
		free(names[b]);
	ss_index_free(ix);
	free(path);
}

ss_strmap *cli_decisions_rejected(cli_ranking *k, const char *repo)
{
	ss_strmap *set = NULL;
	char *path = NULL;
	ss_index *ix;

	if (k->hist_args.ix.no_index || !(ix = cli_index_open(&k->hist_args.ix, repo, &path)))
		return NULL;
	if (ss_run_decisions_rejected(&set, ix, path))
		die("%s", ss_error_last());
	ss_index_free(ix);
	free(path);
	return set;
}
