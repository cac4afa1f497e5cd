/*
 * shared_options.c - the options several commands take, declared once:
 * name, argument, help (shared_options.h says how a table names one).
 * The value each is NULL here: each command's table gives its own.
 */
#include <stddef.h>

#include "shared_options.h"

const struct cli_option cli_shared_repo =
	CLI_STRING(0, "repo", NULL, "PATH", "the git repository (default: the one you stand in)");
const struct cli_option cli_shared_db = CLI_STRING(0, "db", NULL, "FILE",
	"the project index (default: the one 'stablesel index' keeps in the repository, "
	"<gitdir>/stablesel/index.db)");
const struct cli_option cli_shared_releases =
	CLI_STRING(0, "releases", NULL, "FILE", "the releases, as 'tag sha date' lines");
const struct cli_option cli_shared_release_tags = CLI_STRING(0, "release-tags", NULL, "GLOB",
	"with --repo: the releases are the repository's tags matching GLOB");
const struct cli_option cli_shared_as_of = CLI_DATE("as-of", NULL,
	"read everything as it was known at DATE (its start, UTC; or YYYY-MM-DDTHH:MM): the "
	"commits committed, the backports, releases and review decisions of the index by "
	"then, the branches at their tips of then");

/* lists: the size of the command's array is the limit */
const struct cli_option cli_shared_stable = {
	.type = CLI_OPT_STRLIST, .long_name = "stable", .argh = "SOURCE", .site = CLI_SITE,
	.help = "the stable tree: a repository with its branches, or an mbox of its commits",
};
const struct cli_option cli_shared_branches = CLI_STRING(0, "branches", NULL, "GLOB",
	"the stable branches, the names GLOB matches");
const struct cli_option cli_shared_labels = CLI_STRING(0, "labels", NULL, "FILE",
	"the labels TSV (\"stablesel label\" writes it): which commits reached stable");
const struct cli_option cli_shared_label_column = CLI_STRING(0, "label-column", NULL, "NAME",
	"the column of --labels that holds the label");
const struct cli_option cli_shared_keep_copies = CLI_FLAG(0, "keep-copies", NULL,
	"every copy of a patch (rebased, cherry-picked, re-sent) counts, not one per patch");

const struct cli_option cli_shared_onto_repo = CLI_STRING(0, "onto-repo", NULL, "PATH",
	"the repository holding the stable branches and their mainline");
const struct cli_option cli_shared_onto = {
	.type = CLI_OPT_STRLIST, .long_name = "onto", .argh = "BRANCH", .site = CLI_SITE,
	.help = "the stable branch: local, remote-tracking (origin/22.11), tag or id",
};
const struct cli_option cli_shared_onto_upstream = CLI_STRING(0, "onto-upstream", NULL, "REF",
	"the mainline the branches fork from; their own commits are those it lacks "
	"(default: the mainline the project index found, else HEAD of --onto-repo)");
const struct cli_option cli_shared_decision_branch = {
	.type = CLI_OPT_STRLIST, .long_name = "branch", .argh = "BRANCH", .site = CLI_SITE,
	.help = "the stable branch the decisions are for (default: review's --onto branches, "
		"else every live stable branch of the index)",
};

const struct cli_option cli_shared_model = CLI_STRING(0, "model", NULL, "MODEL",
	"the model file \"stablesel train\" wrote (default: rank and report train one for "
	"the project when its stable tree is known, explain uses the one rank kept; else "
	"the built-in one)");
const struct cli_option cli_shared_project_model = CLI_STRING(0, "project-model", NULL, "FILE",
	"the project model's file (default: <gitdir>/stablesel/project.model): rank, "
	"report and review train it there without --model, explain reads it");
const struct cli_option cli_shared_threads = CLI_INT("threads", NULL, "N", 1, 64, "worker threads");
const struct cli_option cli_shared_cost = CLI_REAL("C", NULL, "F", 1e-6, 1e6,
	"the linear cost (default: chosen on validation)");

/* what the command writes: the help (and the values of --format) each
 * command's, CLI_USE_HELP */
const struct cli_option cli_shared_output = CLI_STRING('o', "output", NULL, "FILE", NULL);
const struct cli_option cli_shared_format = CLI_CHOICE("format", NULL, NULL, NULL, NULL);
const struct cli_option cli_shared_title = CLI_STRING(0, "title", NULL, "TEXT", NULL);
