/*
 * test_shared_options.c - an option several commands take is declared
 * once (cmd/cli.h, CLI_OPT_*): every command's -h describes it with the
 * same words.  Checked on the options issue 25 found declared two to four
 * times (--db, --releases, --release-tags, --stable, --onto, --onto-repo,
 * --onto-upstream) and on the help of every command.
 */
#include "testutil.h"

static const char *const shared[] = {
	"db", "releases", "release-tags", "stable", "onto", "onto-repo", "onto-upstream",
};
#define NSHARED (sizeof(shared) / sizeof(shared[0]))

/* The help of --name in a command's -h text (the line after when the
 * form is long), without the note of a repeatable list; NULL if absent. */
static char *help_of(const char *text, const char *name)
{
	char key[64];
	const char *p = text;

	snprintf(key, sizeof(key), "--%s ", name);
	while ((p = strstr(p, key))) {
		const char *line = p, *h, *end;

		while (line > text && line[-1] != '\n')
			line--;
		/* the option's own line: blanks (and a short form) before it */
		if (strspn(line, " ") < 4 || (p - line > 12)) {
			p += strlen(key);
			continue;
		}
		h = p + strlen(key);
		h += strcspn(h, " \n");      /* its value's name */
		h += strspn(h, " ");
		if (*h == '\n')              /* on the next line */
			h += 1 + strspn(h + 1, " ");
		end = h + strcspn(h, "\n");
		if (end - h > 13 && !strncmp(end - 13, " (repeatable)", 13))
			end -= 13;
		return strndup(h, (size_t)(end - h));
	}
	return NULL;
}

static void test_same_words_everywhere(void **state)
{
	char *first[NSHARED] = { NULL }, *list, *cmds[64];
	const char *firstcmd[NSHARED] = { NULL };
	int ncmds = 0, found[NSHARED] = { 0 };

	(void)state;
	assert_int_equal(test_cli("--list-commands"), 0);
	list = test_scratch_read("out");
	for (char *t = strtok(list, "\n"); t && ncmds < 64; t = strtok(NULL, "\n"))
		cmds[ncmds++] = t;
	assert_true(ncmds > 5);
	for (int c = 0; c < ncmds; c++) {
		char *text;

		assert_int_equal(test_cli("%s -h", cmds[c]), 0);
		text = test_scratch_read("out");
		for (size_t o = 0; o < NSHARED; o++) {
			char *h = help_of(text, shared[o]);

			if (!h)
				continue;
			found[o]++;
			if (!first[o]) {
				first[o] = h;
				firstcmd[o] = cmds[c];
				continue;
			}
			if (strcmp(first[o], h))
				fail_msg("--%s: '%s' in %s, '%s' in %s", shared[o], first[o], firstcmd[o], h,
					 cmds[c]);
			free(h);
		}
		free(text);
	}
	/* each is taken by two commands at least: the test looks at them */
	for (size_t o = 0; o < NSHARED; o++) {
		if (found[o] < 2)
			fail_msg("--%s found in %d commands' help", shared[o], found[o]);
		free(first[o]);
	}
	free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_words_everywhere),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
