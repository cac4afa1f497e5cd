/*
 * test_review.c - the maintainer's review (docs/review.md): the loop of
 * rank/review_loop.h on its own (keys in, decisions and screen out: accept,
 * reject with a note, defer, skip, diff, explanation, undo, help, quit);
 * "stablesel review" through a pseudo-terminal (forkpty) on
 * tests/queuerepo.sh's repository, with Ctrl-C in the middle keeping the
 * decisions made, and refused without a terminal; --export/--import (a
 * round trip, stable order, merge by time with conflicts listed, a
 * malformed file one error and nothing written); --failed-mail, whose
 * commands, run as written in a clone, reproduce the failure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rank/review_loop.h"
#include "util/error.h"
#include "testqueue.h"

/* ------------------------------------------------------------------ */
/* The loop on its own. */

struct log {
	char text[4096];
	int fail_next;
};

static int on_decide(const ss_review_item *it, ss_decision_state state, const char *note,
		     const char *until, void *ud)
{
	struct log *l = ud;
	size_t len = strlen(l->text);

	if (l->fail_next) {
		l->fail_next = 0;
		return ss_error_set("index is locked");
	}
	snprintf(l->text + len, sizeof(l->text) - len, "%s %s [%s] [%s]\n", it->subject,
		 ss_decision_state_name(state), note,
		 until);
	return 0;
}

static int on_undo(const ss_review_item *it, void *ud)
{
	struct log *l = ud;
	size_t len = strlen(l->text);

	snprintf(l->text + len, sizeof(l->text) - len, "%s undone\n", it->subject);
	return 0;
}

static const char diff1[] =
	"diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,2 +1,2 @@\n-old\n+new\n ctx\n"
	"diff --git a/b.c b/b.c\n--- a/b.c\n+++ b/b.c\n@@ -1 +1,2 @@\n x\n+added\n";

static void test_loop(void **state)
{
	ss_review_item items[5];
	const ss_review_ops ops = { on_decide, on_undo };
	struct log l = { "", 0 };
	ss_review *rv;
	size_t counts[SS_REVIEW_NCOUNTS];
	const char *s;

	(void)state;
	for (int i = 0; i < 4; i++) {
		static const char *const subjects[] = { "one", "two", "three", "four" };

		items[i] = (ss_review_item){ .id = "0123456789abcdef0123456789abcdef01234567",
					     .subject = subjects[i], .author = "Ann <ann@example.org>",
					     .date = "2023-11-15", .score = 0.9f - 0.1f * (float)i,
					     .band = "likely", .verdicts = "21.11: applies\n", .conflict = "",
					     .flags = "fixes 1234", .reasons = "  +0.500 fixes\n",
					     .message = "one\n\nFixes: 1234\n", .diff = diff1 };
	}
	assert_int_equal(ss_review_new(&rv, items, 4, "21.11", &ops, &l), 0);
	s = ss_review_screen(rv);
	assert_non_null(strstr(s, "[1/4] 0123456789ab one\n"));
	assert_non_null(strstr(s, "score 0.900, band likely (the model's)"));
	assert_non_null(strstr(s, "  21.11: applies\n"));
	assert_non_null(strstr(s, "why: fixes 1234"));
	assert_non_null(strstr(s, " a.c | +1 -1\n b.c | +1 -0\n 2 files changed, 2 insertions(+), 1 deletion(-)"));
	assert_non_null(strstr(s, "Accept for 21.11 [y,n,f,d,s,p,e,u,q,?]? "));
	/* p, e and ? show, and stay on the candidate */
	assert_int_equal(ss_review_input(rv, "p"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "+added\n"));
	assert_int_equal(ss_review_input(rv, "e"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "+0.500 fixes"));
	assert_int_equal(ss_review_input(rv, "?"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "u - undo the last answer"));
	assert_int_equal(ss_review_input(rv, "x"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "unknown answer 'x'"));
	assert_string_equal(l.text, "");
	/* y accepts; n asks why; a failing write stays on the candidate */
	assert_int_equal(ss_review_input(rv, "y"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "[2/4] 0123456789ab two"));
	assert_int_equal(ss_review_input(rv, "n"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "why reject it? "));
	l.fail_next = 1;
	assert_int_equal(ss_review_input(rv, "too big"), 0);
	s = ss_review_screen(rv);
	assert_non_null(strstr(s, "error: index is locked"));
	assert_non_null(strstr(s, "Accept for 21.11"));
	assert_int_equal(ss_review_input(rv, "n"), 0);
	assert_int_equal(ss_review_input(rv, "too big"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "[3/4]"));
	/* s skips; u takes the skip back, then the rejection */
	assert_int_equal(ss_review_input(rv, "s"), 0);
	assert_int_equal(ss_review_input(rv, "u"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "[3/4]"));
	assert_int_equal(ss_review_input(rv, "u"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "[2/4]"));
	assert_int_equal(ss_review_input(rv, "d"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "defer until"));
	assert_int_equal(ss_review_input(rv, "v22.03"), 0);
	assert_int_equal(ss_review_input(rv, "s"), 0);
	assert_int_equal(ss_review_input(rv, "q"), 1);
	s = ss_review_screen(rv);
	assert_non_null(strstr(s, "1 accepted, 0 rejected, 1 deferred, 1 skipped, 0 for a manual backport"));
	assert_string_equal(l.text, "one accepted [] []\n"
				    "two rejected [too big] []\n"
				    "two undone\n"
				    "two deferred [] [v22.03]\n");
	ss_review_counts(rv, counts);
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[2], 1);
	ss_review_free(rv);

	/* a candidate that does not apply as it is (issue 35, case 17): the
	 * conflict before the prompt, f records "failed" with it as the note,
	 * u takes it back */
	items[4] = items[0];
	items[4].subject = "five";
	items[4].verdicts = "21.11: unknown (conflict in b.c hunk 1)\n";
	items[4].conflict = "21.11: conflict in b.c hunk 1";
	l.text[0] = '\0';
	assert_int_equal(ss_review_new(&rv, items + 4, 1, "21.11", &ops, &l), 0);
	s = ss_review_screen(rv);
	assert_non_null(strstr(s, "does not apply as it is: 21.11: conflict in b.c hunk 1 "
				  "(f: needs a manual backport)\nAccept for 21.11 [y,n,f,"));
	assert_int_equal(ss_review_input(rv, "?"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "f - it does not apply as it is: needs a manual backport"));
	/* it applies nowhere: y is refused, said, and nothing recorded */
	items[4].manual_only = 1;
	ss_review_free(rv);
	assert_int_equal(ss_review_new(&rv, items + 4, 1, "21.11", &ops, &l), 0);
	assert_int_equal(ss_review_input(rv, "y"), 0);
	assert_non_null(strstr(ss_review_screen(rv), "it applies to no branch as it is: f records"));
	assert_string_equal(l.text, "");
	assert_int_equal(ss_review_input(rv, "f"), 1);
	assert_non_null(strstr(ss_review_screen(rv), "0 skipped, 1 for a manual backport"));
	assert_string_equal(l.text, "five failed [21.11: conflict in b.c hunk 1] []\n");
	ss_review_counts(rv, counts);
	assert_int_equal(counts[4], 1);
	ss_review_free(rv);

	/* the end of input ends the review; no candidate: over at once */
	assert_int_equal(ss_review_new(&rv, items, 1, "21.11", &ops, &l), 0);
	assert_int_equal(ss_review_input(rv, NULL), 1);
	ss_review_free(rv);
	assert_int_equal(ss_review_new(&rv, items, 0, "21.11", &ops, &l), 0);
	assert_non_null(strstr(ss_review_screen(rv), "no candidate to review"));
	assert_int_equal(ss_review_input(rv, "y"), 1);
	ss_review_free(rv);
}

/* ------------------------------------------------------------------ */
/* The command, on a generated repository. */

/* Read from fd into buf (appending) until want appears or the child
 * ends; 1 when found.  No time is asserted: the poll only keeps a stuck
 * child from hanging the test (60 s). */
static int read_until(int fd, char *buf, size_t size, const char *want)
{
	size_t len = strlen(buf);

	while (!strstr(buf, want)) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t got;

		if (poll(&p, 1, 60000) <= 0)
			return 0;
		got = read(fd, buf + len, size - len - 1);
		if (got <= 0)
			return 0;
		len += (size_t)got;
		buf[len] = '\0';
	}
	return 1;
}

/* Run "stablesel review" on a pseudo-terminal with args; returns the
 * master side, *pid the child. */
static int spawn_review(pid_t *pid, const char *args)
{
	char cmd[8192];
	int master;

	snprintf(cmd, sizeof(cmd), "exec ./stablesel review --repo '%s/r' --rev main --threshold 0 "
		 "--since 2023-11-15 %s 2>'%s/review.err'", tmp, args, tmp);
	*pid = forkpty(&master, NULL, NULL, NULL);
	assert_true(*pid >= 0);
	if (!*pid) {
		char expanded[16384];

		/* Ctrl-C is a user's at a terminal: a run started in the
		 * background without job control (sh's "cmd &") has SIGINT
		 * ignored, which exec would pass on to the review */
		signal(SIGINT, SIG_DFL);
		if (test_expand_bin(expanded, sizeof(expanded), cmd))
			_exit(127);
		execl("/bin/sh", "sh", "-c", expanded, (char *)NULL);
		_exit(127);
	}
	return master;
}

static char *db_query(const char *sql)
{
	return test_run_output("sqlite3 '%s/r/.git/stablesel/index.db' \"%s\"", tmp, sql);
}

static void test_terminal(void **state)
{
	static char screen[1 << 20];
	char fix[41], first[41], *out;
	pid_t pid;
	int master, st;

	(void)state;
	/* without a terminal: refused, pointing to mark */
	assert_int_equal(test_run("./stablesel review --repo '%s/r' --rev main </dev/null >/dev/null "
				  "2>'%s/err'", tmp, tmp), 128);
	assert_int_equal(test_run("grep -q \"review needs a terminal: in scripts use 'stablesel mark\" '%s/err'",
				  tmp), 0);

	id_of(fix, "fix-intro");
	master = spawn_review(&pid, "--onto stable");
	screen[0] = '\0';
	assert_true(read_until(master, screen, sizeof(screen), "[y,n,f,d,s,p,e,u,q,?]? "));
	assert_non_null(strstr(screen, "[1/"));
	assert_non_null(strstr(screen, "stable: applies"));
	assert_non_null(strstr(screen, "file changed"));
	/* the first candidate: its id from the screen */
	{
		const char *p = strstr(screen, "] ");

		assert_non_null(p);
		snprintf(first, 13, "%s", p + 2);
	}
	assert_int_equal(write(master, "p\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "diff --git"));
	screen[0] = '\0';
	assert_int_equal(write(master, "y\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "[2/"));
	assert_true(read_until(master, screen, sizeof(screen), "]? "));
	screen[0] = '\0';
	assert_int_equal(write(master, "n\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "why reject it? "));
	assert_int_equal(write(master, "not a fix for users\n", 20), 20);
	assert_true(read_until(master, screen, sizeof(screen), "[3/"));
	assert_true(read_until(master, screen, sizeof(screen), "]? "));
	/* Ctrl-C in the middle: the two decisions are on disk */
	assert_int_equal(write(master, "\x03", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st)));
	close(master);
	out = db_query("SELECT substr(commit_id, 1, 12) || ' ' || state || ' ' || who || ' ' || note"
		       " FROM decisions WHERE branch = 'stable' ORDER BY state");
	assert_non_null(strstr(out, " accepted Tess Maint <tess@example.org> \n"));
	assert_non_null(strstr(out, " rejected Tess Maint <tess@example.org> not a fix for users\n"));
	assert_non_null(strstr(out, first));
	free(out);
	/* the next session shows only what is undecided, and u undoes */
	master = spawn_review(&pid, "--onto stable");
	screen[0] = '\0';
	assert_true(read_until(master, screen, sizeof(screen), "]? "));
	assert_null(strstr(screen, first));
	assert_int_equal(write(master, "y\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "[2/"));
	assert_int_equal(write(master, "u\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "is undecided again"));
	assert_int_equal(write(master, "q\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "0 accepted, 0 rejected"));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(master);
	out = db_query("SELECT count(*) FROM decisions");
	assert_string_equal(out, "2\n");
	free(out);
	(void)fix;
}

/*
 * The hard cases offered too (issue 35, cases 17, 20, 21): a fix above
 * the threshold that conflicts on stable (b.c line 20, which stable
 * changed on its own) is offered with its conflict, and f records it as
 * failed with the conflict as its note; e gives the reasons in words, as
 * rank does; a pick's prerequisite shows its subject and score.
 */
static void test_hard_cases(void **state)
{
	static char screen[1 << 20];
	char *out;
	pid_t pid;
	int master, st;

	(void)state;
	assert_int_equal(test_run("cd '%s/r' && git checkout -q main && sed -i '20s/.*/TWENTY/' b.c && "
				  "GIT_AUTHOR_DATE='1700100000 +0000' GIT_COMMITTER_DATE='1700100000 +0000' "
				  "git commit -qa -m 'b.c: fix twenty' -m \"Fixes: $(git log --format=%%h "
				  "-1 --grep='^introduce$') (\\\"introduce\\\")\"", tmp), 0);
	assert_int_equal(test_run("./stablesel index --repo '%s/r' >/dev/null 2>&1", tmp), 0);
	master = spawn_review(&pid, "--onto stable");
	screen[0] = '\0';
	assert_true(read_until(master, screen, sizeof(screen), "[y,n,f,d,s,p,e,u,q,?]? "));
	/* walk to the conflicting one, skipping the others; e on each */
	for (int n = 0; n < 20 && !strstr(screen, "does not apply as it is: "); n++) {
		screen[0] = '\0';
		assert_int_equal(write(master, "e\n", 2), 2);
		assert_true(read_until(master, screen, sizeof(screen), "]? "));
		/* the explanation in words: never a raw feature name */
		assert_null(strstr(screen, "\n  k:"));
		assert_null(strstr(screen, "\n  r:"));
		if (strstr(screen, "does not apply as it is: "))
			break;
		screen[0] = '\0';
		assert_int_equal(write(master, "s\n", 2), 2);
		assert_true(read_until(master, screen, sizeof(screen), "]? "));
	}
	assert_non_null(strstr(screen, "b.c: fix twenty"));
	assert_non_null(strstr(screen, "stable: unknown (conflict in b.c hunk 1"));
	assert_non_null(strstr(screen, "does not apply as it is: stable: conflict in b.c hunk 1"));
	assert_int_equal(write(master, "f\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "]? ") ||
		    strstr(screen, "for a manual backport"));
	assert_int_equal(write(master, "q\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "1 for a manual backport"));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(master);
	out = db_query("SELECT c.subject || ' ' || d.state || ' ' || d.note FROM decisions d "
		       "JOIN commits c ON c.id = d.commit_id");
	if (!strstr(out, "b.c: fix twenty failed stable: conflict in b.c hunk 1"))
		fail_msg("decisions: %s", out);
	free(out);
	/* the prerequisite of a pick: its subject and score, and that
	 * accepting the pick queues it */
	master = spawn_review(&pid, "--onto stable");
	screen[0] = '\0';
	assert_true(read_until(master, screen, sizeof(screen), "]? "));
	for (int n = 0; n < 20 && !strstr(screen, "accepting it pulls into the queue: "); n++) {
		screen[0] = '\0';
		assert_int_equal(write(master, "s\n", 2), 2);
		if (!read_until(master, screen, sizeof(screen), "]? "))
			break;
	}
	{
		const char *p = strstr(screen, "accepting it pulls into the queue: ");

		/* "<12 hex> (\"subject\", score 0.110)" */
		if (!p || strncmp(p + 35 + 12, " (\"", 3) || !strstr(p, "\", score 0."))
			fail_msg("no prerequisite with its subject and score in: %s", screen);
	}
	assert_int_equal(write(master, "q\n", 2), 2);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(master);
}

/* The stderr of a review started on a pseudo-terminal with args and
 * answered with keys (malloc'd). */
static char *review_once(const char *args, const char *keys, char *screen, size_t size)
{
	pid_t pid;
	int master, st;

	master = spawn_review(&pid, args);
	screen[0] = '\0';
	assert_true(read_until(master, screen, size, "]? ") || strstr(screen, "no candidate"));
	assert_int_equal(write(master, keys, strlen(keys)), (ssize_t)strlen(keys));
	read_until(master, screen, size, " for a manual backport");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(master);
	return test_run_output("cat '%s/review.err'", tmp);
}

/*
 * A second start reuses the first one's ranking (issue 35, case 24): the
 * index, the model and the options unchanged, it says so and offers what
 * is still undecided, never what was decided since; a decision taken back
 * (or --fresh) ranks again.  No time is measured here
 * (bench/review-replay.sh does).  And the progress line on a terminal is
 * cleared to its end each time ("dpdk.git: 328ts: 267" was a "\r" over
 * a longer line).
 */
static void test_second_start(void **state)
{
	static char screen[1 << 20];
	char first[15], *err;
	pid_t pid;
	int master, st;

	(void)state;
	err = review_once("--onto stable", "y\nq\n", screen, sizeof(screen));
	assert_null(strstr(err, "reusing the ranking"));
	free(err);
	{
		const char *p = strstr(screen, "[1/");

		/* "] <12 digits>": its place in the list, not a mention */
		assert_non_null(p = strstr(p, "] "));
		snprintf(first, sizeof(first), "%s", p);
	}
	/* the second start: reused, the accepted one not offered again */
	err = review_once("--onto stable", "q\n", screen, sizeof(screen));
	if (!strstr(err, "note: reusing the ranking of "))
		fail_msg("not reused: %s", err);
	free(err);
	assert_non_null(strstr(screen, "[1/"));
	assert_null(strstr(screen, first));
	/* another option is another ranking */
	err = review_once("--onto stable --top 50", "q\n", screen, sizeof(screen));
	assert_null(strstr(err, "reusing the ranking"));
	free(err);
	/* the decision taken back: ranked again, the commit offered again */
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reset %s --branch stable >/dev/null 2>&1",
				  tmp, first + 2), 0);
	err = review_once("--onto stable", "q\n", screen, sizeof(screen));
	assert_null(strstr(err, "reusing the ranking"));
	free(err);
	if (!strstr(screen, first))
		fail_msg("%s not offered again: %s", first, screen);
	err = review_once("--onto stable --fresh", "q\n", screen, sizeof(screen));
	assert_null(strstr(err, "reusing the ranking"));
	free(err);

	/* progress on a terminal: every "\r" clears the line's end */
	{
		char cmd[4096], expanded[8192];

		snprintf(cmd, sizeof(cmd), "exec ./stablesel rank --repo '%s/r' --rev main --threshold 0 "
			 "--onto stable --progress >/dev/null", tmp);
		assert_int_equal(test_expand_bin(expanded, sizeof(expanded), cmd), 0);
		pid = forkpty(&master, NULL, NULL, NULL);
		assert_true(pid >= 0);
		if (!pid) {
			execl("/bin/sh", "sh", "-c", expanded, (char *)NULL);
			_exit(127);
		}
		screen[0] = '\0';
		read_until(master, screen, sizeof(screen), "\x01never");
		assert_int_equal(waitpid(pid, &st, 0), pid);
		close(master);
		assert_non_null(strchr(screen, '\r'));
		for (const char *p = screen; (p = strchr(p, '\r')); p++)
			if (p[1] != '\n' && strncmp(p + 1, "\033[K", 3))
				fail_msg("a progress line not cleared: %.40s", p + 1);
	}
}

static void test_export_import(void **state)
{
	char fix[41], other[41], file[4200], *a, *b;

	(void)state;
	id_of(fix, "fix-intro");
	id_of(other, "other14");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' accept %s --branch stable --note 'say \"yes\"' "
				  "2>/dev/null && ./stablesel mark --repo '%s/r' reject %s --branch stable "
				  "--branch stable2 2>/dev/null && "
				  "./stablesel review --repo '%s/r' --export '%s/a.json' 2>/dev/null",
				  tmp, fix, tmp, other, tmp, tmp), 0);
	snprintf(file, sizeof(file), "%s/a.json", tmp);
	a = test_read_file(file, NULL);
	assert_non_null(a);
	/* stable order: by branch, then commit; one decision a line */
	assert_non_null(strstr(a, "{\"stablesel_decisions\": 1, \"decisions\": [\n{\"commit\": "));
	assert_true(strstr(a, "\"stable\"") < strstr(a, "\"stable2\""));
	assert_non_null(strstr(a, "\"note\": \"say \\\"yes\\\"\""));
	/* into an empty copy of the index: the same export */
	assert_int_equal(test_run("cp '%s/r/.git/stablesel/index.db' '%s/b.db' && "
				  "sqlite3 '%s/b.db' 'DELETE FROM decision_log' && "
				  "./stablesel review --db '%s/b.db' --import '%s/a.json' 2>'%s/err' && "
				  "./stablesel review --db '%s/b.db' --export '%s/b.json' 2>/dev/null && "
				  "cmp '%s/a.json' '%s/b.json' && grep -q '3 written, 0 kept as they were, 0 conflicts' '%s/err'",
				  tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp), 0);
	/* again: nothing changes */
	assert_int_equal(test_run("./stablesel review --db '%s/b.db' --import '%s/a.json' 2>'%s/err' && "
				  "grep -q '0 written, 3 kept as they were, 0 conflicts' '%s/err'", tmp, tmp, tmp, tmp), 0);
	/* a conflict: the file says rejected later than the index's accept,
	 * and the index has a newer decision than the file for other14 */
	assert_int_equal(test_run("sed -e 's/\"accepted\"/\"rejected\"/' -e 's/\"time\": \\([0-9]*\\), \"note\": \"say/\"time\": 4102444800, \"note\": \"say/' "
				  "'%s/a.json' >'%s/c.json' && "
				  "sqlite3 '%s/b.db' \"INSERT INTO decision_log(commit_id, branch, patch_id, state, "
				  "until, who, time, note) SELECT commit_id, branch, patch_id, 'deferred', until, who, "
				  "4102444900, note FROM decisions WHERE commit_id = '%s' AND branch = 'stable'\" && "
				  "./stablesel review --db '%s/b.db' --import '%s/c.json' 2>'%s/err'",
				  tmp, tmp, tmp, other, tmp, tmp, tmp), 0);
	snprintf(file, sizeof(file), "%s/err", tmp);
	b = test_read_file(file, NULL);
	assert_non_null(b);
	assert_non_null(strstr(b, "1 written, 2 kept as they were, 2 conflicts"));
	assert_non_null(strstr(b, "file rejected"));
	assert_non_null(strstr(b, "the file's (newer) kept"));
	assert_non_null(strstr(b, "index deferred"));
	assert_non_null(strstr(b, "the index's kept"));
	free(b);
	b = test_run_output("sqlite3 '%s/b.db' \"SELECT state FROM decisions WHERE branch = 'stable' ORDER BY "
			    "commit_id = '%s'\"", tmp, other);
	assert_string_equal(b, "rejected\ndeferred\n");
	free(b);
	/* malformed files: one error naming the file and line, nothing written */
	{
		static const char *const bad[] = {
			"{\"stablesel_decisions\": 1, \"decisions\": [\n{\"commit\": \"zz\", \"branch\": \"s\", \"state\": \"accepted\", \"time\": 1}]}",
			"{\"stablesel_decisions\": 1, \"decisions\": [\n{\"commit\": \"%s\", \"branch\": \"stable\", \"state\": \"acepted\", \"time\": 1}]}",
			"{\"stablesel_decisions\": 1, \"decisions\": [\n{\"commit\": \"%s\", \"branch\": \"stable\", \"state\": \"accepted\", \"time\": 1}",
			"{\"stablesel_decisions\": 2, \"decisions\": []}",
			"[]",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
			char body[1024], path[4200];
			FILE *f;

			snprintf(body, sizeof(body), bad[i], fix);
			snprintf(path, sizeof(path), "%s/bad.json", tmp);
			f = fopen(path, "w");
			assert_non_null(f);
			fputs(body, f);
			fclose(f);
			assert_int_equal(test_run("cp '%s/b.db' '%s/before.db' && "
						  "./stablesel review --db '%s/b.db' --import '%s/bad.json' 2>'%s/err'",
						  tmp, tmp, tmp, tmp, tmp), 128);
			assert_int_equal(test_run("test $(wc -l <'%s/err') = 1 && grep -q '^fatal: %s/bad.json:[12]: ' '%s/err' && "
						  "sqlite3 '%s/b.db' .dump >'%s/d1' && sqlite3 '%s/before.db' .dump >'%s/d2' && "
						  "cmp -s '%s/d1' '%s/d2'", tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp), 0);
		}
	}
	free(a);
}

/* Write body (a printf format taking one id twice) into tmp/imp.json;
 * the import's exit code. */
static int import_json(const char *body, const char *id)
{
	char text[4096], path[4200];
	FILE *f;

	snprintf(text, sizeof(text), body, id, id);
	snprintf(path, sizeof(path), "%s/imp.json", tmp);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return test_run("./stablesel review --repo '%s/r' --import '%s/imp.json' 2>'%s/err'", tmp, tmp, tmp);
}

#define ONE "{\"stablesel_decisions\": 1, \"decisions\": [\n{\"commit\": \"%s\", \"branch\": \"stable\", "

/* Cases 7-10: an import normalises ids, takes the index's patch ids,
 * refuses times out of range and JSON that is not strict UTF-8; an
 * export is always valid UTF-8. */
static void test_import_strict(void **state)
{
	char other[41], fix[41], upper[41], *out;

	(void)state;
	id_of(other, "other14");
	id_of(fix, "fix-intro");
	/* 7: an upper-case id is the same commit: one decision, the conflict seen */
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s --branch stable 2>/dev/null",
				  tmp, other), 0);
	for (int i = 0; i < 41; i++)
		upper[i] = (char)(other[i] >= 'a' && other[i] <= 'f' ? other[i] - 32 : other[i]);
	assert_int_equal(import_json(ONE "\"state\": \"accepted\", \"time\": 4102444800, "
				     "\"note\": \"\\u001b[2J\"}]}%.0s", upper), 0);
	assert_int_equal(test_run("grep -q '1 written, 0 kept as they were, 1 conflict$' '%s/err'", tmp), 0);
	/* case 11: the conflict's note reaches the terminal escaped */
	assert_int_equal(test_run("! grep -q \"$(printf '\\033')\" '%s/err' && grep -q 'x1b.2J' '%s/err'",
				  tmp, tmp), 0);
	out = db_query("SELECT commit_id || ' ' || state FROM decisions");
	assert_non_null(strstr(out, " accepted\n"));
	assert_int_equal(strlen(out), 41 + 9);
	free(out);
	/* 8: another commit's patch id is refused */
	{
		char body[1024], *pid = db_query("SELECT patch_id FROM commits WHERE subject = 'other14'");

		assert_int_equal(strlen(pid), 41);
		pid[40] = '\0';
		snprintf(body, sizeof(body), ONE "\"patch_id\": \"%s\", \"state\": \"accepted\", "
			 "\"time\": 5}]}", fix, pid);
		assert_int_equal(import_json(body, fix), 128);
		assert_int_equal(test_run("grep -q 'is not the commit.s' '%s/err'", tmp), 0);
		free(pid);
	}
	/* 9: times out of range */
	assert_int_equal(import_json(ONE "\"state\": \"accepted\", \"time\": 99999999999999999999999}]}%.0s",
				     fix), 128);
	assert_int_equal(test_run("grep -q 'out of range' '%s/err'", tmp), 0);
	assert_int_equal(import_json(ONE "\"state\": \"accepted\", \"time\": 253402300800}]}%.0s", fix), 128);
	assert_int_equal(import_json(ONE "\"state\": \"accepted\", \"time\": -5}]}%.0s", fix), 128);
	/* 10: a surrogate pair is one 4-byte character; a lone one, a Latin-1
	 * byte are refused */
	assert_int_equal(import_json(ONE "\"state\": \"deferred\", \"time\": 6, \"note\": \"\\ud83d\\ude00\"}]}%.0s",
				     fix), 0);
	out = db_query("SELECT hex(note) FROM decisions WHERE state = 'deferred'");
	assert_string_equal(out, "F09F9880\n");
	free(out);
	assert_int_equal(import_json(ONE "\"state\": \"deferred\", \"time\": 7, \"note\": \"\\ud83d x\"}]}%.0s",
				     fix), 128);
	assert_int_equal(test_run("grep -q 'lone high surrogate' '%s/err'", tmp), 0);
	assert_int_equal(import_json(ONE "\"state\": \"deferred\", \"time\": 7, \"note\": \"\\udc00\"}]}%.0s",
				     fix), 128);
	assert_int_equal(import_json(ONE "\"state\": \"deferred\", \"time\": 7, \"note\": \"caf\xe9\"}]}%.0s",
				     fix), 128);
	assert_int_equal(test_run("grep -q 'not valid UTF-8' '%s/err'", tmp), 0);
	/* an index row written before notes were checked: exported as UTF-8 */
	assert_int_equal(test_run("sqlite3 '%s/r/.git/stablesel/index.db' \"INSERT INTO decision_log(commit_id, "
				  "branch, state, who, time, note) VALUES('%s', 'stable2', 'rejected', 'X', 9, "
				  "CAST(X'636166E9' AS TEXT))\" && ./stablesel review --repo '%s/r' --export "
				  "'%s/e.json' 2>/dev/null && iconv -f UTF-8 -t UTF-8 '%s/e.json' >/dev/null && "
				  "grep -q 'caf\\\\ufffd' '%s/e.json'", tmp, fix, tmp, tmp, tmp, tmp), 0);
}

/* Case 6, at the terminal: y then u gives back a colleague's decision on
 * the second branch, its note too. */
static void test_undo_colleague(void **state)
{
	static char screen[1 << 20];
	char first[13], *out;
	pid_t pid;
	int master, st;

	(void)state;
	master = spawn_review(&pid, "--onto stable");
	screen[0] = '\0';
	assert_true(read_until(master, screen, sizeof(screen), "]? "));
	{
		const char *p = strstr(screen, "] ");

		assert_non_null(p);
		snprintf(first, sizeof(first), "%s", p + 2);
	}
	assert_int_equal(write(master, "q\n", 2), 2);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(master);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s --branch stable2 --note 'breaks ABI' "
				  "2>/dev/null", tmp, first), 0);
	master = spawn_review(&pid, "--onto stable --branch stable --branch stable2");
	screen[0] = '\0';
	assert_true(read_until(master, screen, sizeof(screen), "]? "));
	assert_non_null(strstr(screen, first));
	assert_int_equal(write(master, "y\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "[2/"));
	assert_int_equal(write(master, "u\n", 2), 2);
	assert_true(read_until(master, screen, sizeof(screen), "undone"));
	assert_int_equal(write(master, "q\n", 2), 2);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(master);
	out = db_query("SELECT branch || ' ' || state || ' ' || note FROM decisions");
	assert_string_equal(out, "stable2 rejected breaks ABI\n");
	free(out);
	/* case 3: a --branch the index does not know, before any work */
	master = spawn_review(&pid, "--onto stable --branch stabel");
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(master);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 129);
	assert_int_equal(test_run("grep -q \"did you mean 'stable'\" '%s/review.err'", tmp), 0);
}

static void test_failed_mail(void **state)
{
	char helper[41], other[41], *mail;

	(void)state;
	id_of(helper, "use-helper");
	id_of(other, "other14");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' fail %s --branch stable 2>/dev/null && "
				  "git -C '%s/r' config stablesel.failedCc 'stable@example.org' && mkdir '%s/mail' && "
				  "./stablesel review --repo '%s/r' --failed-mail --mail-dir '%s/mail' 2>'%s/err'",
				  tmp, helper, tmp, tmp, tmp, tmp, tmp), 0);
	mail = test_run_output("cat '%s/mail/failed-stable-%.12s.eml'", tmp, helper);
	assert_non_null(strstr(mail, "To: Ann Author <ann@example.org>\n"));
	assert_non_null(strstr(mail, "From: Tess Maint <tess@example.org>\n"));
	assert_non_null(strstr(mail, "Cc: stable@example.org\n"));
	assert_non_null(strstr(mail, "Subject: FAILED: patch \"use-helper\" failed to apply to stable stable tree\n"));
	assert_non_null(strstr(mail, "it conflicts in c.c, hunk 1"));
	assert_non_null(strstr(mail, "(\"other14\")"));
	free(mail);
	/* the commands, as written, in a clone: the first block fails as the
	 * mail says, the second (with the prerequisites) applies */
	assert_int_equal(test_run("git clone -q '%s/r' '%s/c' && cd '%s/c' && git config user.name T && "
				  "git config user.email t@e && "
				  "awk '/^To reproduce the failure/ { on = 1; next } on && /^git / { print } "
				  "on && /^To try it/ { exit }' '%s/mail/failed-stable-%.12s.eml' >'%s/repro.sh' && "
				  "test $(wc -l <'%s/repro.sh') = 2 && ! sh -e '%s/repro.sh' >'%s/repro.out' 2>&1 && "
				  "git status --porcelain | grep -q '^UU c.c'",
				  tmp, tmp, tmp, tmp, helper, tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("cd '%s/c' && awk '/^To try it/ { on = 1; next } on && /^git / { print } "
				  "on && /^---/ { exit }' '%s/mail/failed-stable-%.12s.eml' >'%s/try.sh' && "
				  "sh -e '%s/try.sh' >/dev/null 2>&1 && git log --format=%%s -2 | tr '\\n' ' ' | "
				  "grep -qx 'use-helper other14 '", tmp, tmp, helper, tmp, tmp), 0);
	(void)other;
}

/*
 * The edges of --failed-mail (issue 35, case 12): an author whose name
 * holds a comma and an address stays one recipient (RFC 5322 quoting);
 * non-ASCII names and subjects are RFC 2047 encoded words and the header
 * is ASCII; long headers are folded; branches "a/b" and "a-b" give two
 * files; a branch name with a line break injects no header (that pick
 * is refused); -o '' is a usage error; a missing folder is made.
 */
static void test_failed_mail_edges(void **state)
{
	char comma[41], uml[41], *out;

	(void)state;
	assert_int_equal(test_run("cd '%s/r' && git checkout -q -b hostile main && "
				  "sed -i '13s/.*/XIIIa/' c.c && "
				  "GIT_AUTHOR_EMAIL=ann@example.org GIT_AUTHOR_NAME='Ann, spy@evil.example' git commit -qam comma-author && "
				  "sed -i '13s/.*/XIIIb/' c.c && "
				  "GIT_AUTHOR_EMAIL=ann@example.org GIT_AUTHOR_NAME='J\303\274rgen M\303\274ller' git commit -qa "
				  "-m \"c.c: J\303\274rgen's fix of the thirteenth line, with a subject long "
				  "enough to be folded\" && git checkout -q main && "
				  "git branch a/b stable && git branch a-b stable", tmp), 0);
	id_of(comma, "comma-author");
	out = test_run_output("git -C '%s/r' log -1 --format=%%H hostile", tmp);
	memcpy(uml, out, 40);
	uml[40] = '\0';
	free(out);
	assert_int_equal(test_run("./stablesel index --repo '%s/r' >/dev/null 2>&1 && "
				  "./stablesel mark --repo '%s/r' fail %s --branch a/b 2>/dev/null && "
				  "./stablesel mark --repo '%s/r' fail %s --branch a-b 2>/dev/null && "
				  "./stablesel mark --repo '%s/r' fail %s --branch stable 2>/dev/null",
				  tmp, tmp, comma, tmp, comma, tmp, uml), 0);
	/* the maintainer's name with a comma stays one sender */
	assert_int_equal(test_run("git -C '%s/r' config user.name 'Maint, Tess'", tmp), 0);
	/* -o '': a usage error, nothing written anywhere */
	assert_int_equal(test_run("./stablesel review --repo '%s/r' --failed-mail --mail-dir '' 2>'%s/err'",
				  tmp, tmp), 129);
	assert_int_equal(test_run("grep -q -- \"-o needs a folder\" '%s/err'", tmp), 0);
	/* a folder that does not exist is made, parents too */
	assert_int_equal(test_run("./stablesel review --repo '%s/r' --failed-mail --mail-dir '%s/new/mail' "
				  "2>'%s/err'", tmp, tmp, tmp), 0);
	assert_int_equal(test_run("test $(ls '%s/new/mail' | wc -l) = 3 && "
				  "grep -q '3 mails for failed picks written' '%s/err'", tmp, tmp), 0);
	/* a/b and a-b: two files, each naming its branch */
	assert_int_equal(test_run("cd '%s/new/mail' && test $(grep -l 'to apply to a/b stable tree' *.eml | wc -l) = 1 && "
				  "test $(grep -l 'to apply to a-b stable tree' *.eml | wc -l) = 1", tmp), 0);
	assert_int_equal(test_run("grep -qx 'From: \"Maint, Tess\" <tess@example.org>' "
				  "'%s/new/mail/'*.eml", tmp), 0);
	/* one recipient, quoted */
	assert_int_equal(test_run("cd '%s/new/mail' && grep -l 'comma-author' *.eml | head -1 | "
				  "xargs grep -qx 'To: \"Ann, spy@evil.example\" <ann@example.org>'", tmp), 0);
	/* non-ASCII: encoded words, an ASCII header, folded at 78 */
	assert_int_equal(test_run("cd '%s/new/mail' && f=$(grep -l 'thirteenth' *.eml) && "
				  "sed '/^$/q' \"$f\" >'%s/head' && ! LC_ALL=C grep -q '[^ -~\t]' '%s/head' && "
				  "grep -q '^To: =?[a-zA-Z0-9-]*?[qQbB]?.*?= <ann@example.org>' '%s/head' && "
				  "grep -q '^Subject: .*=?UTF-8?' '%s/head' && grep -q '^[ \t]' '%s/head' && "
				  "! awk 'length > 78 { bad = 1 } END { exit !bad }' '%s/head'",
				  tmp, tmp, tmp, tmp, tmp, tmp, tmp), 0);
	/* a branch name with a line break (imported): no header injected */
	assert_int_equal(test_run("printf '{\"stablesel_decisions\": 1, \"decisions\": [\\n{\"commit\": \"%s\", "
				  "\"branch\": \"stable\\\\nBcc: spy@evil.example\", \"state\": \"failed\", "
				  "\"time\": 1}]}\\n' >'%s/evil.json' && "
				  "./stablesel review --repo '%s/r' --import '%s/evil.json' >/dev/null 2>&1; "
				  "./stablesel review --repo '%s/r' --failed-mail --mail-dir '%s/m2' 2>'%s/err'; "
				  "! grep -rqi '^bcc:' '%s/m2'", comma, tmp, tmp, tmp, tmp, tmp, tmp, tmp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop),
		cmocka_unit_test_setup_teardown(test_terminal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hard_cases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_import, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import_strict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_colleague, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_mail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_mail_edges, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
