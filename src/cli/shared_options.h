/*
 * shared_options.h - the options several commands take, each declared
 * once (shared_options.c: name, argument, help, range), as git's
 * parse-options declares OPT__VERBOSE and its kind once for every
 * builtin.  A command's table names one with its own variable
 * (CLI_OPT_DB(&db)); the parser, -h, the man page and the completion see
 * the one declaration with that variable (parse-options.h, CLI_OPT_USE).
 * What a command does without one goes in its group heading or usage
 * text, or, for the few whose default is each command's, in
 * CLI_USE_DEFAULT.  An option a command takes once is a list of one there
 * (the parser refuses a second).
 *
 * A long name two commands take is declared here, never twice:
 * tests/test_shared_options.c reads every command's table and fails on
 * a long name that two declarations give.
 */
#ifndef SS_CMD_SHARED_OPTIONS_H
#define SS_CMD_SHARED_OPTIONS_H

#include "parse-options.h"

/* sources, the index, the history */
extern const struct cli_option cli_shared_repo, cli_shared_db, cli_shared_releases,
	cli_shared_release_tags, cli_shared_as_of;
/* the stable tree and its labels */
extern const struct cli_option cli_shared_stable, cli_shared_branches, cli_shared_labels,
	cli_shared_label_column, cli_shared_keep_copies;
/* the stable branches a ranking or a check is for, the decisions' branch */
extern const struct cli_option cli_shared_onto_repo, cli_shared_onto, cli_shared_onto_upstream,
	cli_shared_decision_branch;
/* models and training */
extern const struct cli_option cli_shared_model, cli_shared_project_model, cli_shared_threads,
	cli_shared_cost;
/* what a command writes: name and argument shared, the help each command's */
extern const struct cli_option cli_shared_output, cli_shared_format, cli_shared_title;

/* --repo PATH: every command that reads a repository, or its index;
 * CLI_OPT_REPO_CB where the source options need it set twice */
#define CLI_OPT_REPO(v) CLI_USE(&cli_shared_repo, (v))
#define CLI_OPT_REPO_CB(fn, data) CLI_USE_CB(&cli_shared_repo, (fn), (data))
#define CLI_OPT_DB(v) CLI_USE(&cli_shared_db, (v))
#define CLI_OPT_RELEASES(v) CLI_USE(&cli_shared_releases, (v))
#define CLI_OPT_RELEASE_TAGS(v) CLI_USE(&cli_shared_release_tags, (v))
#define CLI_OPT_AS_OF(v) CLI_USE(&cli_shared_as_of, (v))

#define CLI_OPT_STABLE(arr, n) CLI_USE_LIST(&cli_shared_stable, arr, (n))
/* --branches GLOB (label, index), with the command's default */
#define CLI_OPT_BRANCHES(v, dflt) CLI_USE_DEFAULT(&cli_shared_branches, (v), (dflt))
#define CLI_OPT_LABELS(v) CLI_USE(&cli_shared_labels, (v))
#define CLI_OPT_LABEL_COLUMN(v) CLI_USE(&cli_shared_label_column, (v))
#define CLI_OPT_KEEP_COPIES(v) CLI_USE(&cli_shared_keep_copies, (v))

#define CLI_OPT_ONTO_REPO(v) CLI_USE(&cli_shared_onto_repo, (v))
#define CLI_OPT_ONTO(arr, n) CLI_USE_LIST(&cli_shared_onto, arr, (n))
#define CLI_OPT_ONTO_UPSTREAM(v) CLI_USE(&cli_shared_onto_upstream, (v))
/* --branch BRANCH of the commands that keep decisions (mark, status,
 * review): a list */
#define CLI_OPT_DECISION_BRANCH(arr, n) CLI_USE_LIST(&cli_shared_decision_branch, arr, (n))

/* --model FILE of rank, report, review and explain */
#define CLI_MODEL(v) CLI_USE(&cli_shared_model, (v))
#define CLI_OPT_PROJECT_MODEL(v) CLI_USE(&cli_shared_project_model, (v))
#define CLI_OPT_THREADS(v) CLI_USE(&cli_shared_threads, (v))
/* -C F: the linear model's cost */
#define CLI_OPT_COST(v) CLI_USE(&cli_shared_cost, (v))

/* -o FILE, --output FILE: every command that writes a file names it so,
 * h saying what it writes */
#define CLI_OUTPUT(v, h) CLI_USE_HELP(&cli_shared_output, (v), (h))
/* --format A|B: the values (choices, argh "A|B") and the help the command's */
#define CLI_OPT_FORMAT(v, a, choices, h) CLI_USE_CHOICE(&cli_shared_format, (v), (a), (choices), (h))
#define CLI_OPT_TITLE(v, h) CLI_USE_HELP(&cli_shared_title, (v), (h))

#endif
