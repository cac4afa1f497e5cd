/*
 * testqueue.h - the fixture of the tests on tests/queuerepo.sh's
 * repository with a project index and git's identity set
 * (test_decisions.c, test_review.c): a fresh one per test in tmp.
 */
#ifndef SS_TESTQUEUE_H
#define SS_TESTQUEUE_H

#include "testutil.h"

static char *tmp;

/* tests/queuerepo.sh */
static const char *queuerepo_script(void)
{
	return test_script("queuerepo.sh");
}

/* tmp/r: the repository, indexed, user.name and user.email set. */
static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir();
	if (test_run("sh '%s' '%s/r' >'%s/make.log' 2>&1 && git -C '%s/r' config user.name 'Tess Maint' && "
		     "git -C '%s/r' config user.email tess@example.org && "
		     "./stablesel index --repo '%s/r' >>'%s/make.log' 2>&1",
		     queuerepo_script(), tmp, tmp, tmp, tmp, tmp, tmp)) {
		test_run("cat '%s/make.log' >&2", tmp);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_run("rm -rf '%s'", tmp);
	free(tmp);
	return 0;
}

/* The full id of the commit with this subject on any branch of tmp/r. */
static void id_of(char out[41], const char *subject)
{
	char *s = test_run_output("git -C '%s/r' log --all --format='%%H %%s' | "
				  "awk '$2 == \"%s\" && NF == 2 { print $1; exit }'", tmp, subject);

	assert_int_equal(strlen(s), 41);
	memcpy(out, s, 40);
	out[40] = '\0';
	free(s);
}

#endif
