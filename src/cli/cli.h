/*
 * cli.h - the front end's frame, what every command of src/cmd/ and
 * src/stablesel.c share: die(), error(), warning(), note(), progress,
 * the run floor's messages printed, stdout checked at exit, the
 * repository the user stands in, output files and a model written.  The
 * option tables are parse-options.h's, the options several commands take
 * declared once in shared_options.h, their groups in option_groups.h.
 *
 * Only src/cli/, src/cmd/ and src/stablesel.c include this file; the core
 * never prints or exits.  Exit codes (documented in the README):
 *   0   success
 *   1   the command ran but some input was bad (skipped items, error())
 *   128 die(): a fatal error, nothing written
 *   129 usage error (usage_die(), parse-options.h)
 */
#ifndef SS_CLI_H
#define SS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "models/model.h"
#include "parse-options.h"
#include "run/run.h"
#include "shared_options.h"

#define SS_EXIT_BADINPUT 1
#define SS_EXIT_DIE 128
#define SS_EXIT_USAGE 129

extern int ss_had_error; /* set by error(): the command exits 1 */

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
/* A fact the user may want, not a problem: "note: ..." on stderr. */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);
/* Set the OpenBLAS thread count once, before a command runs: from
 * SS_BLAS_THREADS, else OPENBLAS_NUM_THREADS, else the CPUs this
 * process may use (nn/nn.h ss_nn_blas_threads_choose); warns about a bad
 * SS_BLAS_THREADS.  Returns the count. */
int cli_blas_threads_init(void);

/*
 * Progress on stderr, rate-limited: with --progress, or by default
 * (cli_progress -1) when stderr is a terminal; never with --no-progress.
 * progress_done() ends the line.
 */
extern int cli_progress;
int cli_progress_on(void);
void progress(const char *what, size_t done, size_t total);
void progress_done(void);

/* The run floor's messages (run/run.h) as note() and warning() print
 * them, its progress as progress() shows it. */
const ss_run_report *cli_run_report(void);

/* Flush and close stdout; a write error dies (128), else returns rc.
 * cli_exit() does it and exits with rc. */
int cli_check_stdout(int rc);
__attribute__((noreturn)) void cli_exit(int rc);

/*
 * The repository the user stands in, as git finds it (the current
 * directory or one above it): "." when there is one, said once on stderr
 * ("CMD: no --repo given: using the repository you stand in, PATH"),
 * else NULL.  git's convention for every command that reads a
 * repository; --repo PATH still names another.
 */
const char *cli_repo_here(const char *cmd);

/*
 * Output files (util/atomic.h), opened before the work so that a bad path
 * (empty, a directory, a missing or unwritable directory, a write-protected
 * file) fails at once with a one-line error, not after a training; a die()
 * on the way removes the temporary file.  cli_output_open() dies on error.
 * cli_output_commit() writes the file into place or dies; before that it
 * warns when an output of no rows (nrows 0; what names them, "commits")
 * replaces a non-empty file, and after it when the file replaced had other
 * hard links, which keep the old content (see atomic.h for why the link is
 * broken rather than the file written in place).  nrows SIZE_MAX: the
 * output is never empty.
 */
struct ss_atomic;
struct ss_atomic *cli_output_open(const char *path);
void cli_output_commit(struct ss_atomic *a, size_t nrows, const char *what);

/* Day counts (--min-age, --settle-days) beyond a century are typos. */
#define SS_CLI_MAX_DAYS 36500

/* Write model m to the output out opened for output (-o), and commit
 * it; dies on failure. */
void cli_model_write(struct ss_atomic *out, const ss_model *m, const char *output);
/* "calibration: sigmoid(...)" when m has a Platt map. */
void cli_print_calibration(const ss_model *m);

/* What the built-in model m learnt from, in words for a note ("learnt
 * from other projects (...)"); a static buffer. */
const char *cli_builtin_words(const ss_model *m);

#endif
