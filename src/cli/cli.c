/*
 * cli.c - how the commands report: die() (exit 128), error() (exit 1 at
 * the end), warning(), progress on stderr (--progress/--no-progress) and
 * cli_exit(), which checks that stdout was written, output files
 * written into place.  usage_die() is in parse-options.c, as it prints
 * the usage of the current option table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "util/atomic.h"
#include "nn/nn.h"
#include "run/project_choose.h"
#include "source/git.h"
#include "util/error.h"

int ss_had_error;
int cli_progress = -1;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	progress_done();
	fprintf(stderr, "%s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
	va_end(ap);
	exit(SS_EXIT_DIE);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	ss_had_error = 1;
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

const char *cli_repo_here(const char *cmd)
{
	static int said;
	char *gitdir = NULL, *top;
	size_t len;

	if (ss_git_locate(&gitdir, NULL, ".")) {
		ss_error_clear();
		return NULL;
	}
	/* its work tree, for a repository with one: ".../r/.git/" is "r" */
	len = strlen(gitdir);
	while (len > 1 && gitdir[len - 1] == '/')
		gitdir[--len] = '\0';
	if (len > 5 && !strcmp(gitdir + len - 5, "/.git"))
		gitdir[len - 5] = '\0';
	top = realpath(".", NULL);
	if (!said++)
		note("%s: no --repo given: using the repository you stand in, %s%s%s%s", cmd,
		     top ? top : ".", top && strcmp(top, gitdir) ? " (git data in " : "",
		     top && strcmp(top, gitdir) ? gitdir : "", top && strcmp(top, gitdir) ? ")" : "");
	free(top);
	free(gitdir);
	return ".";
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("note: ", fmt, ap);
	va_end(ap);
}

static void run_say(ss_run_level level, const char *msg, void *ud)
{
	(void)ud;
	if (level == SS_RUN_WARNING)
		warning("%s", msg);
	else if (level == SS_RUN_ERROR)
		error("%s", msg);
	else
		note("%s", msg);   /* SS_RUN_NOTE, SS_RUN_INFO */
}

static void run_progress(const char *what, size_t done, size_t total, void *ud)
{
	(void)ud;
	progress(what, done, total);
}

static void run_progress_done(void *ud)
{
	(void)ud;
	progress_done();
}

const ss_run_report *cli_run_report(void)
{
	static const ss_run_report rp = { run_say, run_progress, run_progress_done, NULL };

	return &rp;
}

int cli_blas_threads_init(void)
{
	const char *ours = getenv("SS_BLAS_THREADS");
	int n = ss_nn_blas_threads_choose(ours, getenv("OPENBLAS_NUM_THREADS"), ss_nn_cpus());

	if (n < 0) {
		warning("SS_BLAS_THREADS='%s' is not a number from 1 to %d; ignored", ours,
			SS_NN_MAX_BLAS_THREADS);
		n = ss_nn_blas_threads_choose(NULL, getenv("OPENBLAS_NUM_THREADS"), ss_nn_cpus());
	}
	ss_nn_set_blas_threads(n);
	return n;
}

static int progress_shown;

int cli_progress_on(void)
{
	if (cli_progress < 0)
		cli_progress = isatty(2);
	return cli_progress;
}

void progress(const char *what, size_t done, size_t total)
{
	static struct timespec last;
	struct timespec now;

	if (!cli_progress_on())
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (progress_shown && (now.tv_sec - last.tv_sec) * 1000 +
	    (now.tv_nsec - last.tv_nsec) / 1000000 < 200)
		return;
	last = now;
	/* a terminal's line is cleared to its end: two steps report in turn
	 * (the source read, the ranking), and a "\r" alone over the longer
	 * one left "dpdk.git: 328ts: 267" */
	fputs(isatty(2) ? "\r\033[K" : "\r", stderr);
	if (total)
		fprintf(stderr, "%s: %zu/%zu (%d%%)", what, done, total,
			(int)(100.0 * (double)done / (double)total));
	else
		fprintf(stderr, "%s: %zu", what, done);
	progress_shown = 1;
}

void progress_done(void)
{
	if (progress_shown) {
		/* a terminal line is wiped; a log file keeps the last count */
		fputs(isatty(2) ? "\r\033[K" : "\n", stderr);
		progress_shown = 0;
	}
}

/*
 * Like git's run_builtin(): output that could not be written is an error
 * even when every printf "succeeded" into the buffer (stdout on a full
 * disk, /dev/full).
 */
int cli_check_stdout(int rc)
{
	int err = 0, bad;
	char first[1100];
	size_t missing = ss_git_missing_objects(first, sizeof(first));

	/* once a run, not once a commit: the commits are still read */
	if (missing)
		warning("%zu changed files could not be diffed, their blobs missing from the "
			"object store (a partial clone?): each is in its commit as unreadable "
			"(missing object) (first: %s)", missing, first);

	/* errno only says why when fflush or fclose failed here; an earlier
	 * write's errno is long overwritten */
	if (fflush(stdout))
		err = errno;
	bad = ferror(stdout);
	if (fclose(stdout) && !err)
		err = errno;
	if (err || bad) {
		/* not die(): it flushes stdout, which is closed */
		progress_done();
		if (err)
			fprintf(stderr, "fatal: write error on stdout: %s\n", strerror(err));
		else
			fprintf(stderr, "fatal: write error on stdout\n");
		exit(SS_EXIT_DIE);
	}
	return rc;
}

void cli_exit(int rc)
{
	progress_done();
	exit(cli_check_stdout(rc));
}

ss_atomic *cli_output_open(const char *path)
{
	ss_atomic *a;

	if (ss_atomic_open(&a, path))
		die("%s", ss_error_last());
	return a;
}

void cli_output_commit(ss_atomic *a, size_t nrows, const char *what)
{
	ss_atomic_info info;
	char *target;

	ss_atomic_get_info(&info, a);
	if (!nrows && info.replaces && info.size > 0)
		warning("replacing '%s' (%lld bytes) with an output of no %s", info.target,
			info.size, what);
	target = info.replaces && info.links > 1 ? strdup(info.target) : NULL;
	if (ss_atomic_commit(a))
		die("%s", ss_error_last());
	if (target)
		warning("'%s' had %lu hard links: replaced by a new file, its other names "
			"keep the old content", target, info.links);
	free(target);
}

const char *cli_builtin_words(const ss_model *m)
{
	static char buf[1400];

	return ss_run_builtin_words(buf, sizeof(buf), m);
}

void cli_model_write(struct ss_atomic *out, const ss_model *m, const char *output)
{
	if (ss_model_write(m, ss_atomic_file(out), output)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, SIZE_MAX, "weights");
}

void cli_print_calibration(const ss_model *m)
{
	if (ss_model_calibration(m)->method == SS_CALIB_PLATT)
		printf("calibration: sigmoid(%.4f logit(s) %+.4f), fitted on the validation commits\n",
		       ss_model_calibration(m)->a, ss_model_calibration(m)->b);
}
