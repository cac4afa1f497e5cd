/*
 * test_shared_options.c - an option several commands take is declared
 * once (cmd/cli.h, CLI_OPT_*): every command's -h describes it with the
 * same words.  Every long option of every command's help is checked;
 * the names below are the exceptions, each with why.
 */
#include "testutil.h"

static const char *const own[] = {
	/* what the command itself writes: each says what it is (git's -o) */
	"output", "format", "title",
	/* one name, two meanings: the issue-37 debt still open, listed so
	 * that no new one comes in unseen */
	"batch",     /* index: commits a transaction; train, eval: a mini-batch */
	"top",       /* rank: rows listed; explain: features shown */
	"model",     /* train: a kind; rank, explain: a file */
	"branch",    /* rank: the one queue's branch; mark, status, review: decided for */
	"branches",  /* index: the layout's glob; label: a repository's branches */
};

static int is_own(const char *name)
{
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(own[i], name))
			return 1;
	return 0;
}

/* The help of --name in a command's -h text (the line after when the
 * form is long), without the note of a repeatable list; NULL if absent. */
static char *help_of(const char *text, const char *name)
{
	char key[80];
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

#define MAXOPT 512

struct seen {
	char *name, *help;
	const char *cmd;
	int count;
};

static void test_same_words_everywhere(void **state)
{
	struct seen seen[MAXOPT];
	char *list, *cmds[64];
	int ncmds = 0, nseen = 0, shared = 0;

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
		/* every "--name" that starts an option line */
		for (const char *p = strstr(text, "--"); p; p = strstr(p + 2, "--")) {
			char name[64];
			size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			char *h;
			int k;

			if (!len || len >= sizeof(name) || (p[2 + len] != ' ' && p[2 + len] != '\n'))
				continue;
			memcpy(name, p + 2, len);
			name[len] = '\0';
			if (!(h = help_of(text, name)))
				continue;
			for (k = 0; k < nseen && strcmp(seen[k].name, name); k++)
				;
			if (k == nseen) {
				assert_true(nseen < MAXOPT);
				seen[nseen].name = strdup(name);
				seen[nseen].help = h;
				seen[nseen].cmd = cmds[c];
				seen[nseen++].count = 1;
				continue;
			}
			if (seen[k].cmd != cmds[c]) {
				seen[k].count++;
				if (!is_own(name) && strcmp(seen[k].help, h))
					fail_msg("--%s: '%s' in %s, '%s' in %s", name, seen[k].help,
						 seen[k].cmd, h, cmds[c]);
				seen[k].cmd = cmds[c];
			}
			free(h);
		}
		free(text);
	}
	/* the check saw the shared options (--db, --repo, --onto ...) */
	for (int k = 0; k < nseen; k++) {
		shared += seen[k].count > 1 && !is_own(seen[k].name);
		free(seen[k].name);
		free(seen[k].help);
	}
	assert_true(shared >= 15);
	free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_words_everywhere),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
