/*
 * test_shared_options.c - an option several commands take is declared
 * once (src/cmd/shared_options.c, or a group table every command that
 * takes it includes): every command's table, read whole through
 * "stablesel --list-options CMD" (each option, its value's name and
 * where it is declared), and no long name given by two declarations.
 * Nothing here lists the options: a new command, option or table is
 * checked as it comes.
 */
#include "testutil.h"

/*
 * One name, two meanings, each its own declaration: the issue-37 debt
 * still open, listed so that no new one comes in unseen (and checked to
 * be still there, so that the list does not outlive it).
 */
static const char *const two_meanings[] = {
	"batch",     /* index: commits a transaction; train, eval: a mini-batch */
	"top",       /* rank: rows listed; explain: features shown */
	"model",     /* train: a kind; rank, explain: a file */
	"branch",    /* rank: the one queue's branch; mark, status, review: decided for */
	"output",    /* review -o DIR: a folder of mails; the others -o FILE */
};

#define NMEANINGS (sizeof(two_meanings) / sizeof(two_meanings[0]))

static int meaning_index(const char *name)
{
	for (size_t i = 0; i < NMEANINGS; i++)
		if (!strcmp(two_meanings[i], name))
			return (int)i;
	return -1;
}

#define MAXOPT 512

struct seen {
	char name[64], decl[128], argh[32], cmd[32];
	int ncmds;
};

/* The fields of one line of --list-options: "--name\tARG\tfile:line\thelp". */
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
	int ncmds = 0, nseen = 0, shared = 0, twice[NMEANINGS] = { 0 };
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
		char *text, *save = NULL;
		int nopts = 0;

		assert_int_equal(test_cli("--list-options %s", cmds[c]), 0);
		text = test_scratch_read("out");
		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *f[4];
			int k;

			assert_int_equal(split_line(line, f, 4), 4);
			nopts++;
			/* a site is "src/...c:LINE" or "src/...h:LINE" */
			assert_non_null(strstr(f[2], "src/"));
			assert_non_null(strchr(f[2], ':'));
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
			if (meaning_index(seen[k].name) >= 0) {
				twice[meaning_index(seen[k].name)] = 1;
				continue;
			}
			fprintf(w, "--%s is declared twice: %s --%s %s at %s, %s --%s %s at %s "
				"(declare it once in src/cmd/shared_options.c)\n",
				seen[k].name, seen[k].cmd, seen[k].name, seen[k].argh, seen[k].decl,
				cmds[c], f[0] + 2, f[1], f[2]);
		}
		/* the table was read: at least --progress and --help */
		assert_true(nopts >= 2);
		free(text);
	}
	for (size_t i = 0; i < NMEANINGS; i++)
		if (!twice[i])
			fprintf(w, "--%s is declared once now: take it out of two_meanings[]\n",
				two_meanings[i]);
	fclose(w);
	if (whylen)
		fail_msg("%s", why);
	free(why);
	/* the check saw the shared options (--db, --repo, --onto ...) */
	for (int k = 0; k < nseen; k++)
		shared += seen[k].ncmds > 1 && strstr(seen[k].decl, "shared_options.c");
	assert_true(shared >= 15);
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
	assert_non_null(line = strstr(decls, "--repo\tPATH\tsrc/cmd/shared_options.c:"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declared_once),
		cmocka_unit_test(test_help_is_the_declaration),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
