/*
 * feature_store_cli.c - the command side of the project model's features
 * kept in the project index (run/feature_store.c does the work: one
 * concept split across two floors;
 * docs/index.md, "Stored features"): the history walked and primed as
 * the commands read it (cli_for_each_history_commit(), cli_history_load())
 * for run/index_build.c and run/corpus_rows.c.  The project model's
 * training opens, reads and keeps the rows through run/project_read.c
 * and run/project_choose.c.
 */

#include "feature_store_cli.h"
#include "util/error.h"

/* ss_run_history_reader.walk: the commands' walk of a history. */
static void walk(const char *repo, const ss_source_options *so, ss_run_commit_fn fn, void *data,
		 void *ud)
{
	cli_source_args a;

	(void)ud;
	cli_source_args_init(&a);
	a.repo = repo;
	a.opts = *so;
	cli_for_each_history_commit(&a, NULL, 0, fn, data);
}

/* ss_run_history_reader.history: primed as a training primes it. */
static void history(ss_history *h, const char *db, const char *repo, void *ud)
{
	cli_history_args ha;

	(void)ud;
	cli_history_args_init(&ha);
	ha.ix.db = db;
	cli_history_load(&ha, h, repo);
}

static const ss_run_history_reader reader = { walk, history, NULL };

const ss_run_history_reader *cli_history_reader(void)
{
	return &reader;
}
