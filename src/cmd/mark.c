/*
 * mark.c - "stablesel mark": record review decisions from a script
 * (index/index_decisions.h; docs/review.md); run/decisions_open.c
 * records each.
 */
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli/decisions_cli.h"
#include "run/decisions.h"
#include "run/decisions_open.h"
#include "source/ident.h"
#include "util/error.h"

/* --until: a real date, a release the index has, or one to come. */
static void check_until(ss_index *ix, const char *path, const char *until)
{
	int future = 0, rc = ss_run_decision_until_check(ix, path, until, &future);

	if (rc == SS_EINVALID)
		usage_die("--until %s", ss_error_last());
	if (rc)
		die("%s", ss_error_last());
	if (future)
		note("index '%s' has no release %s yet: the deferral ends when an update finds it",
		     path, until);
}

static const char *const mark_usage[] = {
	"stablesel mark accept|reject|defer|queue|fail|reset [options] COMMIT...",
	"",
	"Records a review decision for each commit on each branch (--branch, else",
	"every live stable branch of the project index): who (git's user.name and",
	"user.email), when, and --note.  reset removes the decision.  Rank hides",
	"decided candidates; a queue for a branch with decisions holds the accepted",
	"ones.  \"stablesel status\" lists them; \"stablesel review\" decides",
	"interactively.",
	NULL
};

int cmd_mark(int argc, const char **argv, const struct cli_context *ctx)
{
	static const char *const verbs[] = { "accept", "reject", "defer", "queue", "fail", "reset", NULL };
	static const ss_decision_state states[] = { SS_DECISION_ACCEPTED, SS_DECISION_REJECTED,
						    SS_DECISION_DEFERRED, SS_DECISION_QUEUED,
						    SS_DECISION_FAILED, SS_DECISION_NONE };
	const char *db = NULL, *repo = NULL, *text = "", *until = "", *named[SS_RANK_MAX_BRANCHES];
	char *branches[SS_RANK_MAX_BRANCHES], *path = NULL, *who = NULL;
	size_t nnamed = 0, nb, done = 0;
	int nargs, verb;
	struct cli_option options[] = {
		CLI_DECISIONS_INDEX(&db, &repo),
		CLI_GROUP("Decision"),
		CLI_OPT_DECISION_BRANCH(named, &nnamed),
		CLI_STRING(0, "note", &text, "TEXT", "why, in words"),
		CLI_STRING(0, "until", &until, "DATE|TAG",
			   "defer: until the date (YYYY-MM-DD) or until the index has the release"),
		CLI_END(),
	};
	ss_run_decision_mark m = SS_RUN_DECISION_MARK_INIT;
	ss_index *ix;

	nargs = cli_parse_options(ctx, argc, argv, options, mark_usage);
	if (nargs < 2)
		usage_die("name a decision (accept, reject, defer, queue, fail, reset) and a COMMIT");
	for (verb = 0; verbs[verb] && strcmp(verbs[verb], argv[0]); verb++)
		;
	if (!verbs[verb])
		usage_die("unknown decision '%s' (accept, reject, defer, queue, fail, reset)", argv[0]);
	if (*until && states[verb] != SS_DECISION_DEFERRED)
		usage_die("--until goes with defer");
	if (states[verb] != SS_DECISION_NONE && ss_git_identity(&who, repo ? repo : "."))
		die("%s", ss_error_last());
	ix = cli_decisions_open(db, repo, 1, &path, NULL);
	check_until(ix, path, until);
	nb = cli_decision_branches(branches, SS_RANK_MAX_BRANCHES, ix, path, repo, named, nnamed);
	m.state = states[verb];
	m.who = who;
	m.note = text;
	m.until = until;
	m.skip_carried = !nnamed;
	for (int i = 1; i < nargs; i++) {
		char commit[41];
		size_t one;

		if (cli_decision_commit(commit, ix, repo, argv[i]))
			continue;
		if (ss_run_decision_mark_commit(&one, ix, commit, branches, nb, &m, cli_run_report()))
			die("%s", ss_error_last());
		done += one;
	}
	note("%zu %s %s in '%s'", done, cli_decisions_word(done),
	     states[verb] == SS_DECISION_NONE ? "removed" : "recorded", path);
	for (size_t b = 0; b < nb; b++)
		free(branches[b]);
	ss_index_free(ix);
	free(path);
	free(who);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
