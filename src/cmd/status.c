/*
 * status.c - "stablesel status": the review decisions of each branch,
 * counted and listed per state, or the log of their changes, as
 * run/decisions_status.c hands them (docs/review.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "builtin.h"
#include "cli/decisions_cli.h"
#include "run/decisions_status.h"
#include "util/error.h"
#include "util/strbuf.h"

static const char *const status_usage[] = {
	"stablesel status [--branch B] [--log] [--db FILE | --repo PATH]",
	"",
	"Counts the review decisions of each branch by state, then lists them:",
	"state, commit, subject, who, when, note.  Decisions for commits the index",
	"no longer holds (a rewritten mainline) are kept and listed apart.  --log",
	"lists every change instead, oldest first: when, branch, commit, state,",
	"who and note (resets and undos too).  Control characters in notes,",
	"names and subjects are shown escaped (\\n, \\x1b).",
	NULL
};

/* One decision as the list shows it. */
static int list(const ss_decision *d, void *ud)
{
	ss_strbuf e[4] = { SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT };
	char date[16];

	(void)ud;
	/* notes, names and subjects come from people and files: escaped, so
	 * that none can forge a line or drive the terminal */
	printf("  %-10s %.12s %s\n", ss_decision_state_name(d->state), d->commit,
	       d->known ? cli_escaped(&e[0], d->subject) : "(not in the index)");
	printf("             %s, %s%s%s%s%s\n", cli_escaped(&e[1], d->who),
	       cli_decision_date(date, d->time), *d->until ? ", until " : "",
	       cli_escaped(&e[2], d->until), *d->note ? ": " : "", cli_escaped(&e[3], d->note));
	for (int i = 0; i < 4; i++)
		ss_strbuf_release(&e[i]);
	return 0;
}

/* One row of the log: when it was written, branch, commit, state, who,
 * note. */
static int list_log(const ss_decision *d, void *ud)
{
	ss_strbuf e[4] = { SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT };
	char when[32];

	(void)ud;
	printf("%s  %s  %.12s  %s%s%s%s  %s%s%s\n", cli_decision_time(when, d->logged),
	       cli_escaped(&e[0], d->branch), d->commit,
	       d->state == SS_DECISION_NONE ? "reset" : ss_decision_state_name(d->state),
	       *d->until ? " until " : "", cli_escaped(&e[1], d->until), d->undo ? " (undo)" : "",
	       *d->who ? cli_escaped(&e[2], d->who) : "(unknown)", *d->note ? ": " : "",
	       cli_escaped(&e[3], d->note));
	for (int i = 0; i < 4; i++)
		ss_strbuf_release(&e[i]);
	return 0;
}

int cmd_status(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *db = NULL, *repo = NULL, *named[SS_RANK_MAX_BRANCHES];
	char *branches[SS_RANK_MAX_BRANCHES], *path = NULL;
	size_t nnamed = 0, nb;
	int log = 0;
	int64_t as_of = 0;
	struct cli_option options[] = {
		CLI_DECISIONS_INDEX(&db, &repo),
		CLI_GROUP("Selection"),
		CLI_OPT_DECISION_BRANCH(named, &nnamed),
		CLI_FLAG(0, "log", &log, "list every change to the decisions, oldest first"),
		CLI_OPT_AS_OF(&as_of),
		CLI_END(),
	};
	ss_index *ix;

	if (cli_parse_options(ctx, argc, argv, options, status_usage))
		usage_die("unexpected argument '%s'", argv[0]);
	ix = cli_decisions_open(db, repo, 0, &path, NULL);
	if (as_of && ss_index_as_of(ix, as_of))
		die("%s", ss_error_last());
	nb = cli_decision_branches(branches, SS_RANK_MAX_BRANCHES, ix, path, repo, named, nnamed);
	if (log && ss_run_decisions_status_log(ix, branches, nb, nnamed, list_log, NULL))
		die("%s", ss_error_last());
	for (size_t b = 0; b < nb && !log; b++) {
		ss_run_decisions_count c;

		if (ss_run_decisions_status_count(&c, ix, branches[b]))
			die("%s", ss_error_last());
		printf("%s:", branches[b]);
		for (int st = 1; st < SS_DECISION_NSTATES; st++)
			printf(" %zu %s%s", c.count[st], ss_decision_state_name((ss_decision_state)st),
			       st + 1 < SS_DECISION_NSTATES ? "," : "");
		if (c.unknown)
			printf("; %zu not in the index", c.unknown);
		printf("\n");
		if (ss_run_decisions_status_list(ix, branches[b], &c, list, NULL))
			die("%s", ss_error_last());
	}
	for (size_t b = 0; b < nb; b++)
		free(branches[b]);
	ss_index_free(ix);
	free(path);
	return 0;
}
