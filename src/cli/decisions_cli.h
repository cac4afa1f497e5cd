/*
 * decisions_cli.h - what the commands of the maintainer's review share
 * (mark, status, review; the hook of rank and report): opening the index
 * to read or record decisions, the branches decided for, naming commits,
 * and the decisions applied to a ranking (docs/review.md).
 */
#ifndef SS_CLI_DECISIONS_CLI_H
#define SS_CLI_DECISIONS_CLI_H

#include <stdint.h>

#include "cli.h"
#include "option_groups.h"
#include "util/strbuf.h"
#include "index/index_decisions.h"
#include "util/strmap.h"

/* mark's and status's "Index" options: --db FILE, --repo PATH. */
#define CLI_DECISIONS_INDEX(db, repo) \
	CLI_GROUP("Index"), \
	CLI_OPT_DB(db), \
	CLI_OPT_REPO(repo)

/*
 * The index of --db FILE, else of the repository repo (default "."),
 * opened to read or write (writing migrates an older schema); given a
 * repository, it must be the index's.  *path its path (malloc'd).  Dies.
 * The repository is read through run's handle (NULL: one opened for the
 * call).
 */
ss_index *cli_decisions_open(const char *db, const char *repo, int write, char **path,
			     ss_run *run);

/* Die with the message of run/decisions_open.h's rc: a name no branch of
 * the index has (SS_ENOTFOUND, SS_EINVALID) is the user's mistake (exit
 * 129, usage_die()), anything else die(). */
__attribute__((noreturn)) void cli_decisions_fail(int rc);

/*
 * The branches decided for: the n names of --branch when n > 0, else the
 * index's live stable branches (run/branches.h: ss_run_index_branches()),
 * each as the decisions name it (run/decisions_open.h:
 * ss_run_decision_identity(); a branch the index does not know is a
 * usage error naming the known ones and the nearest), each once.
 * Returns the count, names malloc'd into out (at most max).  Dies when
 * there is none.
 */
size_t cli_decision_branches(char **out, size_t max, ss_index *ix, const char *path,
			     const char *repo, const char *const *named, size_t n);

/* The full id of the commit arg names: in the index, else in repo (may
 * be NULL).  error() and -1 when neither knows it. */
int cli_decision_commit(char out[41], ss_index *ix, const char *repo, const char *arg);

/* "2026-12-04" of t into buf[11]. */
const char *cli_decision_date(char buf[16], int64_t t);
/* "2026-12-04 10:31:07" (UTC) of t into buf. */
const char *cli_decision_time(char buf[32], int64_t t);

/* s as a terminal may show it (util/strbuf.h's ss_strbuf_add_escaped:
 * control characters escaped) in sb, emptied first; sb->buf is returned,
 * valid until sb changes.  Dies when out of memory. */
const char *cli_escaped(ss_strbuf *sb, const char *s);

/* "decision" or "decisions" as n says: "1 decision recorded". */
const char *cli_decisions_word(size_t n);

#endif
