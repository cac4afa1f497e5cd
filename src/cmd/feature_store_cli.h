/*
 * feature_store_cli.h - the project model's features kept in the project
 * index, as the commands name them (feature_store_cli.c; the work is
 * run/feature_store.h's; docs/index.md, "Stored features").
 *
 * "stablesel index" fills them (run/index_build.c, walking the history
 * through cli_history_reader()); the project model's training
 * (run/project_choose.c) reads them instead of the diffs from the index
 * run/project_read.c opens, and keeps the rows it had to extract when
 * the index can be written.
 */
#ifndef SS_CMD_FEATURE_STORE_CLI_H
#define SS_CMD_FEATURE_STORE_CLI_H

#include <stdint.h>

#include "cli.h"
#include "eval/split.h"
#include "features/features.h"
#include "index/index.h"
#include "run/feature_store.h"

/* How the commands walk and prime a history, for the run floor. */
const ss_run_history_reader *cli_history_reader(void);

#endif
