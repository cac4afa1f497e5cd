/*
 * test_queue.c - the verdicts per pick per stable branch (check/verdict.h,
 * labels/carried.h) and the queue rank writes for a branch, on the
 * repository tests/queuerepo.sh makes (its header lists every commit and
 * the verdict it must get): a fix of a fix in one batch, a revert in
 * mainline after the pick, a prerequisite that reached the branch as a
 * backport, a commit already on the branch under a new id (backport line,
 * and the same patch without one), a bug the branch never had, a 3-patch
 * series (by its Link: prefix and as a mail thread).  The queue is
 * applied with git am onto a clone of each branch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <git2.h>

#include "check/check.h"
#include "commit/commit.h"
#include "commit/patchid.h"
#include "util/hexid.h"
#include "index/index.h"
#include "labels/carried.h"
#include "source/source.h"
#include "testutil.h"
#include "util/error.h"

static char *tmp;

/* tests/queuerepo.sh */
static const char *queuerepo_script(void)
{
	return test_script("queuerepo.sh");
}

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir();
	if (test_run("sh '%s' '%s/r' >'%s/make.log' 2>&1", queuerepo_script(), tmp, tmp)) {
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

/* The full id of the main commit with subject s (malloc'd). */
static char *id_of(const char *s)
{
	char *out = test_run_output("git -C '%s/r' log --format=%%H -1 --grep='^%s$' main", tmp, s);

	assert_int_equal(strlen(out), 41);
	out[40] = '\0';
	return out;
}

/* The verdict column col (9: first branch, after the band) of the TSV row of subject s. */
static char *verdict_of(const char *tsv, const char *s, int col)
{
	char *out = test_run_output("awk -F'\\t' '$4 == \"%s\" { print $%d }' '%s/%s'", s, col, tmp, tsv);
	size_t len = strlen(out);

	if (len && out[len - 1] == '\n')
		out[len - 1] = '\0';
	return out;
}

static void expect(const char *tsv, const char *subject, int col, const char *want)
{
	char *got = verdict_of(tsv, subject, col);

	if (strcmp(got, want))
		fail_msg("%s: verdict '%s', expected '%s'", subject, got, want);
	free(got);
}

/* "applies, needs <12 digits of the commit with subject s>" */
static void expect_needs(const char *tsv, const char *subject, int col, const char *s1,
			 const char *s2)
{
	char want[128], *a = id_of(s1), *b = s2 ? id_of(s2) : NULL;

	snprintf(want, sizeof(want), "applies, needs %.12s%s%.12s", a, b ? " " : "", b ? b : "");
	expect(tsv, subject, col, want);
	free(a);
	free(b);
}

#define RANK "./stablesel rank --repo '%s/r' --rev main --threshold 0 --since 2023-11-15 "

/* Every verdict of queuerepo.sh's header, on both branches. */
static void test_verdicts(void **state)
{
	char want[128], *bad_revert = id_of("Revert \\\"bad\\\"");

	(void)state;
	assert_int_equal(test_run(RANK "--onto stable --onto stable2 --format tsv -o '%s/v.tsv' "
				  "2>'%s/err'", tmp, tmp, tmp), 0);
	/* one column a branch, named for it */
	assert_int_equal(test_run("head -1 '%s/v.tsv' | grep -q '\treasons\tband\tstable\tstable2$'", tmp), 0);
	/* a branch named twice is one column, with a warning (issue 24) */
	assert_int_equal(test_run(RANK "--onto stable --onto stable2 --onto stable --format tsv "
				  "-o '%s/v2.tsv' 2>'%s/err2'", tmp, tmp, tmp), 0);
	assert_int_equal(test_run("head -1 '%s/v2.tsv' | grep -q '\treasons\tband\tstable\tstable2$' && "
				  "grep -q 'given twice' '%s/err2'", tmp, tmp), 0);
	/* feat is history (before --since): its fix is for a bug stable never had */
	expect("v.tsv", "fix-feat", 9, "unaffected: bug not in branch");
	expect("v.tsv", "fix-intro", 9, "applies");
	/* the fix of a fix in one batch: needed because fix-intro is proposed */
	expect_needs("v.tsv", "fix-fix", 9, "fix-intro", NULL);
	/* backported with a line: already; its fix is needed */
	expect("v.tsv", "prep", 9, "already");
	expect("v.tsv", "prep", 10, "already");
	expect("v.tsv", "fix-prep", 9, "applies");
	expect("v.tsv", "fix-prep", 10, "applies");
	/* the prerequisite helper reached stable as a backport: only other14
	 * is needed there; stable2 lacks both */
	expect("v.tsv", "helper", 9, "already");
	expect_needs("v.tsv", "use-helper", 9, "other14", NULL);
	expect_needs("v.tsv", "use-helper", 10, "other14", "helper");
	expect("v.tsv", "other14", 9, "applies");
	expect_needs("v.tsv", "other14", 10, "helper", NULL);
	/* cherry-picked without a line: the same patch under a new id */
	expect("v.tsv", "dup", 9, "already");
	expect("v.tsv", "dup", 10, "applies");
	/* reverted later in mainline */
	snprintf(want, sizeof(want), "reverted by %.12s", bad_revert);
	expect("v.tsv", "bad", 9, want);
	expect("v.tsv", "bad", 10, want);
	expect("v.tsv", "Revert \\\"bad\\\"", 9, "unaffected: bug not in branch");
	/* what the text shows: the branch commit carrying it, and why */
	assert_int_equal(test_run(RANK "--onto stable --precedents 0 >'%s/v.txt' 2>/dev/null", tmp,
				  tmp), 0);
	assert_int_equal(test_run("grep -q 'stable: already (in stable as [0-9a-f]\\{12\\}, the same "
				  "patch)' '%s/v.txt' && grep -q 'stable: already (in stable as "
				  "[0-9a-f]\\{12\\}, by its backport line)' '%s/v.txt' && grep -q "
				  "'which reached stable as [0-9a-f]\\{12\\})' '%s/v.txt' && grep -q "
				  "'proposed for stable in this batch' '%s/v.txt'", tmp, tmp, tmp, tmp), 0);
	/* a prerequisite is named with its subject and score, and what taking
	 * the pick does with it (issue 35, case 21) */
	assert_int_equal(test_run("grep -A1 'stable: applies, needs' '%s/v.txt' | grep -q "
				  "'^ *accepting it pulls into the queue: [0-9a-f]\\{12\\} (\"other14\", "
				  "score [0-9]\\.[0-9]\\{3\\})$'", tmp), 0);
	/* JSON carries them too */
	assert_int_equal(test_run(RANK "--onto stable --format json 2>/dev/null | grep '\"fix-fix\"' | "
				  "grep -q '\"verdicts\":\\[{\"branch\":\"stable\",\"verdict\":\"applies, needs "
				  "[0-9a-f]*\",\"detail\":\"conflict in a.c hunk 1; fixes [0-9a-f]*, proposed for "
				  "stable in this batch\",\"propose\":true,\"needs\":\\[\"[0-9a-f]\\{40\\}\"\\]'",
				  tmp), 0);
	/* the report shows them too */
	assert_int_equal(test_run("./stablesel report --repo '%s/r' --rev main --threshold 0 --since 2023-11-15 "
				  "--onto stable -o '%s/rep.html' 2>/dev/null && grep -q 'stable: reverted by "
				  "[0-9a-f]\\{12\\}<' '%s/rep.html' && grep -q 'stable: already (in stable as' "
				  "'%s/rep.html'", tmp, tmp, tmp, tmp), 0);
	free(bad_revert);
}

/* Verdicts change what is proposed and --verdicts what is listed; never
 * a score. */
static void test_verdict_filter(void **state)
{
	char *plain, *with, *yes, *already;

	(void)state;
	plain = test_run_output(RANK "--format tsv 2>/dev/null | cut -f1,2 | sort", tmp);
	with = test_run_output(RANK "--onto stable --format tsv 2>/dev/null | cut -f1,2 | sort", tmp);
	assert_string_equal(plain, with);
	/* proposed: only rows some branch takes */
	free(with);
	with = test_run_output(RANK "--onto stable --format tsv 2>/dev/null | awk -F'\\t' "
			       "'NR > 1 && $3 == 1 { print $9 }' | sort -u", tmp);
	assert_true(!strncmp(with, "applies\napplies, needs", 22));
	yes = test_run_output(RANK "--onto stable --verdicts applies --format tsv 2>/dev/null | "
			      "awk -F'\\t' 'NR > 1 { print $4 }' | sort | tr '\\n' ' '", tmp);
	assert_string_equal(yes, "fix-fix fix-intro fix-prep other14 use-helper ");
	already = test_run_output(RANK "--onto stable --verdicts already,no --format tsv 2>/dev/null | "
				  "awk -F'\\t' 'NR > 1 { print $4 }' | sort | tr '\\n' ' '", tmp);
	assert_string_equal(already, "Revert \"bad\" bad dup fix-feat helper prep ");
	/* usage errors */
	assert_int_equal(test_run(RANK "--verdicts maybe --onto stable >/dev/null 2>&1", tmp), 129);
	assert_int_equal(test_run(RANK "--verdicts yes >/dev/null 2>&1", tmp), 129);
	assert_int_equal(test_run("./stablesel rank --threshold 0 --onto stable '%s/none.mbox' "
				  ">/dev/null 2>&1", tmp), 129);
	free(plain);
	free(with);
	free(yes);
	free(already);
}

/* git am the queue of branch onto a clone of it; the commits carry the
 * branch's backport line and no stablesel line. */
static void am_queue(const char *branch, const char *line_re, int n)
{
	assert_int_equal(test_run("rm -rf '%s/am' && git clone -q -b %s '%s/r' '%s/am' && "
				  RANK "--onto stable --onto stable2 --queue-branch %s --format mbox "
				  "-o '%s/q.mbox' 2>/dev/null && "
				  "git -C '%s/am' -c user.name=T -c user.email=t@example.org am -q '%s/q.mbox' && "
				  "test $(git -C '%s/am' rev-list --count origin/%s..HEAD) -eq %d && "
				  "! git -C '%s/am' log --format=%%B origin/%s..HEAD | grep -q stablesel && "
				  "test $(git -C '%s/am' log --format=%%B origin/%s..HEAD | grep -c '%s') -eq %d",
				  tmp, branch, tmp, tmp, tmp, branch, tmp, tmp, tmp, tmp, branch, n, tmp,
				  branch, tmp, branch, line_re, n), 0);
	/* each message names the upstream commit it is */
	assert_int_equal(test_run("cd '%s/am' && for c in $(git rev-list origin/%s..HEAD); do "
				  "u=$(git log -1 --format=%%B $c | grep -o '[0-9a-f]\\{40\\}' | head -1); "
				  "test \"$(git log -1 --format=%%s $c)\" = \"$(git -C ../r log -1 --format=%%s $u)\" "
				  "|| exit 1; done", tmp, branch), 0);
}

static void test_queue_am(void **state)
{
	char *subjects;

	(void)state;
	/* stable: fix-intro, fix-fix (after it), fix-prep, other14, use-helper */
	am_queue("stable", "^\\[ upstream commit [0-9a-f]\\{40\\} \\]$", 5);
	subjects = test_run_output("grep '^Subject:' '%s/q.mbox'", tmp);
	assert_string_equal(subjects,
			    "Subject: [PATCH stablesel stable-stable2 01/5] fix-intro\n"
			    "Subject: [PATCH stablesel stable-stable2 02/5] fix-fix\n"
			    "Subject: [PATCH stablesel stable-stable2 03/5] fix-prep\n"
			    "Subject: [PATCH stablesel stable-stable2 04/5] other14\n"
			    "Subject: [PATCH stablesel stable-stable2 05/5] use-helper\n");
	free(subjects);
	/* the note is below "---": score, reasons, verdicts */
	assert_int_equal(test_run("awk '/^---$/ { below = 1 } /^diff --git/ { below = 0 } "
				  "/^stablesel: / && !below { exit 1 }' '%s/q.mbox' && "
				  "grep -q '^stablesel: stable: applies, needs [0-9a-f]\\{12\\} (conflict in a.c hunk 1' "
				  "'%s/q.mbox'", tmp, tmp), 0);
	/* stable2 writes Linux's style, and takes helper and dup too */
	am_queue("stable2", "^commit [0-9a-f]\\{40\\} upstream\\.$", 7);
	subjects = test_run_output("grep '^Subject:' '%s/q.mbox' | sed 's/.*\\] //' | tr '\\n' ' '", tmp);
	assert_string_equal(subjects, "fix-intro fix-fix fix-prep helper other14 use-helper dup ");
	free(subjects);
	assert_int_equal(test_run("grep -q '^Subject: \\[PATCH stablesel stable2 04/7\\] helper' "
				  "'%s/q.mbox'", tmp), 0);
}

/* A prerequisite that was not ranked is read from the repository and
 * queued first, marked as such. */
static void test_queue_extra(void **state)
{
	char *other = id_of("other14"), *subjects;

	(void)state;
	assert_int_equal(test_run("rm -rf '%s/am' && git clone -q -b stable '%s/r' '%s/am' && "
				  "./stablesel rank --repo '%s/r' --rev %s..main --threshold 0 --onto stable "
				  "--format mbox -o '%s/q.mbox' 2>/dev/null && "
				  "git -C '%s/am' -c user.name=T -c user.email=t@example.org am -q '%s/q.mbox'",
				  tmp, tmp, tmp, tmp, other, tmp, tmp, tmp), 0);
	subjects = test_run_output("grep '^Subject:' '%s/q.mbox' | sed 's/.*\\] //' | tr '\\n' ' '", tmp);
	assert_string_equal(subjects, "other14 use-helper ");
	free(subjects);
	assert_int_equal(test_run("grep -q '^stablesel: prerequisite of [0-9a-f]\\{12\\} for stable; not "
				  "among the ranked commits' '%s/q.mbox'", tmp), 0);
	/* the kernel's line for a commit taken only because another needs it
	 * (issue 35, case 23): in the message, so git am keeps it in the
	 * commit; the pick itself has none */
	{
		char *helper = id_of("use-helper"), *msgs;

		msgs = test_run_output("git -C '%s/am' log --format='%%s|%%(trailers:key=Stable-dep-of,valueonly)' "
				       "origin/stable..HEAD | tr -s '\n' ' '", tmp);
		{
			char want[200];

			snprintf(want, sizeof(want), "use-helper| other14|%.12s (\"use-helper\") ", helper);
			assert_string_equal(msgs, want);
		}
		free(msgs);
		free(helper);
	}
	free(other);
}

/* Commits only mail holds: their verdicts come from their own diff, and
 * the queue applies them from it (a made-up id used to stop rank with
 * "bad revision" when the queue looked it up in the repository). */
static void test_mail_only(void **state)
{
	char *subjects;

	(void)state;
	assert_int_equal(test_run("cd '%s' && rm -rf mc && git clone -q r mc && cd mc && "
				  "sed -i '8s/.*/eight/' d.c && "
				  "git -c user.name=M -c user.email=m@example.org commit -qa -m mail-fix "
				  "-m \"Fixes: $(git log --format=%%h -1 --grep='^introduce$')\" && "
				  "sed -i '9s/.*/nine/' d.c && "
				  "git -c user.name=M -c user.email=m@example.org commit -qa -m mail-next && "
				  "git format-patch -q --stdout -2 > ../mail.mbox && "
				  "test -z \"$(git -C ../r cat-file -t $(git rev-parse HEAD) 2>/dev/null)\"",
				  tmp), 0);
	assert_int_equal(test_run("./stablesel rank --onto-repo '%s/r' --onto stable --threshold 0 "
				  "--format tsv -o '%s/mail.tsv' '%s/mail.mbox' 2>/dev/null",
				  tmp, tmp, tmp), 0);
	expect("mail.tsv", "mail-fix", 9, "applies");
	/* it changes the line before its own context: it needs mail-fix,
	 * which cannot be blamed in a repository that lacks both */
	expect("mail.tsv", "mail-next", 9, "unknown");
	assert_int_equal(test_run("rm -rf '%s/am' && git clone -q -b stable '%s/r' '%s/am' && "
				  "./stablesel rank --onto-repo '%s/r' --onto stable --threshold 0 "
				  "--format mbox -o '%s/q.mbox' '%s/mail.mbox' 2>/dev/null && "
				  "git -C '%s/am' -c user.name=T -c user.email=t@example.org am -q '%s/q.mbox' && "
				  "test \"$(sed -n 8p '%s/am/d.c')\" = eight && "
				  "test $(git -C '%s/am' rev-list --count origin/stable..HEAD) -eq 1",
				  tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp), 0);
	subjects = test_run_output("grep '^Subject:' '%s/q.mbox' | sed 's/.*\\] //'", tmp);
	assert_string_equal(subjects, "mail-fix\n");
	free(subjects);
}

#define S1 "b.c: rename the twelfth line"
#define S2 "a.c: add a helper for the counter"
#define S3 "a.c: fix a crash when the counter overflows"

/* Column col of the TSV row of subject s in tmp/tsv (malloc'd, no newline). */
static char *column_of(const char *tsv, const char *s, int col)
{
	return verdict_of(tsv, s, col);
}

/* A threshold between S3's score and the better of S1's and S2's, so that
 * S3 is the only pick; fails when S3 does not score highest. */
static double series_threshold(const char *tsv)
{
	char *a = column_of(tsv, S1, 2), *b = column_of(tsv, S2, 2), *c = column_of(tsv, S3, 2);
	double lo = atof(a) > atof(b) ? atof(a) : atof(b), hi = atof(c);

	if (!(hi > lo))
		fail_msg("%s scores %g, not above the series' other patches (%g)", S3, hi, lo);
	free(a);
	free(b);
	free(c);
	return (lo + hi) / 2;
}

/* git am tmp/q.mbox onto a clone of stable: n commits, subjects in order. */
static void am_series(int n, const char *subjects)
{
	char *got;

	assert_int_equal(test_run("rm -rf '%s/am' && git clone -q -b stable '%s/r' '%s/am' && "
				  "git -C '%s/am' -c user.name=T -c user.email=t@example.org am -q '%s/q.mbox' && "
				  "test $(git -C '%s/am' rev-list --count origin/stable..HEAD) -eq %d",
				  tmp, tmp, tmp, tmp, tmp, tmp, n), 0);
	got = test_run_output("git -C '%s/am' log --reverse --format=%%s origin/stable..HEAD | tr '\\n' '|'",
			      tmp);
	assert_string_equal(got, subjects);
	free(got);
}

/*
 * A 3-patch series sharing a Link: prefix (queuerepo.sh's series branch):
 * patch 3 changes the file patch 2 changes, so it needs it, though it
 * applies alone; patch 1 changes another file, so it is only a note.  The
 * queue puts patch 2 before 3 when 3 alone is proposed.
 */
static void test_series_link(void **state)
{
	char want[160], *s2 = test_run_output("git -C '%s/r' log --format=%%H -1 --fixed-strings "
					      "--grep='" S2 "' series", tmp);
	char *s3 = test_run_output("git -C '%s/r' log --format=%%H -1 --fixed-strings --grep='" S3 "' series",
				   tmp);
	double t;

	(void)state;
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --rev main..series --threshold 0 --onto stable "
				  "--onto stable2 --format tsv -o '%s/s.tsv' 2>/dev/null", tmp, tmp), 0);
	snprintf(want, sizeof(want), "applies, needs %.12s (series 3/3)", s2);
	expect("s.tsv", S3, 9, want);
	expect("s.tsv", S3, 10, want);
	expect("s.tsv", S2, 9, "applies");
	expect("s.tsv", S1, 9, "applies");
	/* the notes: the place in the series, and why the earlier patch */
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --rev main..series --threshold 0 --onto stable "
				  "--precedents 0 2>/dev/null > '%s/s.txt' && "
				  "grep -q 'stable: applies (.*series 2/3)' '%s/s.txt' && "
				  "grep -q 'stable: applies (.*series 1/3)' '%s/s.txt' && "
				  "grep -q 'stable: applies, needs [0-9a-f]\\{12\\} (series 3/3) (applies; .*; the earlier "
				  "patches of its series named change its files)' '%s/s.txt'",
				  tmp, tmp, tmp, tmp, tmp), 0);
	/* the queue: 3 alone proposed, 2 first as what it needs */
	t = series_threshold("s.tsv");
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --rev main..series --threshold %.6f --onto stable "
				  "--format mbox -o '%s/q.mbox' 2>/dev/null && grep -q '^stablesel: prerequisite of "
				  "%.12s for stable; not proposed on its own' '%s/q.mbox'", tmp, t, tmp, s3, tmp), 0);
	am_series(2, S2 "|" S3 "|");
	free(s2);
	free(s3);
}

/*
 * The same series as mail with no Link:: "[PATCH v2 n/3]" subjects in one
 * thread (2 and 3 reply to 1, which has no cover letter).
 */
static void test_series_mail(void **state)
{
	static const char awk[] =
		"/^From [0-9a-f]+ Mon Sep 17/ { n++; print \"From mboxrd@z Thu Jan  1 00:00:00 1970\"; next }\n"
		"/^From: / { print; print \"Message-ID: <s\" n \"@example.org>\";\n"
		"	if (n > 1) { print \"In-Reply-To: <s1@example.org>\"; print \"References: <s1@example.org>\" }\n"
		"	next }\n"
		"/^Link: / { next }\n"
		"{ print }\n";
	char path[4200], want[160], *s2, *subjects;
	double t;

	(void)state;
	snprintf(path, sizeof(path), "%s/thread.awk", tmp);
	test_write_file(path, awk, sizeof(awk) - 1);
	assert_int_equal(test_run("git -C '%s/r' format-patch --stdout --subject-prefix='PATCH v2' main..series | "
				  "awk -f '%s/thread.awk' > '%s/s.mbox' && test $(grep -c '^Subject: \\[PATCH v2 [123]/3\\]' "
				  "'%s/s.mbox') -eq 3 && ! grep -q '^Link:' '%s/s.mbox'", tmp, tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel rank '%s/s.mbox' --threshold 0 --onto-repo '%s/r' --onto stable "
				  "--format tsv -o '%s/m.tsv' 2>/dev/null", tmp, tmp, tmp), 0);
	s2 = column_of("m.tsv", S2, 1);
	assert_int_equal(strlen(s2), 40);   /* derived from its Message-ID */
	snprintf(want, sizeof(want), "applies, needs %.12s (series 3/3)", s2);
	expect("m.tsv", S3, 9, want);
	expect("m.tsv", S2, 9, "applies");
	/* the queue: 2 before 3; git am applies it */
	t = series_threshold("m.tsv");
	assert_int_equal(test_run("./stablesel rank '%s/s.mbox' --threshold %.6f --onto-repo '%s/r' --onto stable "
				  "--format mbox -o '%s/q.mbox' 2>/dev/null", tmp, t, tmp, tmp), 0);
	subjects = test_run_output("grep '^Subject:' '%s/q.mbox' | sed 's/.*\\] //' | tr '\\n' '|'", tmp);
	assert_string_equal(subjects, S2 "|" S3 "|");
	am_series(2, S2 "|" S3 "|");
	free(subjects);
	free(s2);
}

#define C1 "d.c: rename the eighth line"
#define C2 "d.c: spell the eighth line in capitals"
#define C3 "d.c: fix a crash when the table is empty"

/*
 * A chain (queuerepo.sh's series2): patch 3 conflicts without 2, which
 * conflicts without 1.  Patch 3 needs both; 2 passes as a prerequisite
 * because 1, needed too, changes its conflicting file; the queue of 3
 * alone holds 1, 2, 3 and git am applies it, and 2's own row, queued
 * but not proposed, reads "yes, needs 1" as the queue applies it.
 */
static void test_series_chain(void **state)
{
	char want[160];
	char *c1 = test_run_output("git -C '%s/r' log --format=%%H -1 --fixed-strings --grep='" C1 "' series2", tmp);
	char *c2 = test_run_output("git -C '%s/r' log --format=%%H -1 --fixed-strings --grep='" C2 "' series2", tmp);
	char *a, *b, *c;
	double lo, t;

	(void)state;
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --rev main..series2 --threshold 0 --onto stable "
				  "--format tsv -o '%s/c.tsv' 2>/dev/null", tmp, tmp), 0);
	snprintf(want, sizeof(want), "applies, needs %.12s %.12s (series 3/3)", c2, c1);
	expect("c.tsv", C3, 9, want);
	snprintf(want, sizeof(want), "applies, needs %.12s (series 2/3)", c1);
	expect("c.tsv", C2, 9, want);
	expect("c.tsv", C1, 9, "applies");
	a = column_of("c.tsv", C1, 2);
	b = column_of("c.tsv", C2, 2);
	c = column_of("c.tsv", C3, 2);
	lo = atof(a) > atof(b) ? atof(a) : atof(b);
	if (!(atof(c) > lo))
		fail_msg("%s scores %s, not above the chain's other patches", C3, c);
	t = (lo + atof(c)) / 2;
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --rev main..series2 --threshold %.6f --onto stable "
				  "--format tsv -o '%s/ct.tsv' 2>/dev/null", tmp, t, tmp), 0);
	expect("ct.tsv", C3, 3, "1");
	/* 2 is not proposed (below the threshold) but queued as 3's
	 * prerequisite, and applies after 1 in the queue: it reads "yes,
	 * needs 1" as it does proposed, not "unknown" (its conflict on the
	 * branch as it is); its decision and score stay the model's */
	expect("ct.tsv", C2, 3, "0");
	expect("ct.tsv", C2, 2, b);
	snprintf(want, sizeof(want), "applies, needs %.12s (series 2/3)", c1);
	expect("ct.tsv", C2, 9, want);
	expect("ct.tsv", C1, 3, "0");
	expect("ct.tsv", C1, 9, "applies");
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --rev main..series2 --threshold %.6f --onto stable "
				  "--format mbox -o '%s/q.mbox' 2>/dev/null", tmp, t, tmp), 0);
	am_series(3, C1 "|" C2 "|" C3 "|");
	free(a);
	free(b);
	free(c);
	free(c1);
	free(c2);
}

/*
 * The blame of a conflicting hunk is shared by the branches of one run:
 * rank --onto stable --onto late --onto stable2 (late forked from main at
 * helper, later than the others) gives each branch the verdicts, rows and
 * queue a run onto that branch alone gives, byte for byte; and through
 * the API, the second branch asking for use-helper's prerequisites reuses
 * the first one's blame and still gets its own answer: other14 and helper
 * for stable (no table of what it carries given: its helper backport does
 * not count), other14 alone for late, which has helper.
 */
#define RANK_B "./stablesel rank --repo '%s/rb' --rev main --threshold 0 --since 2023-11-15 "
/* an mbox without what names the other branches (the subject's branch
 * list, their stablesel: notes) */
#define MBOX_OWN "awk -v b='%s:' '/^Subject:/ { next } /^stablesel: [^ ]+: / && $2 != b { next } { print }'"
static void test_blame_shared(void **state)
{
	static const char *const br[] = { "stable", "late", "stable2" };
	ss_check_blame_cache *bc;
	ss_check *ck[2];
	ss_check_result res[2];
	ss_commit *c;
	char *uh = id_of("use-helper"), *o14 = id_of("other14"), *helper = id_of("helper");
	size_t blamed, reused;

	(void)state;
	assert_int_equal(test_run("rm -rf '%s/rb' && cp -r '%s/r' '%s/rb' && git -C '%s/rb' branch late %s",
				  tmp, tmp, tmp, tmp, helper), 0);
	for (int b = 0; b < 3; b++) {
		char *multi, *one;

		multi = test_run_output(RANK_B "--onto stable --onto late --onto stable2 --precedents 0 "
					"2>/dev/null | grep -E '^ +%s: ' && " RANK_B "--onto stable --onto late "
					"--onto stable2 --queue-branch %s --format mbox 2>/dev/null | " MBOX_OWN,
					tmp, br[b], tmp, br[b], br[b]);
		one = test_run_output(RANK_B "--onto %s --precedents 0 2>/dev/null | grep -E '^ +%s: ' && "
				      RANK_B "--onto %s --format mbox 2>/dev/null | " MBOX_OWN,
				      tmp, br[b], br[b], tmp, br[b], br[b]);
		if (strcmp(multi, one))
			fail_msg("%s: with the other branches\n%s\nalone\n%s", br[b], multi, one);
		if (!strstr(one, "needs"))
			fail_msg("%s: no prerequisite named, nothing blamed:\n%s", br[b], one);
		free(multi);
		free(one);
	}
	/* the API: one blame, two answers */
	assert_int_equal(ss_check_blame_cache_new(&bc), 0);
	for (int b = 0; b < 2; b++) {
		ss_check_options co = SS_CHECK_OPTIONS_INIT;
		char path[4200];

		snprintf(path, sizeof(path), "%s/rb", tmp);
		co.rev = b ? "late" : "stable";
		co.blame_cache = bc;
		assert_int_equal(ss_check_open(&ck[b], path, &co), 0);
	}
	for (int b = 0; b < 2; b++) {
		assert_int_equal(ss_check_read_commit(&c, ck[b], uh), 0);
		assert_int_equal(ss_check_commit(&res[b], ck[b], c), 0);
		assert_int_equal(res[b].apply, SS_APPLY_CONFLICT);
		assert_int_equal(ss_check_needs(&res[b], ck[b], uh), 0);
		assert_int_equal(res[b].nneeds, b ? 1 : 2);
		assert_string_equal(res[b].needs[0], o14);
		if (!b)
			assert_string_equal(res[b].needs[1], helper);
		ss_commit_free(c);
	}
	ss_check_blame_cache_stats(bc, &blamed, &reused);
	assert_int_equal(blamed, 1);
	assert_int_equal(reused, 1);
	/* a check of another repository given the cache does not use it */
	{
		ss_check_options co = SS_CHECK_OPTIONS_INIT;
		ss_check *other;
		char path[4200];

		snprintf(path, sizeof(path), "%s/r", tmp);
		co.rev = "stable";
		co.blame_cache = bc;
		assert_int_equal(ss_check_open(&other, path, &co), 0);
		assert_int_equal(ss_check_read_commit(&c, other, uh), 0);
		assert_int_equal(ss_check_commit(&res[0], other, c), 0);
		assert_int_equal(ss_check_needs(&res[0], other, uh), 0);
		assert_int_equal(res[0].nneeds, 2);
		ss_commit_free(c);
		ss_check_free(other);
		ss_check_blame_cache_stats(bc, &blamed, &reused);
		assert_int_equal(blamed + reused, 2);
	}
	ss_check_free(ck[0]);
	ss_check_free(ck[1]);
	ss_check_blame_cache_free(bc);
	free(uh);
	free(o14);
	free(helper);
	test_run("rm -rf '%s/rb'", tmp);
}

/*
 * A Fixes: target that reached the branch only as a cherry-pick without a
 * line (queuerepo.sh's dup, "d.c: fifteen" on stable) counts as carried:
 * a fix of dup ranked alone (dup outside the batch) is needed on stable,
 * "which reached stable as <the cherry-pick>", and not on stable2; the
 * same verdicts read from the branches and from the project index.
 */
static void test_target_patch_id(void **state)
{
	char *dup = id_of("dup"), *pick, *rows, *rows_ix, *why;
	char want[200];

	(void)state;
	assert_int_equal(test_run("rm -rf '%s/rf' && cp -a '%s/r' '%s/rf' && cd '%s/rf' && "
				  "git checkout -q -b fixdup main && sed -i '15s/.*/FIFTEEN/' d.c && "
				  "git -c user.name=A -c user.email=a@example.org commit -qa -m 'd.c: fix fifteen' "
				  "-m 'The fifteenth line overflows.' -m 'Fixes: %.12s (\"dup\")'",
				  tmp, tmp, tmp, tmp, dup), 0);
	pick = test_run_output("git -C '%s/rf' log --format=%%H -1 --grep='^d.c: fifteen$' stable", tmp);
	assert_int_equal(strlen(pick), 41);
	rows = test_run_output("./stablesel rank --repo '%s/rf' --no-index --rev main..fixdup --threshold 0 "
			       "--onto stable --onto stable2 --format tsv 2>/dev/null | cut -f4,9-", tmp);
	assert_string_equal(rows, "subject\tstable\tstable2\n"
				  "d.c: fix fifteen\tapplies\tunaffected: bug not in branch\n");
	why = test_run_output("./stablesel rank --repo '%s/rf' --no-index --rev main..fixdup --threshold 0 "
			      "--onto stable 2>/dev/null | grep -E '^ +stable: '", tmp);
	snprintf(want, sizeof(want), "fixes %.12s, which reached stable as %.12s", dup, pick);
	if (!strstr(why, want))
		fail_msg("expected '%s' in: %s", want, why);
	/* from the index: the same rows */
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s/rf' >/dev/null 2>&1", tmp), 0);
	rows_ix = test_run_output("./stablesel rank --repo '%s/rf' --rev main..fixdup --threshold 0 "
				  "--onto stable --onto stable2 --format tsv 2>/dev/null | cut -f4,9-", tmp);
	assert_string_equal(rows_ix, rows);
	free(rows_ix);
	free(rows);
	free(why);
	free(pick);
	free(dup);
	test_run("rm -rf '%s/rf'", tmp);
}

/*
 * systemd's ways of naming the commit a fix is for (issue 23.10), taken
 * from real messages: "Fixes <sha>" without a colon, "Follow-up for:
 * <sha>" in a body paragraph, "Follow-up-for: <sha>"; each names feat,
 * which stable never had.  "Fixes: #N" names an issue and no commit.
 */
static void test_systemd_trailers(void **state)
{
	char *feat = id_of("feat"), *rows;

	(void)state;
	assert_int_equal(test_run("rm -rf '%s/rs' && cp -a '%s/r' '%s/rs' && cd '%s/rs' && "
				  "git checkout -q -b sd main && C='git -c user.name=A -c user.email=a@example.org "
				  "commit -qa' && "
				  "sed -i '7s/.*/SEVEN/' b.c && $C -m 'b.c: fix seven' -m 'Fixes %s' && "
				  "sed -i '8s/.*/EIGHT/' b.c && $C -m 'b.c: fix eight' -m 'More entries.' "
				  "-m 'Follow-up for: %.12s' -m 'Sniff.' && "
				  "sed -i '9s/.*/NINE/' b.c && $C -m 'b.c: fix nine' -m 'Either.' "
				  "-m 'Follow-up-for: %s' && "
				  "sed -i '19s/.*/NINETEEN/' d.c && $C -m 'd.c: fix nineteen' -m 'Retry.' -m 'Fixes: #30425'",
				  tmp, tmp, tmp, tmp, feat, feat, feat), 0);
	rows = test_run_output("./stablesel rank --repo '%s/rs' --no-index --rev main..sd --threshold 0 "
			       "--onto stable --format tsv 2>/dev/null | cut -f4,9- | sort", tmp);
	assert_string_equal(rows, "b.c: fix eight\tunaffected: bug not in branch\n"
				  "b.c: fix nine\tunaffected: bug not in branch\n"
				  "b.c: fix seven\tunaffected: bug not in branch\n"
				  "d.c: fix nineteen\tapplies\n"
				  "subject\tstable\n");
	free(rows);
	/* the same from the project index */
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s/rs' >/dev/null 2>&1", tmp), 0);
	rows = test_run_output("./stablesel rank --repo '%s/rs' --rev main..sd --threshold 0 "
			       "--onto stable --format tsv 2>/dev/null | cut -f4,9- | sort", tmp);
	assert_string_equal(rows, "b.c: fix eight\tunaffected: bug not in branch\n"
				  "b.c: fix nine\tunaffected: bug not in branch\n"
				  "b.c: fix seven\tunaffected: bug not in branch\n"
				  "d.c: fix nineteen\tapplies\n"
				  "subject\tstable\n");
	free(rows);
	free(feat);
	test_run("rm -rf '%s/rs'", tmp);
}

/*
 * The queue mbox cannot be steered by a message (issue 24.11): a message
 * line "From <sha> Mon Sep 17 00:00:00 2001" followed by forged headers
 * is escaped (mboxrd), a diff quoted in a message and a "---" line (git am
 * would end the message there and drop the trailers after it) are
 * indented; the note says so.  git am --patch-format=mboxrd of the queue
 * gives one commit per pick, by the real author, with every trailer.
 */
static void test_queue_hostile_messages(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(test_run(
		"rm -rf '%s/h' '%s/ham' && mkdir '%s/h' && cd '%s/h' && git init -q -b main && "
		"C='git -c user.name=Ann -c user.email=ann@example.org' && "
		"seq 1 30 > a.c && $C add a.c && $C commit -qm base && "
		"sed -i 3s/.*/THREE/ a.c && $C commit -qam 'a.c: fix three' "
		"-m 'It crashed.' "
		"-m \"$(printf 'From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\\n"
		"From: Mallory <mallory@evil.example>\\nSubject: [PATCH] evil\\n\\n>From an old mbox')\" "
		"-m 'Signed-off-by: Ann <ann@example.org>' && "
		"sed -i 13s/.*/THIRTEEN/ a.c && $C commit -qam 'a.c: fix thirteen' "
		"-m \"$(printf 'The bad change was:\\n\\ndiff --git a/a.c b/a.c\\n--- a/a.c\\n+++ b/a.c\\n"
		"@@ -20 +20 @@\\n-20\\n+TWENTY')\" -m 'Signed-off-by: Ann <ann@example.org>' && "
		"sed -i 25s/.*/TWENTYFIVE/ a.c && $C commit -qam 'a.c: fix twenty-five' "
		"-m 'Crashes on boot.' -m \"$(printf -- '---\\nFixes: 0123456789ab (\\\"x\\\")')\" "
		"-m 'Signed-off-by: Ann <ann@example.org>'",
		tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel rank --repo '%s/h' --no-index --rev main~3..main --threshold 0 "
				  "--format mbox -o '%s/h.mbox' 2>/dev/null && "
				  "test $(grep -c '^From [0-9a-f]\\{40\\} Mon Sep 17' '%s/h.mbox') -eq 3",
				  tmp, tmp, tmp), 0);
	assert_int_equal(test_run("grep -q '^stablesel: message lines starting \"From \" escaped' '%s/h.mbox' && "
				  "grep -q '^stablesel: message lines git am takes for the patch' '%s/h.mbox' && "
				  "grep -q '^ diff --git a/a.c b/a.c$' '%s/h.mbox' && grep -q '^ ---$' '%s/h.mbox'",
				  tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("git clone -q '%s/h' '%s/ham' && git -C '%s/ham' reset -q --hard main~3 && "
				  "git -C '%s/ham' -c user.name=T -c user.email=t@example.org "
				  "am -q --patch-format=mboxrd '%s/h.mbox'", tmp, tmp, tmp, tmp, tmp), 0);
	/* three commits, all Ann's, no forged one; the tree as upstream's */
	out = test_run_output("git -C '%s/ham' log --format='%%an %%s' main~3..HEAD", tmp);
	assert_int_equal(strlen(out) > 0, 1);
	assert_null(strstr(out, "Mallory"));
	assert_null(strstr(out, "evil"));
	free(out);
	assert_int_equal(test_run("test $(git -C '%s/ham' rev-list --count HEAD~3..HEAD) -eq 3 && "
				  "test -z \"$(git -C '%s/ham' log --format=%%an HEAD~3..HEAD | grep -v '^Ann$')\" && "
				  "git -C '%s/ham' diff --quiet HEAD '%s/h' 2>/dev/null || "
				  "git -C '%s/ham' diff --quiet HEAD origin/main", tmp, tmp, tmp, tmp, tmp), 0);
	/* the messages: the From line back as it was, every trailer kept */
	out = test_run_output("git -C '%s/ham' log --format=%%B HEAD~3..HEAD", tmp);
	assert_non_null(strstr(out, "\nFrom 0123456789abcdef0123456789abcdef01234567 Mon Sep 17"));
	assert_non_null(strstr(out, "\n>From an old mbox"));
	assert_non_null(strstr(out, "\n diff --git a/a.c b/a.c\n"));
	assert_non_null(strstr(out, "\n ---\nFixes: 0123456789ab"));
	assert_int_equal(test_run("test $(git -C '%s/ham' log --format=%%B HEAD~3..HEAD | "
				  "grep -c '^Signed-off-by: Ann') -eq 3", tmp), 0);
	free(out);
	test_run("rm -rf '%s/h' '%s/ham'", tmp, tmp);
}

/* The table a project index can fill instead of the branch. */
static void test_carried(void **state)
{
	ss_carried *cr;
	const char *id;
	ss_commit *c = ss_commit_new();
	static const char msg[] = "net: fix\n\ncommit 0123456789abcdef0123456789abcdef01234567 upstream.\n";

	(void)state;
	assert_int_equal(ss_carried_new(&cr), 0);
	assert_int_equal(ss_carried_style(cr), SS_BACKPORT_DPDK);
	assert_int_equal(ss_carried_find(&id, cr, "0123456789abcdef0123456789abcdef01234567", 0),
			 SS_CARRIED_NONE);
	assert_null(id);
	assert_int_equal(ss_carried_add(cr, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 42,
					"1111111111111111111111111111111111111111"), 0);
	assert_int_equal(ss_carried_find(&id, cr, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0),
			 SS_CARRIED_LINE);
	assert_string_equal(id, "1111111111111111111111111111111111111111");
	assert_int_equal(ss_carried_find(&id, cr, NULL, 42), SS_CARRIED_PATCH);
	assert_int_equal(ss_carried_find(&id, cr, "aaaaaaaaaaaaaaaa0000000000000000000000000", 43),
			 SS_CARRIED_NONE);
	/* a commit with a Linux line: found, and the style learnt */
	snprintf(c->id, sizeof(c->id), "2222222222222222222222222222222222222222");
	assert_int_equal(ss_commit_set_message(c, msg, strlen(msg)), 0);
	assert_int_equal(ss_carried_add_commit(cr, c), 0);
	assert_int_equal(ss_carried_find(&id, cr, "0123456789abcdef0123456789abcdef01234567", 0),
			 SS_CARRIED_LINE);
	assert_string_equal(id, c->id);
	assert_int_equal(ss_carried_style(cr), SS_BACKPORT_LINUX);
	assert_int_equal(ss_carried_commits(cr), 2);   /* the one added, the one read */
	assert_int_equal(ss_carried_lines(cr), 2);
	{
		char line[80];

		ss_backport_line(line, sizeof(line), SS_BACKPORT_UPSTREAM, "abc");
		assert_string_equal(line, "[ Upstream commit abc ]");
		ss_backport_line(line, sizeof(line), SS_BACKPORT_DPDK, "abc");
		assert_string_equal(line, "[ upstream commit abc ]");
	}
	ss_commit_free(c);
	ss_carried_free(cr);
	ss_carried_free(NULL);
}

/* A checkout of the stable branch has it as HEAD: a warning says that
 * none of its commits are read as backports, and --onto-upstream fixes it. */
static void test_upstream_warning(void **state)
{
	char *n;

	(void)state;
	assert_int_equal(test_run("rm -rf '%s/co' && git clone -q -b stable '%s/r' '%s/co' && "
				  "git -C '%s/co' branch -q main origin/main", tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel rank --repo '%s/co' --rev main --threshold 0 --since 2023-11-15 "
				  "--onto stable --format tsv -o /dev/null 2>'%s/err' && grep -q "
				  "'warning: HEAD (the repository.s HEAD) is in stable: none of the branch.s commits' "
				  "'%s/err'", tmp, tmp, tmp), 0);
	n = test_run_output("./stablesel rank --repo '%s/co' --rev main --threshold 0 --since 2023-11-15 "
			    "--onto stable --onto-upstream main --format tsv 2>/dev/null | "
			    "awk -F'\\t' '$9 == \"already\"' | wc -l", tmp);
	assert_string_equal(n, "3\n");   /* prep, helper, dup */
	free(n);
}

/* A copy of the repository (ri) with its project index built: the other
 * tests see no index in r. */
static void make_indexed_copy(void)
{
	assert_int_equal(test_run("test -d '%s/ri' || { cp -a '%s/r' '%s/ri' && "
				  "./stablesel index --no-progress --repo '%s/ri' >/dev/null 2>&1; }",
				  tmp, tmp, tmp, tmp), 0);
}

/* Without --onto, --onto-repo (or --verdicts with --repo) takes every
 * stable branch of the project index, each once, and says which. */
static void test_index_default_onto(void **state)
{
	char *err, *head;

	(void)state;
	make_indexed_copy();
	/* origin/stable behind stable: a copy, counted once (issue 23 item
	 * 3): the index reads stable only; one column */
	assert_int_equal(test_run("rm -rf '%s/rd' && cp -a '%s/ri' '%s/rd' && "
				  "git -C '%s/rd' update-ref refs/remotes/origin/stable stable~1 && "
				  "./stablesel index --no-progress --repo '%s/rd' >/dev/null 2>&1 && "
				  "sqlite3 '%s/rd/.git/stablesel/index.db' \"SELECT value FROM meta WHERE "
				  "key = 'role:origin/stable'\" | grep -qx copy", tmp, tmp, tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("sqlite3 '%s/rd/.git/stablesel/index.db' \"SELECT name FROM refs WHERE "
				  "kind = 'stable'\" | grep -qx origin/stable", tmp), 1);
	assert_int_equal(test_run("./stablesel rank --repo '%s/rd' --rev main --threshold 0 --since 2023-11-15 "
				  "--onto-repo '%s/rd' --format tsv -o '%s/d.tsv' 2>'%s/d.err'", tmp, tmp, tmp, tmp), 0);
	head = test_run_output("head -1 '%s/d.tsv' | cut -f9-", tmp);
	assert_string_equal(head, "stable2\tstable\n");
	free(head);
	err = test_run_output("grep '^note: stable branches' '%s/d.err'", tmp);
	assert_non_null(strstr(err, "stablesel/index.db': stable2 stable\n"));
	free(err);
	/* the same verdicts as the branches named */
	assert_int_equal(test_run("./stablesel rank --repo '%s/rd' --rev main --threshold 0 --since 2023-11-15 "
				  "--onto stable2 --onto stable --format tsv 2>/dev/null | cmp -s - '%s/d.tsv'",
				  tmp, tmp), 0);
	/* --verdicts with --repo alone */
	assert_int_equal(test_run("./stablesel rank --repo '%s/ri' --rev main --threshold 0 --since 2023-11-15 "
				  "--verdicts already --format tsv 2>/dev/null | awk -F'\\t' 'NR > 1 { print $4 }' "
				  "| sort | tr '\\n' ' ' | grep -qx 'dup helper prep '", tmp), 0);
	/* no index: the usage error stays; --onto-repo alone gives no verdicts */
	assert_int_equal(test_run("./stablesel rank --repo '%s/ri' --no-index --rev main --threshold 0 "
				  "--verdicts yes >/dev/null 2>&1", tmp), 129);
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --rev main --threshold 0 "
				  "--verdicts yes >/dev/null 2>&1", tmp), 129);
	head = test_run_output("./stablesel rank --repo '%s/r' --rev main --threshold 0 --onto-repo '%s/r' "
			       "--format tsv 2>/dev/null | head -1 | cut -f9-", tmp, tmp);
	assert_string_equal(head, "\n");
	free(head);
	/* --db names the index of another copy */
	assert_int_equal(test_run("./stablesel rank --repo '%s/r' --db '%s/ri/.git/stablesel/index.db' "
				  "--rev main --threshold 0 --onto-repo '%s/r' --format tsv 2>/dev/null | "
				  "head -1 | grep -q '\tstable2\tstable$'", tmp, tmp, tmp), 0);
}

/* The verdicts' lines of rank's text (verdict and why) and the heads of
 * both branches' queues (subjects, backport lines, notes), ranking with
 * RANK's options (dir the test's folder) and extra. */
static char *verdict_lines(const char *dir, const char *extra)
{
	return test_run_output(RANK "--onto stable --onto stable2 --precedents 0 %s 2>/dev/null | "
			       "grep -E '^ +stable2?: ' && "
			       RANK "--onto stable --onto stable2 %s --format mbox --queue-branch stable 2>/dev/null | "
			       "grep -E '^(From [0-9a-f]|Subject:|\\[ upstream commit|stablesel: stable)' && "
			       RANK "--onto stable --onto stable2 %s --format mbox --queue-branch stable2 2>/dev/null | "
			       "grep -E '^(From [0-9a-f]|Subject:|commit [0-9a-f]* upstream)'",
			       dir, extra, dir, extra, dir, extra);
}

/* What the branches carry, from the index, gives the verdicts reading
 * the branches gives; a stale index is not used. */
static void test_index_carried(void **state)
{
	char *from_index, *from_branch, *err, *rows1, *rows2;
	char repo[4200];

	(void)state;
	make_indexed_copy();
	/* RANK reads --repo '<tmp>/r': the copy is named as <tmp>/ri via the
	 * last --repo */
	snprintf(repo, sizeof(repo), "--repo '%s/ri'", tmp);
	from_index = verdict_lines(tmp, repo);
	snprintf(repo, sizeof(repo), "--repo '%s/ri' --no-index", tmp);
	from_branch = verdict_lines(tmp, repo);
	assert_non_null(strstr(from_index, "stable: already (in stable as "));
	assert_non_null(strstr(from_index, "the same patch)"));
	assert_non_null(strstr(from_index, "[ upstream commit "));
	assert_string_equal(from_index, from_branch);
	free(from_index);
	free(from_branch);
	/* check --prereqs: the same rows from the index */
	rows1 = test_run_output("./stablesel check --prereqs --onto-repo '%s/ri' --onto stable --repo '%s/ri' "
				"--rev main 2>/dev/null", tmp, tmp);
	rows2 = test_run_output("./stablesel check --prereqs --no-index --onto-repo '%s/ri' --onto stable "
				"--repo '%s/ri' --rev main 2>/dev/null", tmp, tmp);
	assert_non_null(strstr(rows1, "\tbackport "));
	assert_string_equal(rows1, rows2);
	free(rows1);
	free(rows2);
	/* stale: stable moved after the index was built; read from the branch */
	assert_int_equal(test_run("rm -rf '%s/rs' && cp -a '%s/ri' '%s/rs' && git -C '%s/rs' branch -f "
				  "stable stable~1", tmp, tmp, tmp, tmp), 0);
	snprintf(repo, sizeof(repo), "--repo '%s/rs'", tmp);
	from_index = verdict_lines(tmp, repo);
	snprintf(repo, sizeof(repo), "--repo '%s/rs' --no-index", tmp);
	from_branch = verdict_lines(tmp, repo);
	assert_string_equal(from_index, from_branch);
	/* stable~1 lacks "stable only", nothing else: dup is still there */
	assert_non_null(strstr(from_index, "stable: already (in stable as "));
	free(from_index);
	free(from_branch);
	err = test_run_output(RANK "--repo '%s/rs' --onto stable --onto stable2 --format tsv 2>&1 >/dev/null",
			      tmp, tmp);
	assert_non_null(strstr(err, "warning: index '"));
	assert_non_null(strstr(err, "' is stale for stable (read up to "));
	assert_null(strstr(err, "is stale for stable2"));
	free(err);
	err = test_run_output("./stablesel check --prereqs --onto-repo '%s/rs' --onto stable --repo '%s/rs' "
			      "--rev main 2>&1 >/dev/null", tmp, tmp);
	assert_non_null(strstr(err, "' is stale for stable (read up to "));
	free(err);
}

static int feed_row(const ss_index_backport *b, void *ud)
{
	ss_carried *cr = ud;

	return ss_carried_add(cr, b->how && !strcmp(b->how, "line") ? b->upstream : NULL,
			      b->patch_id ? ss_hexid_key(b->patch_id) : 0, b->commit);
}

/* The table filled from the index's rows of a branch answers as the
 * table read from the branch, for every commit of main. */
static void test_index_branch_rows(void **state)
{
	static const char *const branches[] = { "stable", "stable2" };
	char path[4200], repo[4200];
	ss_index *ix;

	(void)state;
	make_indexed_copy();
	snprintf(path, sizeof(path), "%s/ri/.git/stablesel/index.db", tmp);
	snprintf(repo, sizeof(repo), "%s/ri", tmp);
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	for (size_t b = 0; b < 2; b++) {
		ss_source_options so = SS_SOURCE_OPTIONS_INIT;
		const char *revs[1] = { "main" };
		ss_carried *fed, *read;
		ss_source *src;
		ss_commit *c;
		size_t found = 0;

		assert_int_equal(ss_carried_new(&fed), 0);
		assert_int_equal(ss_carried_new(&read), 0);
		assert_int_equal(ss_index_for_each_branch_commit(ix, branches[b], feed_row, fed), 0);
		assert_int_equal(ss_carried_read(read, repo, branches[b], "main"), 0);
		assert_int_equal(ss_carried_commits(fed), ss_carried_commits(read));
		assert_int_equal(ss_carried_lines(fed), ss_carried_lines(read));
		so.repo = repo;
		so.revs = revs;
		so.nrevs = 1;
		assert_int_equal(ss_source_open(&src, repo, &so), 0);
		while (ss_source_next(&c, src) == 0) {
			const char *a, *r;
			uint64_t key = ss_commit_patch_key(c);
			ss_carried_how ha = ss_carried_find(&a, fed, c->id, key);

			assert_int_equal(ha, ss_carried_find(&r, read, c->id, key));
			if (ha != SS_CARRIED_NONE) {
				assert_string_equal(a, r);
				found++;
			}
			ss_commit_free(c);
		}
		ss_source_free(src);
		/* stable: prep, helper by line, dup by patch; stable2: prep */
		assert_int_equal(found, b ? 1 : 3);
		ss_carried_read_style(fed, repo, branches[b], "main");
		assert_int_equal(ss_carried_style(fed), b ? SS_BACKPORT_LINUX : SS_BACKPORT_DPDK);
		/* the style from the rows' messages, no walk: the walk's */
		{
			git_repository *g = NULL;
			ss_carried *learned, *bad;

			assert_int_equal(git_libgit2_init() > 0, 1);
			assert_int_equal(git_repository_open(&g, repo), 0);
			assert_int_equal(ss_carried_new(&learned), 0);
			assert_int_equal(ss_index_for_each_branch_commit(ix, branches[b], feed_row, learned),
					 0);
			assert_int_equal(ss_carried_learn_style(learned, g), 0);
			assert_int_equal(ss_carried_style(learned), ss_carried_style(read));
			assert_int_equal(ss_carried_style(learned), ss_carried_style(fed));
			/* a row's commit the repository lacks: an error, no style */
			assert_int_equal(ss_carried_new(&bad), 0);
			assert_int_equal(ss_index_for_each_branch_commit(ix, branches[b], feed_row, bad), 0);
			assert_int_equal(ss_carried_add(bad, NULL, 0, "00000000000000000000000000000000000000aa"),
					 0);
			assert_true(ss_carried_learn_style(bad, g) < 0);
			assert_non_null(strstr(ss_error_last(), "cannot read branch commit 000000000000"));
			assert_int_equal(ss_carried_style(bad), SS_BACKPORT_DPDK);
			ss_error_clear();
			ss_carried_free(bad);
			ss_carried_free(learned);
			git_repository_free(g);
			git_libgit2_shutdown();
		}
		ss_carried_free(fed);
		ss_carried_free(read);
	}
	ss_index_free(ix);
}

struct text {
	char *s;
	size_t n;
};

static void text_add(struct text *t, const char *line)
{
	size_t len = strlen(line);

	assert_non_null(t->s = realloc(t->s, t->n + len + 1));
	memcpy(t->s + t->n, line, len + 1);
	t->n += len;
}

static int path_line(const char *path, int64_t first, void *ud)
{
	char line[4200];

	snprintf(line, sizeof(line), "%s\t%lld\n", path, (long long)first);
	text_add(ud, line);
	return 0;
}

static int commit_line(const ss_histidx_commit *c, void *ud)
{
	char line[100];

	snprintf(line, sizeof(line), "%s\t%d\t%d\n", c->id, c->has_fixes, c->is_revert);
	text_add(ud, line);
	return 0;
}

/*
 * The history's commits and paths as the index reads them (joined in
 * memory, index_read.c) are SQLite's joins to the row and order: the
 * paths with their oldest mainline author time, GROUP BY path; each
 * mainline commit with whether it has a Fixes: and a revert trailer.
 * Rows added so that each case is there: a revert trailer, a file of a
 * commit the index does not have, one of a commit off the mainline.
 */
static void test_index_joins(void **state)
{
	char path[4200];
	struct text got = { NULL, 0 };
	ss_index *ix;
	char *want;

	(void)state;
	make_indexed_copy();
	snprintf(path, sizeof(path), "%s/rj.db", tmp);
	assert_int_equal(test_run("cp '%s/ri/.git/stablesel/index.db' '%s' && sqlite3 '%s' \""
				  "INSERT INTO trailers(commit_id, kind, value) SELECT id, 'reverts', 'x' "
				  " FROM commits WHERE mainline = 1 ORDER BY id LIMIT 2;"
				  "INSERT INTO files VALUES('00000000000000000000000000000000000000aa', 'zz.c', 1, 0);"
				  "INSERT INTO files SELECT id, 'off.c', 1, 0 FROM commits WHERE mainline = 0 LIMIT 1;"
				  "\"", tmp, path, path), 0);
	assert_int_equal(test_run("test $(sqlite3 '%s' \"SELECT count(*) FROM commits WHERE mainline = 0\") "
				  "-gt 0 && test $(sqlite3 '%s' \"SELECT count(*) FROM trailers WHERE "
				  "kind = 'fixes'\") -gt 0", path, path), 0);
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_for_each_path(ix, path_line, &got), 0);
	want = test_run_output("sqlite3 -separator '\t' '%s' \"SELECT f.path, min(c.author_time) FROM files f"
			       " JOIN commits c ON c.id = f.commit_id WHERE c.mainline = 1 GROUP BY f.path\"",
			       path);
	assert_non_null(got.s);
	assert_non_null(strstr(want, "\n"));
	assert_null(strstr(want, "zz.c"));
	assert_string_equal(got.s, want);
	free(want);
	free(got.s);
	got.s = NULL;
	got.n = 0;
	assert_int_equal(ss_index_for_each_commit(ix, commit_line, &got), 0);
	want = test_run_output("sqlite3 -separator '\t' '%s' \"SELECT c.id, EXISTS(SELECT 1 FROM trailers t "
			       "WHERE t.commit_id = c.id AND t.kind = 'fixes'), EXISTS(SELECT 1 FROM "
			       "trailers t WHERE t.commit_id = c.id AND t.kind = 'reverts') FROM commits c "
			       "WHERE c.mainline = 1\"", path);
	assert_non_null(strstr(want, "\t1\n"));
	assert_non_null(strstr(want, "\t1\t0\n"));
	assert_string_equal(got.s, want);
	free(want);
	free(got.s);
	ss_index_free(ix);
}

/*
 * DPDK: v20.11..v21.02 ranked onto the 20.11 branch as it stood on
 * 2022-03-17: every commit a backport line of the branch names is
 * "already", and none is proposed.
 */
static void test_dpdk_already(void **state)
{
	char *bad, *n;

	(void)state;
	SS_REQUIRE_DATA();
	assert_int_equal(test_run("mkdir -p '%s/dpdk' && tar -xf '%s/dpdk/dpdk-v22.03.git.tar' -C '%s/dpdk'",
				  tmp, test_data_dir(), tmp), 0);
	assert_int_equal(test_run("git -C '%s/dpdk/dpdk.git' log --format=%%B v20.11..20.11 | "
				  "grep -oiE '(upstream commit|cherry picked from commit) [0-9a-f]{40}' | "
				  "grep -oE '[0-9a-f]{40}' | sort -u > '%s/carried'", tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s/dpdk/dpdk.git' --rev v20.11..v21.02 "
				  "--threshold 0 --onto 20.11 --format tsv 2>/dev/null | awk -F'\t' 'NR > 1 "
				  "{ print $1 \"\t\" $3 \"\t\" $9 }' | sort > '%s/rows'", tmp, tmp), 0);
	/* the carried commits among the rows: all already, none proposed */
	n = test_run_output("join -t '\t' '%s/rows' '%s/carried' | wc -l", tmp, tmp);
	assert_true(atoi(n) >= 300);
	bad = test_run_output("join -t '\t' '%s/rows' '%s/carried' | awk -F'\t' "
			      "'$3 != \"already\" || $2 != 0'", tmp, tmp);
	assert_string_equal(bad, "");
	free(bad);
	free(n);
}

/* check --prereqs reads the branch's backports: a commit carried under
 * another id says so and is not blamed; a carried prerequisite is not
 * named. */
static void test_check_backports(void **state)
{
	char *rows, *other = id_of("other14"), *prep = id_of("prep");
	char want[64];

	(void)state;
	rows = test_run_output("./stablesel check --prereqs --onto-repo '%s/r' --onto stable --repo '%s/r' "
			       "--rev main 2>'%s/err' | awk -F'\\t' '{ print $NF \"|\" $5 \"|\" $6 }'",
			       tmp, tmp, tmp);
	assert_non_null(strstr(rows, "\nprep||backport "));
	assert_non_null(strstr(rows, "\nhelper||backport "));
	assert_non_null(strstr(rows, "\ndup||backport "));
	/* its target reached stable as a backport: the bug is there */
	assert_non_null(strstr(rows, "\nfix-prep||no\n"));
	snprintf(want, sizeof(want), "use-helper|%.12s|no\n", other);
	assert_non_null(strstr(rows, want));
	free(rows);
	{
		char path[4200];

		snprintf(path, sizeof(path), "%s/err", tmp);
		rows = test_read_file(path, NULL);
	}
	assert_non_null(strstr(rows, "3 carried as backports"));
	free(rows);
	assert_int_equal(test_run("./stablesel check --prereqs --onto-repo '%s/r' --onto stable --repo '%s/r' "
				  "--rev main 2>/dev/null | awk -F'\\t' '$NF == \"fix-prep\" && $7 == \"yes\"' | "
				  "grep -q .", tmp, tmp), 0);
	/* without --prereqs: no reading of the branch */
	rows = test_run_output("./stablesel check --onto-repo '%s/r' --onto stable --repo '%s/r' --rev main "
			       "2>/dev/null | grep -c backport || true", tmp, tmp);
	assert_string_equal(rows, "0\n");
	free(rows);
	free(other);
	free(prep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_carried),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_verdict_filter),
		cmocka_unit_test(test_queue_am),
		cmocka_unit_test(test_queue_extra),
		cmocka_unit_test(test_mail_only),
		cmocka_unit_test(test_series_link),
		cmocka_unit_test(test_series_mail),
		cmocka_unit_test(test_series_chain),
		cmocka_unit_test(test_blame_shared),
		cmocka_unit_test(test_target_patch_id),
		cmocka_unit_test(test_systemd_trailers),
		cmocka_unit_test(test_queue_hostile_messages),
		cmocka_unit_test(test_upstream_warning),
		cmocka_unit_test(test_check_backports),
		cmocka_unit_test(test_index_branch_rows),
		cmocka_unit_test(test_index_joins),
		cmocka_unit_test(test_index_default_onto),
		cmocka_unit_test(test_index_carried),
		cmocka_unit_test(test_dpdk_already),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
