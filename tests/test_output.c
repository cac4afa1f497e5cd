/*
 * test_output.c - what "-o PATH" does to PATH (src/util/atomic.c and the
 * commands that use it, issue 14 items 2, 4, 6 and 11):
 *  - a device, a FIFO or /dev/fd/1 is written, never replaced; writing
 *    to a full device fails with ENOSPC;
 *  - a symlink is followed (target replaced, link kept), an existing file
 *    keeps its mode, a hard-linked file is replaced with a warning;
 *  - a bad output path fails before any work, for every command with -o;
 *  - SIGINT, SIGTERM and SIGHUP, and die(), remove the temporary file;
 *  - an output of no commits over a non-empty file is warned about.
 *
 * Devices are made with mknod in the test's directory when we are root,
 * so that a broken stablesel replaces those and never /dev/null itself.
 * The binary is ./stablesel unless SS_BIN names another.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/sysmacros.h>
#include <time.h>

/* n backports and a release note, as "stablesel label" reads them */
static void write_stable_mbox(const char *name, int n)
{
	char *p = test_scratch_path(name);
	FILE *f = fopen(p, "wb");
	int i;

	assert_non_null(f);
	for (i = 0; i <= n; i++) {
		fprintf(f, "From %08x%032x Mon Sep 17 00:00:00 2001\n"
			   "From: A Developer <dev@example.com>\n"
			   "Date: Tue, 14 Feb 2017 16:09:41 -0600\n"
			   "Subject: [PATCH] %s\n\n",
			0x01010101u, i, i < n ? "net: fix a bug" : "version: 21.11.1");
		if (i < n)
			fprintf(f, "[ upstream commit %08x%032x ]\n\nFix.\n\n"
				   "Signed-off-by: A <a@example.com>\n", 0xfefefefeu, i * 7919);
		else
			fputs("version: 21.11.1\n\nSigned-off-by: A <a@example.com>\n", f);
		fputs("---\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n+b\n\n", f);
	}
	assert_int_equal(fclose(f), 0);
	free(p);
}

/* "stablesel ARGS" with stdout to tmp/out and stderr to tmp/err; the exit
 * status, or -1 */
static int run(const char *fmt, ...)
{
	char args[4096], *bin = realpath(test_bin(), NULL);
	va_list ap;
	int rc;

	assert_non_null(bin);
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	rc = test_run("cd '%s' && exec '%s' %s >out 2>err", test_scratch, bin, args);
	free(bin);
	return rc;
}

/* stderr holds exactly one line, containing each of the strings */
static void assert_one_line_error(const char *want1, const char *want2)
{
	char *err = test_scratch_read("err");

	assert_non_null(err);
	if (!strstr(err, want1) || (want2 && !strstr(err, want2)) || test_count_lines(err) != 1)
		print_message("stderr: %s", err);
	assert_non_null(strstr(err, want1));
	if (want2)
		assert_non_null(strstr(err, want2));
	assert_int_equal(test_count_lines(err), 1);
	free(err);
}

/* The labels of s.mbox (5 backports), as a plain run writes them. */
static char *expected_labels(void)
{
	char *want;

	assert_int_equal(run("label --stable s.mbox -o want.tsv"), 0);
	want = test_scratch_read("want.tsv");
	assert_non_null(want);
	assert_int_equal(test_count_lines(want), 6);
	return want;
}

/*
 * A character device named name in test_scratch (mknod when root, so that a
 * stablesel that replaces it does no harm), else the system's one;
 * NULL when neither can be used.
 */
static char *device(const char *name, const char *sys, unsigned major_no, unsigned minor_no)
{
	char *p = test_scratch_path(name);
	struct stat st;
	int fd;

	if (geteuid() == 0 && !mknod(p, S_IFCHR | 0666, makedev(major_no, minor_no)) &&
	    (fd = open(p, O_WRONLY)) >= 0) {
		close(fd);
		return p;
	}
	free(p);
	if (geteuid() != 0 && !stat(sys, &st) && S_ISCHR(st.st_mode))
		return strdup(sys);
	return NULL;
}

static void assert_char_device(const char *path, unsigned major_no, unsigned minor_no)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), major_no);
	assert_int_equal(minor(st.st_rdev), minor_no);
}

/* -o on a null device: written, still a device, exit 0 */
static void test_null_device(void **state)
{
	char *dev = device("null", "/dev/null", 1, 3);

	(void)state;
	if (!dev)
		skip();
	write_stable_mbox("s.mbox", 5);
	assert_int_equal(run("label --stable s.mbox -o '%s'", dev), 0);
	assert_char_device(dev, 1, 3);
	assert_int_equal(test_count_temps(test_scratch, "null"), 0);
	free(dev);
}

/* -o on a full device: ENOSPC, one-line error, exit 128, still a device */
static void test_full_device(void **state)
{
	char *dev = device("full", "/dev/full", 1, 7);

	(void)state;
	if (!dev)
		skip();
	write_stable_mbox("s.mbox", 5);
	assert_int_equal(run("label --stable s.mbox -o '%s'", dev), 128);
	assert_one_line_error(dev, strerror(ENOSPC));
	assert_char_device(dev, 1, 7);
	assert_int_equal(test_count_temps(test_scratch, "full"), 0);
	free(dev);
}

/* -o on a FIFO: the reader gets the output, the FIFO stays a FIFO */
static void test_fifo(void **state)
{
	char *fifo = test_scratch_path("fifo"), *want, got[4096];
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd;

	(void)state;
	write_stable_mbox("s.mbox", 5);
	want = expected_labels();
	assert_int_equal(mkfifo(fifo, 0644), 0);
	/* a reader before the writer, so that the writer's open does not
	 * block; the output (a few hundred bytes) fits the pipe */
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	assert_int_equal(run("label --stable s.mbox -o fifo"), 0);
	while ((r = read(fd, got + n, sizeof(got) - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	got[n] = '\0';
	assert_string_equal(got, want);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(test_count_temps(test_scratch, "fifo"), 0);
	free(want);
	free(fifo);
}

/* -o /dev/fd/1 is standard output (/dev/stdout is the same case; it is
 * not run here since a broken stablesel run as root would replace it) */
static void test_dev_fd(void **state)
{
	char *want, *got;

	(void)state;
	write_stable_mbox("s.mbox", 5);
	want = expected_labels();
	assert_int_equal(run("label --stable s.mbox -o /dev/fd/1"), 0);
	got = test_scratch_read("out");
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

/* A symlink to a 0600 file: the target replaced, mode kept, link kept. */
static void test_symlink_and_mode(void **state)
{
	char *real = test_scratch_path("real.tsv"), *link = test_scratch_path("link.tsv"), *want, *got;
	struct stat st;
	char buf[64];
	ssize_t n;

	(void)state;
	write_stable_mbox("s.mbox", 5);
	want = expected_labels();
	test_scratch_write("real.tsv", "old\n");
	assert_int_equal(chmod(real, 0600), 0);
	assert_int_equal(symlink("real.tsv", link), 0);
	assert_int_equal(run("label --stable s.mbox -o link.tsv"), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	n = readlink(link, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "real.tsv");
	got = test_scratch_read("real.tsv");
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(stat(real, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(test_count_temps(test_scratch, "real.tsv") + test_count_temps(test_scratch, "link.tsv"), 0);
	free(got);
	free(want);
	free(real);
	free(link);
}

/* A file with another hard link is replaced, and stablesel says that the
 * other name keeps the old content (see src/util/atomic.h for why). */
static void test_hard_link(void **state)
{
	char *a = test_scratch_path("a.tsv"), *b = test_scratch_path("b.tsv"), *want, *got, *err;
	struct stat st;

	(void)state;
	write_stable_mbox("s.mbox", 5);
	want = expected_labels();
	test_scratch_write("a.tsv", "old\n");
	assert_int_equal(link(a, b), 0);
	assert_int_equal(run("label --stable s.mbox -o a.tsv"), 0);
	got = test_scratch_read("a.tsv");
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	got = test_scratch_read("b.tsv");
	assert_non_null(got);
	assert_string_equal(got, "old\n");
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	err = test_scratch_read("err");
	assert_non_null(err);
	assert_non_null(strstr(err, "warning: "));
	assert_non_null(strstr(err, "a.tsv"));
	assert_non_null(strstr(err, "hard links"));
	free(err);
	free(got);
	free(want);
	free(a);
	free(b);
}

/*
 * Every command with -o (and eval's --scores) refuses a bad output path
 * before its work: the sources named here do not exist, so an error about
 * them means the work began first.
 */
static void test_bad_path_before_work(void **state)
{
	static const char *const cmds[] = {
		"label --stable nosuch.mbox -o %s",
		"rank nosuch.mbox -o %s",
		"report nosuch.mbox -o %s",
		"train --kind linear nosuch.mbox --labels nosuch.tsv -o %s",
		"eval --split-date 2020-01-01 nosuch.mbox --labels nosuch.tsv -o %s",
		"eval --split-date 2020-01-01 nosuch.mbox --labels nosuch.tsv --scores %s",
	};
	static const char *const paths[] = { "adir", "''", "nodir/out", "afile/out" };
	static const char *const shown[] = { "'adir'", "''", "'nodir/out'", "'afile/out'" };
	size_t c, p;

	(void)state;
	assert_int_equal(test_run("mkdir '%s/adir'", test_scratch), 0);
	test_scratch_write("afile", "x\n");
	for (c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
			char args[512];

			snprintf(args, sizeof(args), cmds[c], paths[p]);
			print_message("%s\n", args);
			assert_int_equal(run("%s", args), 128);
			assert_one_line_error("cannot write ", shown[p]);
		}
	}
	assert_int_equal(test_run("rmdir '%s/adir'", test_scratch), 0);
}

/* A directory we may not write: refused before the work (run as nobody
 * when we are root, who may write anywhere). */
static void test_unwritable_dir(void **state)
{
	char *dir = test_scratch_path("ro"), *cmd, *bin;
	pid_t pid;
	int st;

	(void)state;
	assert_int_equal(mkdir(dir, 0555), 0);
	assert_int_equal(chmod(test_scratch, 0755), 0);
	bin = realpath(test_bin(), NULL);
	assert_non_null(bin);
	assert_true(asprintf(&cmd, "cd '%s' && exec '%s' label --stable nosuch.mbox -o ro/out.tsv "
			     ">out 2>err", test_scratch, bin) > 0);
	test_scratch_write("err", "");
	test_scratch_write("out", "");
	assert_int_equal(test_run("chmod 0666 '%s/out' '%s/err'", test_scratch, test_scratch), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(126);
		if (access(bin, X_OK))
			_exit(125);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(chmod(test_scratch, 0700), 0);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 126 || WEXITSTATUS(st) == 125) {
		print_message("SKIP: cannot run stablesel as an unprivileged user\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 128);
	assert_one_line_error("cannot write 'ro/out.tsv'", strerror(EACCES));
	free(cmd);
	free(bin);
	free(dir);
}

/* A die() after the output was opened leaves no temporary file and the
 * old output whole. */
static void test_die_removes_temp(void **state)
{
	char *got;

	(void)state;
	test_scratch_write("out.tsv", "old\n");
	assert_int_equal(run("label --stable nosuch.mbox -o out.tsv"), 128);
	assert_int_equal(test_count_temps(test_scratch, "out.tsv"), 0);
	got = test_scratch_read("out.tsv");
	assert_non_null(got);
	assert_string_equal(got, "old\n");
	free(got);
}

/*
 * SIGINT, SIGTERM and SIGHUP while the output's temporary file exists:
 * "label" reads its source from a FIFO that the test holds open without
 * writing, so the command waits in the middle of its work, its temporary
 * file made (outputs are opened before the work).  After the signal the
 * process has died by it, no temporary file is left, and the old output
 * is whole.  No timing: the test waits on the FIFO's open.
 */
static void test_signal_removes_temp(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char *fifo = test_scratch_path("in.mbox"), *out = test_scratch_path("out.tsv"), *got;
		char *argv[] = { (char *)test_bin(), "label", "--stable", fifo, "-o", out, NULL };
		struct timespec t0, now;
		pid_t pid;
		int fd, st;

		test_scratch_write("out.tsv", "old\n");
		unlink(fifo);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			/* an ignored signal would stay ignored across exec */
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			if (null >= 0) {
				dup2(null, 1);
				dup2(null, 2);
			}
			execv(argv[0], argv);
			_exit(127);
		}
		/* the writer's open succeeds once the command opened its
		 * source; give up (and fail) if it died or 60 s passed */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while ((fd = open(fifo, O_WRONLY | O_NONBLOCK)) < 0) {
			assert_int_equal(errno, ENXIO);
			assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec > 60) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				fail_msg("stablesel never opened its source");
			}
			usleep(2000);
		}
		assert_int_equal(test_count_temps(test_scratch, "out.tsv"), 1);
		assert_int_equal(kill(pid, sigs[i]), 0);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		close(fd);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), sigs[i]);
		assert_int_equal(test_count_temps(test_scratch, "out.tsv"), 0);
		got = test_scratch_read("out.tsv");
		assert_non_null(got);
		assert_string_equal(got, "old\n");
		free(got);
		free(fifo);
		free(out);
	}
}

/* rank and report warn when an output of no commits replaces a non-empty
 * file, and not when the new output has commits. */
static void test_empty_over_nonempty(void **state)
{
	static const char *const cmds[] = { "rank", "report" };
	size_t c;

	(void)state;
	write_stable_mbox("s.mbox", 5);
	for (c = 0; c < 2; c++) {
		char *err, *got;

		assert_int_equal(run("%s s.mbox -o r.out", cmds[c]), 0);
		assert_int_equal(run("%s s.mbox -o r.out", cmds[c]), 0);
		err = test_scratch_read("err");
		assert_non_null(err);
		assert_null(strstr(err, "no commits"));
		free(err);
		/* every commit is history before --since: nothing listed */
		assert_int_equal(run("%s s.mbox --since 2099-01-01 -o r.out", cmds[c]), 0);
		err = test_scratch_read("err");
		assert_non_null(err);
		if (!strstr(err, "warning: replacing 'r.out'"))
			print_message("%s stderr: %s", cmds[c], err);
		assert_non_null(strstr(err, "warning: replacing 'r.out'"));
		assert_non_null(strstr(err, "no commits"));
		free(err);
		got = test_scratch_read("r.out");
		assert_non_null(got);
		free(got);
		assert_int_equal(test_count_temps(test_scratch, "r.out"), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_device, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_full_device, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_fifo, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_dev_fd, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_symlink_and_mode, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_hard_link, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_bad_path_before_work, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_unwritable_dir, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_die_removes_temp, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_signal_removes_temp, test_scratch_setup, test_scratch_teardown),
		cmocka_unit_test_setup_teardown(test_empty_over_nonempty, test_scratch_setup, test_scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
