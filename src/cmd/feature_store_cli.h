/*
 * feature_store_cli.h - the project model's features kept in the project
 * index, as the commands name them (feature_store_cli.c; the work is
 * run/feature_store.h's; docs/index.md, "Stored features").
 *
 * "stablesel index" fills them (cli_feature_store_fill); the project
 * model's training reads them instead of the diffs
 * (cli_feature_store_read), and keeps the rows it had to extract
 * (cli_feature_store_keep) when the index can be written.
 */
#ifndef SS_CMD_FEATURE_STORE_CLI_H
#define SS_CMD_FEATURE_STORE_CLI_H

#include <stdint.h>

#include "cli.h"
#include "eval/split.h"
#include "features/features.h"
#include "index/index.h"
#include "run/feature_store.h"

typedef struct cli_feature_store cli_feature_store;

/* How the commands walk and prime a history, for the run floor. */
const ss_run_history_reader *cli_history_reader(void);

/*
 * The rows of the index the history options name (--db, else repo's),
 * for commits read with so and extracted with fo; NULL when there is no
 * index (--no-index, none) or the rows cannot fit: --releases or
 * --release-tags (the rows saw the index's releases), --no-diff.
 */
cli_feature_store *cli_feature_store_open(const cli_history_args *ha, const char *repo,
					  const ss_feat_options *fo, const ss_source_options *so);
/* Commits the rows kept this run, and closes; NULL is a no-op. */
void cli_feature_store_close(cli_feature_store *fs);

/*
 * Add hsrc's commits (the walk of the history before the ranked ones,
 * read without diffs) to sink->d from their rows, labelled as
 * ss_split_add() labels them; newest gets the newest author time read;
 * max (0: all): only the newest max stay (ss_run_feature_store_read()).
 *   1   done: every ancestor of hsrc's revisions has its row (a fill
 *       reached them), a commit without one is one the diff read skips
 *       and is left out as it would be (a warning says how many);
 *   0   nothing added: the rows do not reach hsrc's revisions (said once
 *       when the index cannot be written); read the diffs;
 *  -1   a damaged row: sink->d holds part of the commits, start again
 *       from the diffs (the rows kept then replace the damaged one).
 * Dies on error.
 */
int cli_feature_store_read(cli_feature_store *fs, const cli_source_args *hsrc,
			   ss_split_sink *sink, size_t max, int64_t *newest);

/* hsrc's commits were all read with their diffs and their rows kept: the
 * rows reach its revision (one, named alone), recorded at close when it
 * has the tip recorded before in its history (or none was). */
void cli_feature_store_walked(cli_feature_store *fs, const cli_source_args *hsrc);

/* Keep the row of d's last example when ss_dataset_add() extracted it
 * (fs NULL: nothing); an index that cannot be written is said once. */
void cli_feature_store_keep(cli_feature_store *fs, const ss_dataset *d);
size_t cli_feature_store_kept(const cli_feature_store *fs);

/*
 * Extract and keep the features of the mainline commits of the index ix
 * (at db, from repo) that have none under the project model's feature
 * set, walking only what came since the last fill; drop the rows of
 * other extractors; rows are committed batch at a time (0: 1000), the
 * tip with the last.  Says on stderr what it kept; dies on error.
 */
void cli_feature_store_fill(ss_index *ix, const char *db, const char *repo, size_t batch);

#endif
