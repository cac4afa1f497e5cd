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

/* Two mails, the second cut short in its hunk: one commit read, one
 * that cannot be (the sources' skipped commits). */
#define TEST_RUN_TWO_MAILS \
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n" \
	"From: Ann <ann@example.com>\n" \
	"Date: Wed, 15 Feb 2017 10:00:00 +0100\n" \
	"Subject: [PATCH] a: one\n" \
	"\n" \
	"Signed-off-by: Ann <ann@example.com>\n" \
	"---\n" \
	"diff --git a/a.c b/a.c\n" \
	"--- a/a.c\n" \
	"+++ b/a.c\n" \
	"@@ -1 +1 @@\n" \
	"-a\n" \
	"+b\n" \
	"\n" \
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n" \
	"From: Ann <ann@example.com>\n" \
	"Date: Wed, 15 Feb 2017 11:00:00 +0100\n" \
	"Subject: [PATCH] b: two\n" \
	"\n" \
	"Signed-off-by: Ann <ann@example.com>\n" \
	"---\n" \
	"diff --git a/b.c b/b.c\n" \
	"--- a/b.c\n" \
	"+++ b/b.c\n" \
	"@@ -1,3 +1,3 @@\n" \
	"-a\n"

#endif
