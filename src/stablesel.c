/*
 * stablesel.c - the command table, global options, die/error/warning.
 *
 * Like git's git.c: "stablesel <command> [options] [args]" looks the
 * command up in one table; each command lives in src/cmd/<name>.c, parses
 * its own options and calls the core.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <gmime/gmime.h>

#include "cli.h"

const char *ss_progname = "stablesel";
int ss_had_error;

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
	const char *usage;
};

static const struct command commands[] = {
	{ "log", cmd_log, "print parsed commits as JSON lines",
	  "stablesel log [--repo PATH] [--rev REV...] [--mask-stable-tags] [--no-diff] [SOURCE...]" },
	{ "label", cmd_label, "list upstream commits a stable tree carries",
	  "stablesel label --stable SOURCE [--branches GLOB] [--upstream-pattern REGEX] [-o FILE]" },
	{ "train", cmd_train, "learn from history which commits reach stable", "stablesel train --model keyword|linear|mlp SOURCE... (--labels FILE | --stable SOURCE) [--mask-stable-tags] [--settle-days N] -o MODEL" },
	{ "eval", cmd_eval, "train and score models side by side on a time split", "stablesel eval (--split-date DATE SOURCE... | --train SOURCE --test SOURCE) (--labels FILE | --stable SOURCE) [--models keyword,tag,linear,mlp] [--format text|json]" },
	{ "rank", cmd_rank, "rank commits by how likely they belong in stable", "stablesel rank [--model MODEL] SOURCE... [--top N] [--since DATE] [--stable SOURCE] [--format text|tsv|csv|json|mbox]" },
	{ "explain", cmd_explain, "show the features behind a commit's score", "stablesel explain [--model MODEL] (--repo PATH | SOURCE...) [--top N] COMMIT..." },
	{ "report", cmd_report, "write a ranking as one self-contained HTML page", "stablesel report [--model MODEL] SOURCE... [--labels FILE] [--stable SOURCE] -o report.html" },
	{ "check", cmd_check, "does each commit apply to a stable branch, and is its bug there",
	  "stablesel check --onto-repo PATH [--onto REV] [--prereqs] [--repo PATH] [SOURCE...]" },
	{ "origin", cmd_origin, "which commit a fix fixes, and whether the bug was ever released", "stablesel origin [--repo PATH | SOURCE...] [--history SOURCE] [--releases FILE] [--release-tags GLOB] [--no-blame] COMMIT..." },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

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

void usage_die(const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vreport("error: ", fmt, ap);
		va_end(ap);
	}
	fprintf(stderr, "usage: %s\n", usage);
	exit(SS_EXIT_USAGE);
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

static int progress_shown;

void progress(const char *what, size_t done, size_t total)
{
	static struct timespec last;
	struct timespec now;

	if (!isatty(2))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (progress_shown && (now.tv_sec - last.tv_sec) * 1000 +
	    (now.tv_nsec - last.tv_nsec) / 1000000 < 200)
		return;
	last = now;
	if (total)
		fprintf(stderr, "\r%s: %zu/%zu (%d%%)", what, done, total,
			(int)(100.0 * (double)done / (double)total));
	else
		fprintf(stderr, "\r%s: %zu", what, done);
	progress_shown = 1;
}

void progress_done(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = 0;
	}
}

static void list_commands(FILE *f)
{
	size_t i;

	fprintf(f, "usage: stablesel [--version] [help] <command> [options] [args]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "   %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'stablesel help <command>' shows a command's usage.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

const char *cli_usage_of(const char *name)
{
	const struct command *c = find_command(name);

	return c ? c->usage : "stablesel <command>";
}

/*
 * Like git's run_builtin(): output that could not be written is an error
 * even when every printf "succeeded" into the buffer (stdout on a full
 * disk, /dev/full).  Returns rc, or dies (128).
 */
static int check_stdout(int rc)
{
	int err = 0, bad;

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

int main(int argc, const char **argv)
{
	const struct command *cmd;
	int rc;

	if (argc < 2) {
		list_commands(stderr);
		return SS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		int maj, min, rev;

		git_libgit2_version(&maj, &min, &rev);
		printf("stablesel %s (libgit2 %d.%d.%d, gmime %u.%u.%u)\n", SS_VERSION,
		       maj, min, rev, gmime_major_version, gmime_minor_version,
		       gmime_micro_version);
		return check_stdout(0);
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc > 2) {
			cmd = find_command(argv[2]);
			if (!cmd)
				usage_die("stablesel help <command>", "unknown command '%s'", argv[2]);
			printf("usage: %s\n\n%s\n", cmd->usage, cmd->summary);
			return check_stdout(0);
		}
		list_commands(stdout);
		return check_stdout(0);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "error: '%s' is not a stablesel command\n", argv[1]);
		list_commands(stderr);
		return SS_EXIT_USAGE;
	}
	git_libgit2_init();
	g_mime_init();
	/* libgit2 ignores SIGPIPE; like git, end quietly when a pager or
	 * "| head" stops reading */
	signal(SIGPIPE, SIG_DFL);
	rc = cmd->fn(argc - 1, argv + 1);
	progress_done();
	g_mime_shutdown();
	git_libgit2_shutdown();
	if (!rc && ss_had_error)
		rc = SS_EXIT_BADINPUT;
	return check_stdout(rc);
}
