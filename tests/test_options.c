/*
 * test_options.c - options from tables (src/cli/parse-options.h): for every
 * command, -h, --help and "help CMD" print the same help, which lists every
 * option of the table with its description; unknown options and missing
 * values are usage errors; the man pages and the bash completion come from
 * the same tables; "make install" puts them in place; --progress.
 *
 * The option names a command's table holds are taken from the completion
 * script (the tables in CLI_PARSE_LIST mode), so that nothing here repeats
 * the tables.
 */
#include <math.h>

#include "testutil.h"

/* The command names, from "stablesel --list-commands". */
static int commands(char names[][32], int max)
{
	char *s, *p, *nl;
	int n = 0;

	assert_int_equal(test_cli("--list-commands"), 0);
	s = test_scratch_read("out");
	for (p = s; (nl = strchr(p, '\n')) && n < max; p = nl + 1) {
		assert_true(nl - p > 0 && nl - p < 32);
		memcpy(names[n], p, (size_t)(nl - p));
		names[n++][nl - p] = '\0';
	}
	free(s);
	return n;
}

/* The options of cmd's table: its line "\tCMD) opts=\"...\" ;;" of the
 * completion script, as a malloc'd space-separated list. */
static char *options_of(const char *completion, const char *cmd)
{
	char key[64];
	const char *p, *end;
	char *out;

	snprintf(key, sizeof(key), "\t%s) opts=\"", cmd);
	p = strstr(completion, key);
	assert_non_null(p);
	p += strlen(key);
	end = strchr(p, '"');
	assert_non_null(end);
	out = strndup(p, (size_t)(end - p));
	assert_non_null(out);
	return out;
}

/* The line of text that names opt as an option ("--opt" then a blank, a
 * value name or the end of the line); NULL when none does. */
static const char *option_line(const char *text, const char *opt)
{
	const char *p;
	size_t len = strlen(opt);

	for (p = strstr(text, opt); p; p = strstr(p + 1, opt)) {
		const char *bol = p;

		if (p[len] != ' ' && p[len] != '\n' && p[len] != ',')
			continue;
		while (bol > text && bol[-1] != '\n')
			bol--;
		/* an option line of the help: four blanks or more, then '-' */
		if (strspn(bol, " ") >= 4 && bol[strspn(bol, " ")] == '-')
			return bol;
	}
	return NULL;
}

/* Does the help describe the option on the line at l (or the next one,
 * for long option forms)? */
static int described(const char *l)
{
	const char *nl = strchr(l, '\n');
	const char *p = l + strspn(l, " ");

	/* the form, then at least two blanks and the description */
	p = strstr(p, "  ");
	if (p && (!nl || p < nl))
		return p[strspn(p, " ")] != '\n';
	/* the description on the next line, indented */
	return nl && nl[1] == ' ' && nl[1 + strspn(nl + 1, " ")] != '\n';
}

static void test_help_same_everywhere(void **state)
{
	char names[32][32], cmd[2048], *completion, *h, *help, *opts, *o, *save;
	int n, i;

	(void)state;
	n = commands(names, 32);
	assert_true(n >= 9);
	assert_int_equal(test_cli("--completion-bash"), 0);
	completion = test_scratch_read("out");
	for (i = 0; i < n; i++) {
		print_message("%s\n", names[i]);
		snprintf(cmd, sizeof(cmd), "help %s", names[i]);
		assert_int_equal(test_cli("%s", cmd), 0);
		help = test_scratch_read("out");
		snprintf(cmd, sizeof(cmd), "usage: stablesel %s", names[i]);
		assert_true(!strncmp(help, cmd, strlen(cmd)));
		snprintf(cmd, sizeof(cmd), "%s -h", names[i]);
		assert_int_equal(test_cli("%s", cmd), 0);
		h = test_scratch_read("out");
		assert_string_equal(h, help);
		free(h);
		snprintf(cmd, sizeof(cmd), "%s --help", names[i]);
		assert_int_equal(test_cli("%s", cmd), 0);
		h = test_scratch_read("out");
		assert_string_equal(h, help);
		free(h);
		/* -h after other options */
		snprintf(cmd, sizeof(cmd), "%s --no-progress -h", names[i]);
		assert_int_equal(test_cli("%s", cmd), 0);
		h = test_scratch_read("out");
		assert_string_equal(h, help);
		free(h);

		/* every option of the table, with its description */
		opts = options_of(completion, names[i]);
		for (o = strtok_r(opts, " ", &save); o; o = strtok_r(NULL, " ", &save)) {
			const char *l;

			if (!strncmp(o, "--no-", 5) && strstr(help, "--[no-]")) {
				char neg[128];

				snprintf(neg, sizeof(neg), "--[no-]%s", o + 5);
				if (strstr(help, neg))
					continue;
			}
			l = option_line(help, o);
			if (!l && !strncmp(o, "--", 2)) {
				char neg[128];

				snprintf(neg, sizeof(neg), "--[no-]%s", o + 2);
				l = option_line(help, neg);
			}
			print_message("  %s\n", o);
			assert_non_null(l);
			assert_true(described(l));
		}
		free(opts);
		free(help);
	}
	free(completion);
}

/* What issue 15 found missing from the help: now in the tables. */
static void test_help_lists_what_was_missing(void **state)
{
	static const struct {
		const char *cmd, *opt;
	} want[] = {
		{ "label", "--upstream-ref" }, { "label", "--releases" },
		{ "train", "--repo" }, { "train", "--rev" }, { "train", "--releases" },
		{ "train", "--release-tags" }, { "train", "--warm-start" }, { "train", "--hidden" },
		{ "train", "patchnet-feat" },
		{ "explain", "--history" }, { "explain", "--release-tags" },
		{ "check", "--output" }, { "rank", "--[no-]progress" }, { "log", "--[no-]progress" },
	};
	char cmd[2048], *s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(cmd, sizeof(cmd), "help %s", want[i].cmd);
		assert_int_equal(test_cli("%s", cmd), 0);
		s = test_scratch_read("out");
		print_message("%s %s\n", want[i].cmd, want[i].opt);
		assert_non_null(strstr(s, want[i].opt));
		free(s);
	}
	/* the command list: one summary a command, nothing about models */
	assert_int_equal(test_cli("help"), 0);
	s = test_scratch_read("out");
	assert_non_null(strstr(s, "   rank      rank commits"));
	assert_null(strstr(s, "keyword|linear|mlp"));
	free(s);
	assert_int_equal(test_cli("--help"), 0);
	assert_int_equal(test_run("./stablesel help | cmp -s - '%s/out'", test_scratch), 0);
	assert_int_equal(test_cli("help nosuchcommand"), 129);
}

/* cmd fails with a usage error (exit 129) whose stderr holds want. */
static void expect_usage_error(const char *cmd, const char *want)
{
	char *s;

	assert_int_equal(test_cli("%s", cmd), 129);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, want));
	free(s);
}

static void test_usage_errors(void **state)
{
	/* a command and one of its options that takes a value */
	static const struct {
		const char *cmd, *opt;
	} valued[] = {
		{ "log", "--repo" }, { "label", "--stable" }, { "train", "--kind" },
		{ "eval", "--split-date" }, { "rank", "--top" }, { "explain", "--model" },
		{ "report", "--output" }, { "check", "--onto-repo" }, { "origin", "--history" },
	};
	char cmd[256], want[128], *s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(valued) / sizeof(valued[0]); i++) {
		print_message("%s\n", valued[i].cmd);
		snprintf(cmd, sizeof(cmd), "%s --no-such-option x", valued[i].cmd);
		assert_int_equal(test_cli("%s", cmd), 129);
		s = test_scratch_read("err");
		/* two lines: the option and where the options are (the usage
		 * would hide a did-you-mean) */
		snprintf(want, sizeof(want), "error: unknown option '--no-such-option'\n"
			 "hint: 'stablesel %s -h' lists the options\n", valued[i].cmd);
		assert_string_equal(s, want);
		free(s);
		snprintf(cmd, sizeof(cmd), "%s %s", valued[i].cmd, valued[i].opt);
		assert_int_equal(test_cli("%s", cmd), 129);
		s = test_scratch_read("err");
		snprintf(want, sizeof(want), "error: option '%s' needs a value\n", valued[i].opt);
		assert_true(!strncmp(s, want, strlen(want)));
		/* the short usage comes from the table: it names the option */
		assert_non_null(strstr(s, valued[i].opt));
		free(s);
		s = test_scratch_read("out");
		assert_string_equal(s, "");
		free(s);
	}
	/* a short option is named by its long name */
	expect_usage_error("check -o", "error: option '--output' needs a value");
	/* a flag takes no value; a bad choice names the choices */
	expect_usage_error("log --message=yes /dev/null", "error: option '--message' takes no value");
	expect_usage_error("rank --format xml /dev/null",
			   "error: option '--format' expects one of text, tsv, json, csv, mbox, not 'xml'");
	/* a training option's range stays where it was */
	expect_usage_error("train --kind linear --hidden 0 --labels x -o y /dev/null",
			   "'--hidden'");
}

/* --name=VALUE, -oFILE and "--" work as in git. */
static void test_value_forms(void **state)
{
	char cmd[512], *s;

	(void)state;
	assert_int_equal(test_run("printf 'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\\n"
				  "From: A <a@b>\\nDate: Mon, 1 Jan 2024 10:00:00 +0000\\nSubject: [PATCH] x\\n\\n"
				  "body\\n-- \\n2.39.5\\n\\n' > '%s/one.mbox'", test_scratch), 0);
	snprintf(cmd, sizeof(cmd), "rank --top=1 --format=tsv -o'%s/r.tsv' -- '%s/one.mbox'", test_scratch, test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	s = test_scratch_read("r.tsv");
	assert_non_null(strstr(s, "1111111111"));
	free(s);
	snprintf(cmd, sizeof(cmd), "rank --top=0 '%s/one.mbox'", test_scratch);
	expect_usage_error(cmd, "error: option '--top' expects");
}

static void test_man_pages(void **state)
{
	char names[32][32], cmd[2048], *completion, *man, *opts, *o, *save, esc[160];
	int n, i;

	(void)state;
	n = commands(names, 32);
	assert_int_equal(test_cli("--completion-bash"), 0);
	completion = test_scratch_read("out");
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "help --man %s", names[i]);
		assert_int_equal(test_cli("%s", cmd), 0);
		man = test_scratch_read("out");
		assert_true(!strncmp(man, ".TH ", 4));
		assert_non_null(strstr(man, "\n.SH NAME\n"));
		assert_non_null(strstr(man, "\n.SH SYNOPSIS\n"));
		assert_non_null(strstr(man, "\n.SH DESCRIPTION\n"));
		assert_non_null(strstr(man, "\n.SH OPTIONS\n"));
		snprintf(cmd, sizeof(cmd), "stablesel\\-%s \\- ", names[i]);
		assert_non_null(strstr(man, cmd));
		opts = options_of(completion, names[i]);
		for (o = strtok_r(opts, " ", &save); o; o = strtok_r(NULL, " ", &save)) {
			size_t k, e = 0;

			/* troff escapes every '-' */
			for (k = 0; o[k] && e + 3 < sizeof(esc); k++) {
				if (o[k] == '-')
					esc[e++] = '\\';
				esc[e++] = o[k];
			}
			esc[e] = '\0';
			print_message("%s %s\n", names[i], o);
			if (!strstr(man, esc)) {
				/* --[no-]NAME stands for --NAME and --no-NAME */
				char alt[200];
				const char *base = !strncmp(o, "--no-", 5) ? esc + 8 : esc + 4;

				snprintf(alt, sizeof(alt), "\\-\\-[no\\-]%s", base);
				assert_non_null(strstr(man, alt));
			}
		}
		free(opts);
		free(man);
	}
	assert_int_equal(test_cli("help --man"), 0);
	man = test_scratch_read("out");
	assert_true(!strncmp(man, ".TH ", 4));
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), ".BR stablesel\\-%s (1)", names[i]);
		assert_non_null(strstr(man, cmd));
	}
	free(man);
	free(completion);
	/* man renders them without a warning, when it is installed */
	if (test_run("command -v man >/dev/null 2>&1") == 0) {
		assert_int_equal(test_run("./stablesel help --man rank > '%s/r.1' && "
					  "MANWIDTH=80 man --warnings -l '%s/r.1' 2>'%s/w' | grep -q 'min-score' && "
					  "test ! -s '%s/w'", test_scratch, test_scratch, test_scratch, test_scratch), 0);
	}
}

static void test_completion(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(test_run("./stablesel --completion-bash > '%s/c.bash'", test_scratch), 0);
	assert_int_equal(test_run("bash -c 'source \"%s/c.bash\"; COMP_WORDS=(stablesel rank --min); "
				  "COMP_CWORD=2; _stablesel; printf \"%%s\\n\" \"${COMPREPLY[@]}\"' > '%s/out'",
				  test_scratch, test_scratch), 0);
	s = test_scratch_read("out");
	assert_string_equal(s, "--min-score\n--min-age\n");
	free(s);
	assert_int_equal(test_run("bash -c 'source \"%s/c.bash\"; COMP_WORDS=(stablesel ex); "
				  "COMP_CWORD=1; _stablesel; printf \"%%s\\n\" \"${COMPREPLY[@]}\"' > '%s/out'",
				  test_scratch, test_scratch), 0);
	s = test_scratch_read("out");
	assert_string_equal(s, "explain\n");
	free(s);
	assert_int_equal(test_run("bash -c 'source \"%s/c.bash\"; COMP_WORDS=(stablesel check -); "
				  "COMP_CWORD=2; _stablesel; printf \"%%s\\n\" \"${COMPREPLY[@]}\"' > '%s/out'",
				  test_scratch, test_scratch), 0);
	s = test_scratch_read("out");
	assert_non_null(strstr(s, "--onto-repo\n"));
	assert_non_null(strstr(s, "--output\n"));
	free(s);
}

/* An old commit (history) and its fix, which names it in Fixes:. */
static const char history_mbox[] =
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: A <a@b>\n"
	"Date: Mon, 1 Jan 2024 10:00:00 +0000\n"
	"Subject: [PATCH] net: add frobnicator\n"
	"\n"
	"body\n"
	"\n"
	"---\n"
	" net/core/frob.c | 2 ++\n"
	" 1 file changed, 2 insertions(+)\n"
	"\n"
	"diff --git a/net/core/frob.c b/net/core/frob.c\n"
	"--- a/net/core/frob.c\n"
	"+++ b/net/core/frob.c\n"
	"@@ -1,1 +1,3 @@\n"
	" int x;\n"
	"+int y;\n"
	"+int z;\n";
static const char fix_mbox[] =
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
	"From: B <b@c>\n"
	"Date: Mon, 1 Apr 2024 10:00:00 +0000\n"
	"Subject: [PATCH] net: fix null dereference in frobnicator\n"
	"\n"
	"The frobnicator crashes on a null pointer.\n"
	"\n"
	"Fixes: 111111111111 (\"net: add frobnicator\")\n"
	"Signed-off-by: B <b@c>\n"
	"---\n"
	" net/core/frob.c | 2 +-\n"
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
	"\n"
	"diff --git a/net/core/frob.c b/net/core/frob.c\n"
	"--- a/net/core/frob.c\n"
	"+++ b/net/core/frob.c\n"
	"@@ -1,3 +1,3 @@\n"
	" int x;\n"
	"-int y;\n"
	"+int y = 0;\n"
	" int z;\n";

/* The score on the "score 0.1234" line of explain, or the second TSV
 * field of rank's row of 2222..., as printed. */
static double score_in(const char *s, int tsv)
{
	const char *p = tsv ? strstr(s, "\n2222222222222222222222222222222222222222\t") : strstr(s, "\nscore ");

	assert_non_null(p);
	p = tsv ? strchr(p + 1, '\t') + 1 : p + strlen("\nscore ");
	return strtod(p, NULL);
}

/*
 * explain takes rank's history options and scores a commit as rank does:
 * with --history naming the commit a fix fixes, both give the same score,
 * which differs from the score without it (the Fixes: target is known).
 */
static void test_explain_history_like_rank(void **state)
{
	char path[700], cmd[2048], *s;
	double rank_h, explain_h, explain_none;

	(void)state;
	snprintf(path, sizeof(path), "%s/h.mbox", test_scratch);
	test_write_file(path, history_mbox, strlen(history_mbox));
	snprintf(path, sizeof(path), "%s/s.mbox", test_scratch);
	test_write_file(path, fix_mbox, strlen(fix_mbox));
	snprintf(cmd, sizeof(cmd), "rank --format tsv --history '%s/h.mbox' '%s/s.mbox'", test_scratch, test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	s = test_scratch_read("out");
	rank_h = score_in(s, 1);
	free(s);
	snprintf(cmd, sizeof(cmd), "explain --history '%s/h.mbox' '%s/s.mbox' 2222222222", test_scratch, test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	s = test_scratch_read("out");
	explain_h = score_in(s, 0);
	free(s);
	snprintf(cmd, sizeof(cmd), "explain '%s/s.mbox' 2222222222", test_scratch);
	assert_int_equal(test_cli("%s", cmd), 0);
	s = test_scratch_read("out");
	explain_none = score_in(s, 0);
	free(s);
	print_message("rank %.6f explain %.4f, without history %.4f\n", rank_h, explain_h, explain_none);
	assert_true(fabs(rank_h - explain_h) < 0.00006);
	assert_true(fabs(explain_h - explain_none) > 0.0001);
}

/* make install DESTDIR=... PREFIX=/usr: the binary, the pages, completion. */
static void test_install(void **state)
{
	char names[32][32], path[2048];
	int n, i;

	(void)state;
	if (test_run("command -v make >/dev/null 2>&1 && test -f Makefile") != 0) {
		print_message("SKIP: no make or Makefile\n");
		return;
	}
	n = commands(names, 32);
	/* -o: the binary under test is up to date; do not rebuild it */
	assert_int_equal(test_run("make -s -o all -o '%s' BIN='%s' install DESTDIR='%s/inst' PREFIX=/usr "
				  ">'%s/make.log' 2>&1", test_bin(), test_bin(), test_scratch, test_scratch), 0);
	assert_int_equal(test_run("test -x '%s/inst/usr/bin/stablesel' && "
				  "'%s/inst/usr/bin/stablesel' --version >/dev/null", test_scratch, test_scratch), 0);
	snprintf(path, sizeof(path), "%s/inst/usr/share/man/man1/stablesel.1", test_scratch);
	assert_int_equal(access(path, R_OK), 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/inst/usr/share/man/man1/stablesel-%s.1", test_scratch, names[i]);
		assert_int_equal(access(path, R_OK), 0);
	}
	assert_int_equal(test_run("grep -q 'complete .*_stablesel stablesel' "
				  "'%s/inst/usr/share/bash-completion/completions/stablesel'", test_scratch), 0);
	assert_int_equal(test_run("make -s uninstall DESTDIR='%s/inst' PREFIX=/usr >/dev/null 2>&1 && "
				  "test -z \"$(find '%s/inst' -type f)\"", test_scratch, test_scratch), 0);
}

/* --progress shows progress on a stderr that is not a terminal; the
 * default and --no-progress do not. */
static void test_progress(void **state)
{
	char *s;

	(void)state;
	if (test_run("git rev-parse --git-dir >/dev/null 2>&1") != 0) {
		print_message("SKIP: not in a git checkout\n");
		return;
	}
	assert_int_equal(test_cli("log --no-diff --repo . --progress"), 0);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, "\r.: 1"));
	free(s);
	assert_int_equal(test_cli("log --no-diff --repo ."), 0);
	s = test_scratch_read("err");
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(test_cli("log --no-diff --repo . --progress --no-progress"), 0);
	s = test_scratch_read("err");
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_same_everywhere),
		cmocka_unit_test(test_help_lists_what_was_missing),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_value_forms),
		cmocka_unit_test(test_man_pages),
		cmocka_unit_test(test_completion),
		cmocka_unit_test(test_explain_history_like_rank),
		cmocka_unit_test(test_install),
		cmocka_unit_test(test_progress),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
