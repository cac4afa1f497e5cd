/*
 * testrun.h - what a step of the run floor said (run/run.h), for the
 * tests of src/run/ (tests/test_run_*.c): an ss_run_report whose say()
 * keeps each message on its own line, its level first ("W " a warning,
 * "E " an error, "N " a note or the command's own words).  Include after
 * testutil.h.
 */
#ifndef SS_TESTRUN_H
#define SS_TESTRUN_H

#include "run/run.h"

struct heard {
	char text[8192];
	size_t len;
};

static inline void test_hear(ss_run_level level, const char *msg, void *ud)
{
	struct heard *h = ud;
	int n = snprintf(h->text + h->len, sizeof(h->text) - h->len, "%c %s\n",
			 level == SS_RUN_WARNING ? 'W' : level == SS_RUN_ERROR ? 'E' : 'N', msg);

	assert_true(n > 0 && (size_t)n < sizeof(h->text) - h->len);
	h->len += (size_t)n;
}

/* Forget what was said. */
static inline void test_heard_reset(struct heard *h)
{
	h->len = 0;
	h->text[0] = 0;
}

/* A report into h (messages only; no progress). */
#define TEST_RUN_REPORT(h) { test_hear, NULL, NULL, (h) }

#endif
