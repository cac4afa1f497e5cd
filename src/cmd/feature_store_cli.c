/*
 * feature_store_cli.c - the command side of the project model's features
 * kept in the project index (run/feature_store.c does the work: one
 * concept split across two floors;
 * docs/index.md, "Stored features"): which index the options name, the
 * history walked and primed as the commands read it
 * (cli_for_each_history_commit(), cli_history_load()), and dying on what
 * run/ returns.  The project model's training reads and keeps the rows
 * through run/project_choose.c.
 */
#include <stdlib.h>
#include <string.h>

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

ss_run_feature_store *cli_feature_store_open(const cli_history_args *ha, const char *repo,
					     const ss_feat_options *fo, const ss_source_options *so)
{
	ss_run_feature_store *fs;
	char *path = NULL;
	ss_index *ix;

	/* the rows were extracted with the index's releases and full diffs */
	if (ha->ix.no_index || ha->rel.file || ha->rel.tags || !so->with_diff || !repo)
		return NULL;
	if (!(ix = cli_index_open(&ha->ix, repo, &path)))
		return NULL;
	if (ss_run_feature_store_open(&fs, ix, path, fo, so))
		die("%s", ss_error_last());
	return fs;
}
