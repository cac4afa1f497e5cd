/*
 * test_cli.c - the stablesel binary: command table, help, exit codes,
 * one-line errors, no half-written outputs, the labeler on a git stable
 * branch, log on this project's own repository, the BLAS thread
 * count's environment variable, and errors that say what to do (an
 * unknown option's did-you-mean in two lines, "help help", the
 * repository you stand in as --repo's default, the known branches of an
 * unknown --onto).
 */
#include "testutil.h"

static void test_help_version_usage(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(test_cli("--version"), 0);
	s = test_scratch_read("out");
	assert_non_null(strstr(s, "stablesel "));
	assert_non_null(strstr(s, "libgit2 1."));
	free(s);
	assert_int_equal(test_cli("help label"), 0);
	s = test_scratch_read("out");
	assert_non_null(strstr(s, "usage: stablesel label --stable SOURCE"));
	free(s);
	/* help is not a usage error: -h and --help exit 0 like "help label" */
	assert_int_equal(test_cli("label --help"), 0);
	assert_int_equal(test_cli("label -h"), 0);
	assert_int_equal(test_cli("nosuchcommand"), 129);
	assert_int_equal(test_cli("log --bogus x"), 129);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, "error: unknown option '--bogus'"));
	free(s);
	assert_int_equal(test_cli("label"), 129);
	assert_int_equal(test_cli("%s", ""), 129);
}

static void test_bad_input(void **state)
{
	char cmd[1024], *s;

	(void)state;
	/* a missing file: one line, exit 128 */
	assert_int_equal(test_cli("log /nonexistent/x.mbox"), 128);
	s = test_scratch_read("err");
	assert_string_equal(s, "fatal: cannot open '/nonexistent/x.mbox': No such file or directory\n");
	free(s);

	/* a missing repository, a bad revision */
	assert_int_equal(test_cli("log --repo /nonexistent/repo"), 128);
	s = test_scratch_read("err");
	assert_int_equal((int)test_count_lines(s), 1);
	assert_non_null(strstr(s, "/nonexistent/repo"));
	free(s);
	snprintf(cmd, sizeof(cmd), "log --repo . --rev no-such-rev-xyz");
	assert_int_equal(test_cli("%s", cmd), 128);
	s = test_scratch_read("err");
	assert_int_equal((int)test_count_lines(s), 1);
	assert_non_null(strstr(s, "no-such-rev-xyz"));
	free(s);

	/* rank, explain and report take the releases train saw: a missing
	 * file is named, --release-tags without a repository is a usage
	 * error */
	assert_int_equal(test_cli("rank --releases /nonexistent/rel.tsv --repo ."), 128);
	s = test_scratch_read("err");
	assert_int_equal((int)test_count_lines(s), 1);
	assert_non_null(strstr(s, "/nonexistent/rel.tsv"));
	free(s);
	assert_int_equal(test_cli("explain --release-tags 'v*' /dev/null 1234abcd"), 129);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, "--release-tags needs --repo"));
	free(s);

	/* a label run that fails leaves no output file behind */
	snprintf(cmd, sizeof(cmd), "label --stable /nonexistent/s.mbox -o '%s/labels.tsv'", test_scratch);
	assert_int_equal(test_cli("%s", cmd), 128);
	assert_int_equal(test_run("ls '%s' | grep -q labels", test_scratch), 1);

	/* a truncated zstd mbox: what was read is printed, one error, exit 128 */
	assert_int_equal(test_run("printf 'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\\n"
				  "From: A <a@b>\\nDate: Mon, 1 Jan 2024 10:00:00 +0000\\nSubject: [PATCH] x\\n\\n"
				  "body\\n-- \\n2.34.1\\n' | zstd -q > '%s/m.zst' && head -c 40 '%s/m.zst' > '%s/cut.zst'",
				  test_scratch, test_scratch, test_scratch), 0);
	snprintf(cmd, sizeof(cmd), "log '%s/m.zst'", test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	s = test_scratch_read("out");
	assert_int_equal((int)test_count_lines(s), 1);
	free(s);
	snprintf(cmd, sizeof(cmd), "log '%s/cut.zst'", test_scratch);
	assert_int_equal(test_cli("%s", cmd), 128);
	s = test_scratch_read("err");
	assert_int_equal((int)test_count_lines(s), 1);
	assert_non_null(strstr(s, "cut.zst' is"));
	free(s);

	/* a malformed message is reported, skipped, and the exit code is 1 */
	assert_int_equal(test_run("printf 'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\\n"
				  "From: A <a@b>\\nSubject: [PATCH] no date\\n\\nbody\\n\\n"
				  "From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\\n"
				  "From: A <a@b>\\nDate: Mon, 1 Jan 2024 10:00:00 +0000\\nSubject: [PATCH] ok\\n\\n"
				  "body\\n-- \\n2.34.1\\n' > '%s/bad.mbox'", test_scratch), 0);
	snprintf(cmd, sizeof(cmd), "log - < '%s/bad.mbox'", test_scratch);
	assert_int_equal(test_cli("%s", cmd), 1);
	s = test_scratch_read("err");
	assert_int_equal((int)test_count_lines(s), 1);
	assert_non_null(strstr(s, "message 1 skipped: no author date"));
	free(s);
	s = test_scratch_read("out");
	assert_int_equal((int)test_count_lines(s), 1);
	assert_non_null(strstr(s, "2222222222222222222222222222222222222222"));
	free(s);

	/* a non-UTF-8 header and random bytes do not stop the run */
	assert_int_equal(test_run("printf 'From 3333333333333333333333333333333333333333 Mon Sep 17 00:00:00 2001\\n"
				  "From: J\\366rg <j@b>\\nDate: Mon, 1 Jan 2024 10:00:00 +0000\\nSubject: [PATCH] caf\\351\\n\\n"
				  "body\\n' > '%s/latin.mbox' && head -c 100000 /dev/urandom >> '%s/latin.mbox' && "
				  "printf '\\n-- \\n2.34.1\\n' >> '%s/latin.mbox'",
				  test_scratch, test_scratch, test_scratch), 0);
	snprintf(cmd, sizeof(cmd), "log '%s/latin.mbox'", test_scratch);
	assert_true(test_cli("%s", cmd) <= 1);
	s = test_scratch_read("out");
	assert_true((int)test_count_lines(s) >= 1);
	assert_non_null(strstr(s, "3333333333333333333333333333333333333333"));
	free(s);
}

/*
 * Every numeric and date option goes through one parser per kind: a value
 * out of range, not finite, not a calendar day, with trailing garbage or
 * overflowing is a usage error (129) naming the option.
 */
static void test_option_ranges(void **state)
{
	static const struct {
		const char *cmd, *opt, *val;
	} bad[] = {
		{ "rank", "--min-score", "2" },
		{ "rank", "--min-score", "nan" },
		{ "rank", "--min-score", "-1" },
		{ "rank", "--min-score", "0.5x" },
		{ "rank", "--min-score", "" },
		{ "rank", "--threshold", "1.5" },
		{ "rank", "--threshold", "inf" },
		{ "rank", "--since", "2019-02-30" },
		{ "rank", "--since", "2019-13-01" },
		{ "rank", "--since", "2019-2-1" },
		{ "rank", "--since", "2019-02-01x" },
		{ "rank", "--now", "2021-02-29" },
		{ "rank", "--now", "1969-12-31" },
		{ "rank", "--min-age", "-5" },
		{ "rank", "--min-age", "nan" },
		{ "rank", "--min-age", "1e400" },
		{ "rank", "--top", "0" },
		{ "rank", "--top", "-1" },
		{ "rank", "--top", "+5" },
		{ "rank", "--top", " 5" },
		{ "rank", "--top", "5x" },
		{ "rank", "--top", "1e3" },
		{ "rank", "--top", "99999999999999999999999" },
		{ "rank", "--budget", "0" },
		{ "rank", "--budget", "-1" },
		{ "rank", "--reasons", "17" },
		{ "rank", "--precedents", "9" },
		{ "report", "--top", "0" },
		{ "report", "--min-score", "1.01" },
		{ "report", "--diffs", "-1" },
		{ "report", "--diff-lines", "x" },
		{ "explain", "--top-features", "0" },
		{ "explain", "--top-features", "-3" },
		{ "train", "--settle-days", "-1" },
		{ "train", "--before", "2019-02-30" },
		{ "eval", "--settle-days", "99999999" },
		{ "eval", "--split-date", "2023-02-29" },
		{ "log", "--max-lines", "-1" },
		{ "log", "--max-lines", "18446744073709551616" },
	};
	char cmd[600], want[200], *s;
	size_t i;

	(void)state;
	assert_int_equal(test_run("printf 'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\\n"
				  "From: A <a@b>\\nDate: Mon, 1 Jan 2024 10:00:00 +0000\\nSubject: [PATCH] x\\n\\n"
				  "body\\n-- \\n2.39.5\\n\\n' > '%s/one.mbox'", test_scratch), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s %s '%s' '%s/one.mbox' 1111111111", bad[i].cmd, bad[i].opt,
			 bad[i].val, test_scratch);
		print_message("%s\n", cmd);
		assert_int_equal(test_cli("%s", cmd), 129);
		s = test_scratch_read("err");
		snprintf(want, sizeof(want), "error: option '%s' expects", bad[i].opt);
		assert_non_null(strstr(s, want));
		free(s);
	}
	/* the edges are fine: a leap day, a probability of 0 or 1, no age */
	snprintf(cmd, sizeof(cmd), "rank --top 1 --since 2020-02-29 --now 2024-02-29 --min-score 1 "
		 "--threshold 0 --min-age 0 --reasons 16 --precedents 8 --budget 1 '%s/one.mbox'", test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	snprintf(cmd, sizeof(cmd), "log --max-lines 0 '%s/one.mbox'", test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	s = test_scratch_read("out");
	assert_int_equal((int)test_count_lines(s), 1);
	free(s);
}

/* Output that cannot be written is an error, not a silent exit 0. */
static void test_stdout_write_error(void **state)
{
	static const char *const args[] = { "--version", "help", "help rank", "log '%s/w.mbox'" };
	char arg[300], cmd[700], *s;
	size_t i;

	(void)state;
	if (access("/dev/full", W_OK)) {
		print_message("SKIP: no /dev/full\n");
		return;
	}
	assert_int_equal(test_run("printf 'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\\n"
				  "From: A <a@b>\\nDate: Mon, 1 Jan 2024 10:00:00 +0000\\nSubject: [PATCH] x\\n\\n"
				  "body\\n-- \\n2.39.5\\n\\n' > '%s/w.mbox'", test_scratch), 0);
	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		snprintf(arg, sizeof(arg), args[i], test_scratch);
		snprintf(cmd, sizeof(cmd), "./stablesel %s >/dev/full 2>'%s/err'", arg, test_scratch);
		print_message("%s\n", cmd);
		assert_int_equal(test_run("%s", cmd), 128);
		s = test_scratch_read("err");
		assert_non_null(strstr(s, "write error on stdout"));
		free(s);
	}
}

static void test_log_own_repository(void **state)
{
	char cmd[1024];
	int rc;

	(void)state;
	if (test_run("git rev-parse --git-dir >/dev/null 2>&1") != 0) {
		printf("SKIP: not in a git checkout\n");
		skip();
	}
	/* the ids of "stablesel log --repo ." are those of git log --no-merges */
	snprintf(cmd, sizeof(cmd),
		 "./stablesel log --no-diff --repo . | sed 's/^{\"id\":\"\\([0-9a-f]*\\)\".*/\\1/' > '%s/ours' && "
		 "git log --no-merges --reverse --topo-order --format=%%H > '%s/git' && "
		 "sort '%s/ours' > '%s/ours.s' && sort '%s/git' > '%s/git.s' && "
		 "cmp -s '%s/ours.s' '%s/git.s' && test -s '%s/ours'",
		 test_scratch, test_scratch, test_scratch, test_scratch, test_scratch, test_scratch, test_scratch, test_scratch, test_scratch);
	rc = test_run("%s", cmd);
	assert_int_equal(rc, 0);
}

static void test_label_git(void **state)
{
	char cmd[2048], *s;

	(void)state;
	/* mainline + stable-1.y (cherry-pick -x, "commit <sha> upstream.") +
	 * stable-2.y, built by tests/gitrepo.sh */
	assert_int_equal(test_run("tests/gitrepo.sh '%s/repo' >/dev/null 2>&1", test_scratch), 0);
	snprintf(cmd, sizeof(cmd), "label --stable '%s/repo' --branches 'stable-*' --upstream-ref main -o '%s/labels.tsv'",
		 test_scratch, test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	s = test_scratch_read("labels.tsv");
	assert_int_equal((int)test_count_lines(s), 4); /* header + three upstream commits */
	free(s);
	/* each labelled sha is the mainline commit with that subject */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/repo' && for s in 'fix null dereference' 'fix leak on error path' 'fix use after free'; do "
		 "git log main --format='%%H %%s' | grep \"$s\" | cut -d' ' -f1; done > ../want && "
		 "cut -f1 ../labels.tsv | tail -n +2 | sort > ../got && sort ../want | cmp -s - ../got",
		 test_scratch);
	assert_int_equal(test_run("%s", cmd), 0);
	/* branch lists */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/repo' && n=$(git log main --format='%%H %%s' | grep 'fix null dereference' | cut -d' ' -f1) && "
		 "grep \"^$n\t1\tstable-1.y$\" ../labels.tsv >/dev/null && "
		 "u=$(git log main --format='%%H %%s' | grep 'fix use after free' | cut -d' ' -f1) && "
		 "grep \"^$u\t1\tstable-2.y$\" ../labels.tsv >/dev/null", test_scratch);
	assert_int_equal(test_run("%s", cmd), 0);
}

/* SS_BLAS_THREADS: a good value runs quietly, a bad one is named once on
 * stderr and the command still runs. */
static void test_blas_threads_env(void **state)
{
	char *s;

	(void)state;
	setenv("SS_BLAS_THREADS", "1", 1);
	assert_int_equal(test_cli("log -h"), 0);
	s = test_scratch_read("err");
	assert_null(strstr(s, "SS_BLAS_THREADS"));
	free(s);
	setenv("SS_BLAS_THREADS", "lots", 1);
	assert_int_equal(test_cli("log -h"), 0);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, "warning: SS_BLAS_THREADS='lots' is not a number from 1 to 64; ignored"));
	free(s);
	unsetenv("SS_BLAS_THREADS");
}

/* The binary by an absolute path, to run it from another folder. */
static void abs_bin(char *out, size_t size)
{
	char cwd[4096];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	if (test_bin()[0] == '/')
		snprintf(out, size, "%s", test_bin());
	else
		snprintf(out, size, "%s/%s", cwd, test_bin());
}

/* issue 35, case 22 */
static void test_errors_say_what_to_do(void **state)
{
	char bin[8192], *s;

	(void)state;
	abs_bin(bin, sizeof(bin));
	/* an unknown option: itself, the closest, and where the list is */
	assert_int_equal(test_cli("rank --onot 22.11 /dev/null"), 129);
	s = test_scratch_read("err");
	assert_string_equal(s, "error: unknown option '--onot'; did you mean '--onto'?\n"
			    "hint: 'stablesel rank -h' lists the options\n");
	free(s);
	assert_int_equal(test_cli("rank --no-porgress /dev/null"), 129);
	assert_true(test_run("grep -q \"did you mean '--no-progress'?\" '%s/err'", test_scratch) == 0);
	assert_int_equal(test_cli("rank --zzzzzzzz /dev/null"), 129);
	s = test_scratch_read("err");
	assert_string_equal(s, "error: unknown option '--zzzzzzzz'\n"
			    "hint: 'stablesel rank -h' lists the options\n");
	free(s);
	/* help help */
	assert_int_equal(test_cli("help help"), 0);
	s = test_scratch_read("out");
	assert_non_null(strstr(s, "usage: stablesel help [--man] [<command>]"));
	free(s);
	assert_int_equal(test_cli("help rnak"), 129);
	assert_true(test_run("grep -q \"did you mean 'rank'?\" '%s/err'", test_scratch) == 0);
	/* outside any repository: rank's usage error comes first, with no
	 * model announced */
	assert_int_equal(test_run("mkdir -p '%s/plain' && cd '%s/plain' && '%s' rank "
				  ">'%s/out' 2>'%s/err'", test_scratch, test_scratch, bin, test_scratch,
				  test_scratch), 129);
	s = test_scratch_read("err");
	assert_true(!strncmp(s, "error: no commits to read", strlen("error: no commits to read")));
	assert_null(strstr(s, "built-in"));
	free(s);
	assert_int_equal(test_run("cd '%s/plain' && '%s' index >/dev/null 2>&1", test_scratch, bin), 129);
	/* in a repository: index and rank take it, said once; --repo PATH
	 * still names another */
	assert_int_equal(test_run("sh '%s' '%s/q' >/dev/null 2>&1 && mkdir '%s/q/sub' && cd '%s/q/sub' && "
				  "'%s' index >'%s/out' 2>'%s/err'", test_script("queuerepo.sh"),
				  test_scratch, test_scratch, test_scratch, bin, test_scratch, test_scratch), 0);
	assert_int_equal(test_run("test $(grep -c 'index: no --repo given: using the repository you "
				  "stand in, ' '%s/err') = 1 && test -s '%s/q/.git/stablesel/index.db'",
				  test_scratch, test_scratch), 0);
	assert_int_equal(test_run("cd '%s/q' && '%s' rank --top 3 --format tsv >'%s/out' 2>'%s/err' && "
				  "'%s' rank --repo '%s/q' --top 3 --format tsv 2>/dev/null | cmp - '%s/out'",
				  test_scratch, bin, test_scratch, test_scratch, bin, test_scratch,
				  test_scratch), 0);
	assert_int_equal(test_run("test $(grep -c 'no --repo given' '%s/err') = 1", test_scratch), 0);
	/* --onto naming nothing: the branches there are, and the closest */
	assert_int_equal(test_cli("rank --repo '%s/q' --onto stabel --top 1", test_scratch), 128);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, "cannot resolve 'stabel'"));
	assert_non_null(strstr(s, "(the branches: main, series, series2, stable, stable2); "
			       "did you mean 'stable'?"));
	free(s);
	assert_int_equal(test_cli("rank --repo '%s/q' --onto 22.12 --top 1", test_scratch), 128);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, "(the branches: main, series, series2, stable, stable2)"));
	assert_null(strstr(s, "did you mean"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_version_usage),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_option_ranges),
		cmocka_unit_test(test_stdout_write_error),
		cmocka_unit_test(test_log_own_repository),
		cmocka_unit_test(test_label_git),
		cmocka_unit_test(test_blas_threads_env),
		cmocka_unit_test(test_errors_say_what_to_do),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
