/*
 * test_shared_options.c - an option several commands take is declared
 * once (src/cli/shared_options.c, or a group table every command that
 * takes it includes): every command's table, read whole through
 * "stablesel --list-options CMD" (each option, its value's name and
 * where it is declared), and no long name given by two declarations:
 * one meaning a name.  An alias (CLI_ALIAS: an old spelling kept after a
 * rename, "->--TARGET" in the listing) declares nothing, and names an
 * option of its own command.  Nothing here lists the options: a new
 * command, option or table is checked as it comes.
 */
#include "testutil.h"

#define MAXOPT 512

struct seen {
	char name[64], decl[128], argh[32], cmd[32];
	int ncmds;
};

/* Is name ("--x", "-o") an option of the listing text, not an alias? */
static int lists(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == '\t' && strncmp(p + len + 1, "->", 2))
			return 1;
	return 0;
}

/* The fields of one line of --list-options: "--name\tARG\tfile:line\thelp"
 * (ARG "->--TARGET" for an alias). */
static int split_line(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = line; n < max; p++) {
		f[n++] = p;
		if (!(p = strchr(p, '\t')))
			break;
		*p = '\0';
	}
	return n;
}

static void test_declared_once(void **state)
{
	static struct seen seen[MAXOPT];
	char *list, *cmds[64], *why = NULL;
	int ncmds = 0, nseen = 0, shared = 0, aliases = 0;
	size_t whylen = 0;
	FILE *w = open_memstream(&why, &whylen);

	(void)state;
	assert_non_null(w);
	assert_int_equal(test_cli("--list-commands"), 0);
	list = test_scratch_read("out");
	for (char *t = strtok(list, "\n"); t && ncmds < 64; t = strtok(NULL, "\n"))
		cmds[ncmds++] = t;
	assert_true(ncmds > 5);
	for (int c = 0; c < ncmds; c++) {
		char *text, *whole, *save = NULL;
		int nopts = 0;

		assert_int_equal(test_cli("--list-options %s", cmds[c]), 0);
		text = test_scratch_read("out");
		whole = strdup(text);
		assert_non_null(whole);
		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *f[4];
			int k;

			assert_int_equal(split_line(line, f, 4), 4);
			nopts++;
			/* a site is "src/...c:LINE" or "src/...h:LINE" */
			assert_non_null(strstr(f[2], "src/"));
			assert_non_null(strchr(f[2], ':'));
			if (!strncmp(f[1], "->", 2)) {
				/* an old spelling: of an option of this command, and
				 * not one this command declares too */
				aliases++;
				if (!lists(whole, f[1] + 2))
					fprintf(w, "%s %s is an alias of %s, which %s lacks (%s)\n",
						cmds[c], f[0], f[1] + 2, cmds[c], f[2]);
				if (lists(whole, f[0]))
					fprintf(w, "%s %s is both an alias (%s) and an option\n",
						cmds[c], f[0], f[2]);
				continue;
			}
			if (strncmp(f[0], "--", 2))
				continue;   /* short-only */
			for (k = 0; k < nseen && strcmp(seen[k].name, f[0] + 2); k++)
				;
			if (k == nseen) {
				assert_true(nseen < MAXOPT);
				snprintf(seen[k].name, sizeof(seen[k].name), "%s", f[0] + 2);
				snprintf(seen[k].decl, sizeof(seen[k].decl), "%s", f[2]);
				snprintf(seen[k].argh, sizeof(seen[k].argh), "%s", f[1]);
				snprintf(seen[k].cmd, sizeof(seen[k].cmd), "%s", cmds[c]);
				seen[k].ncmds = 1;
				nseen++;
				continue;
			}
			seen[k].ncmds++;
			if (!strcmp(seen[k].decl, f[2]))
				continue;
			fprintf(w, "--%s is declared twice: %s --%s %s at %s, %s --%s %s at %s "
				"(declare it once in src/cli/shared_options.c)\n",
				seen[k].name, seen[k].cmd, seen[k].name, seen[k].argh, seen[k].decl,
				cmds[c], f[0] + 2, f[1], f[2]);
		}
		/* the table was read: at least --progress and --help */
		assert_true(nopts >= 2);
		free(whole);
		free(text);
	}
	fclose(w);
	if (whylen)
		fail_msg("%s", why);
	free(why);
	/* the check saw the shared options (--db, --repo, --onto ...) */
	for (int k = 0; k < nseen; k++)
		shared += seen[k].ncmds > 1 && strstr(seen[k].decl, "shared_options.c");
	assert_true(shared >= 15);
	/* the old spellings of issue 37's renames were seen */
	assert_true(aliases >= 5);
	free(list);
}

/* What -h shows comes from the same declaration: the help of where's
 * --repo line, a shared option, in status's -h. */
static void test_help_is_the_declaration(void **state)
{
	char *decls, *help, *line, *end;

	(void)state;
	assert_int_equal(test_cli("--list-options where"), 0);
	decls = test_scratch_read("out");
	assert_non_null(line = strstr(decls, "--repo\tPATH\tsrc/cli/shared_options.c:"));
	if ((end = strchr(line, '\n')))
		*end = '\0';
	assert_int_equal(test_cli("status -h"), 0);
	help = test_scratch_read("out");
	assert_non_null(strstr(help, "--repo PATH"));
	assert_non_null(strstr(help, strrchr(line, '\t') + 1));
	free(help);
	free(decls);
	assert_int_equal(test_cli("--list-options nosuchcommand"), 129);
}

/* stderr of the last test_cli() holds want. */
static void err_has(const char *want)
{
	char *err = test_scratch_read("err");

	if (!strstr(err, want))
		fail_msg("stderr lacks \"%s\":\n%s", want, err);
	free(err);
}

/*
 * Issue 37's renames: the old spelling still works, as the new option
 * (its errors name the new one); the help says "old spelling of"; the
 * completion and the short usage offer only the new name.
 */
static void test_old_spellings(void **state)
{
	static const struct {
		const char *cmd, *old, *new;
	} renamed[] = {
		{ "train", "--model", "--kind" },
		{ "explain", "--top", "--top-features" },
		{ "index", "--batch", "--write-batch" },
		{ "rank", "--branch", "--queue-branch" },
		{ "review", "--output", "--mail-dir" },
		{ "review", "-o", "--mail-dir" },
	};
	char want[128], *s;

	(void)state;
	assert_int_equal(test_cli("index --batch 0 /dev/null"), 129);
	err_has("option '--write-batch' expects an integer");
	assert_int_equal(test_cli("explain --top 0 /dev/null"), 129);
	err_has("option '--top-features' expects an integer");
	assert_int_equal(test_cli("rank --branch"), 129);
	err_has("option '--queue-branch' needs a value");
	/* the kind given the old way: what is missing is -o */
	assert_int_equal(test_cli("train --model linear --labels x /dev/null"), 129);
	err_has("-o MODEL is required");
	assert_int_equal(test_cli("train --labels x -o y /dev/null"), 129);
	err_has("--kind is required");
	assert_int_equal(test_cli("review -o mails"), 129);
	err_has("--mail-dir and --cc go with --failed-mail");
	assert_int_equal(test_cli("review --output=mails"), 129);
	err_has("--mail-dir and --cc go with --failed-mail");
	assert_int_equal(test_cli("review --failed-mail"), 129);
	err_has("--failed-mail needs --mail-dir DIR");
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		char *line;

		assert_int_equal(test_cli("help %s", renamed[i].cmd), 0);
		s = test_scratch_read("out");
		snprintf(want, sizeof(want), "old spelling of %s\n", renamed[i].new);
		assert_non_null(line = strstr(s, want));
		while (line > s && line[-1] != '\n')
			line--;
		/* "    --batch N  old spelling ...", "    -o, --output DIR  old ..." */
		snprintf(want, sizeof(want), " %s%s", renamed[i].old,
			 renamed[i].old[1] == '-' ? " " : ", ");
		if (!strstr(line, want) || strstr(line, want) > strstr(line, "old spelling"))
			fail_msg("%s -h: %s is not said as the old spelling of %s", renamed[i].cmd,
				 renamed[i].old, renamed[i].new);
		free(s);
	}
	assert_int_equal(test_cli("--completion-bash"), 0);
	s = test_scratch_read("out");
	{
		char *index = strstr(s, "\tindex) opts=\""), *end;

		assert_non_null(index);
		assert_non_null(end = strchr(index + 14, '"'));
		*end = '\0';
		assert_non_null(strstr(index, " --write-batch "));
		assert_null(strstr(index, " --batch "));
	}
	free(s);
	/* the short usage of a usage error names the new one only */
	assert_int_equal(test_cli("rank --branch"), 129);
	s = test_scratch_read("err");
	assert_non_null(strstr(s, "[--queue-branch NAME]"));
	assert_null(strstr(s, "[--branch"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declared_once),
		cmocka_unit_test(test_help_is_the_declaration),
		cmocka_unit_test(test_old_spellings),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
