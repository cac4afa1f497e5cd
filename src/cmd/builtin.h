/*
 * builtin.h - the subcommands (one src/cmd/<name>.c each, the function
 * src/stablesel.c's table calls), as git's builtin.h declares its
 * cmd_*() functions.  The front end's frame (die(), the option parser,
 * the shared options and groups, the ranking rank, report and review
 * share, the review decisions' helpers) is src/cli/'s.
 */
#ifndef SS_CMD_BUILTIN_H
#define SS_CMD_BUILTIN_H

#include "cli/cli.h"
#include "cli/option_groups.h"
#include "cli/rank_report.h"

/* Subcommands. */
int cmd_log(int argc, const char **argv, const struct cli_context *ctx);
int cmd_label(int argc, const char **argv, const struct cli_context *ctx);
int cmd_train(int argc, const char **argv, const struct cli_context *ctx);
int cmd_corpus(int argc, const char **argv, const struct cli_context *ctx);
int cmd_eval(int argc, const char **argv, const struct cli_context *ctx);
int cmd_rank(int argc, const char **argv, const struct cli_context *ctx);
int cmd_explain(int argc, const char **argv, const struct cli_context *ctx);
int cmd_origin(int argc, const char **argv, const struct cli_context *ctx);
int cmd_index(int argc, const char **argv, const struct cli_context *ctx);
int cmd_where(int argc, const char **argv, const struct cli_context *ctx);
int cmd_mark(int argc, const char **argv, const struct cli_context *ctx);
int cmd_status(int argc, const char **argv, const struct cli_context *ctx);
int cmd_review(int argc, const char **argv, const struct cli_context *ctx);
int cmd_check(int argc, const char **argv, const struct cli_context *ctx);
int cmd_report(int argc, const char **argv, const struct cli_context *ctx);

#endif
