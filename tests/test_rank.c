/*
 * test_rank.c - the reviewer's side: mbox output that "git am" applies,
 * the kernel's stable rules (noautosel, policy, minimum age), selection
 * options, precedents, and the faithfulness of explanations.
 */
#include <ctype.h>
#include <strings.h>

#include <git2.h>

#include "testutil.h"
#include "testcommit.h"

#include "commit/commit.h"
#include "commit/patchid.h"
#include "models/model.h"
#include "rank/policy.h"
#include "rank/rank.h"
#include "util/error.h"

/* A whole file, which must exist (testutil.h reads it). */
static char *slurp(const char *path)
{
	char *buf = test_read_file(path, NULL);

	assert_non_null(buf);
	return buf;
}

#define GITENV "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_COMMITTER_NAME=t " \
	"GIT_COMMITTER_EMAIL=t@example.org GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org; " \
	"export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL " \
	"GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL; "

/* Every message of the mbox is applied with git am onto its commit's
 * parent; the resulting tree must equal the original commit's. */
static void test_mbox_git_am(void **state)
{
	char *tmp = test_tmpdir(), path[512], *res, *mbox;

	(void)state;
	assert_int_equal(test_run("sh tests/gitrepo.sh '%s/repo' >/dev/null 2>&1", tmp), 0);
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --format mbox "
				  "--queue-branch linux-6.1.y -o '%s/out.mbox'", tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/out.mbox", tmp);
	mbox = slurp(path);
	assert_non_null(strstr(mbox, "Subject: [PATCH stablesel linux-6.1.y 01/"));
	assert_non_null(strstr(mbox, "[ Upstream commit "));
	assert_non_null(strstr(mbox, "\nstablesel: score "));
	assert_non_null(strstr(mbox, "From: =?UTF-8?B?")); /* the latin-1 author, re-encoded */
	free(mbox);
	assert_int_equal(test_run(
		GITENV "cd '%s' && mkdir split && git mailsplit -osplit out.mbox >/dev/null && cd repo && "
		"for f in ../split/*; do sha=$(head -1 $f | cut -d' ' -f2); "
		"git checkout -q --detach $sha^ 2>/dev/null || continue; "
		"if git am -q $f >/dev/null 2>&1; then "
		"  if git diff --quiet $sha HEAD; then echo \"OK $(git log -1 --format=%%s $sha)\"; "
		"  else echo \"DIFF $(git log -1 --format=%%s $sha)\"; fi; "
		"  test \"$(git log -1 --format=%%s HEAD)\" = \"$(git log -1 --format=%%s $sha)\" || echo SUBJECT; "
		"else echo \"FAIL $(git log -1 --format=%%s $sha)\"; git am --abort; fi; done > ../result",
		tmp), 0);
	snprintf(path, sizeof(path), "%s/result", tmp);
	res = slurp(path);
	assert_non_null(strstr(res, "OK net: foo: fix null dereference\n"));
	assert_non_null(strstr(res, "OK net: foo: split into foo_main.c\n"));   /* rename + edit */
	assert_non_null(strstr(res, "OK scripts: make check.sh executable\n")); /* mode change */
	assert_non_null(strstr(res, "OK docs: remove README\n"));                /* deletion */
	assert_non_null(strstr(res, "OK net: foo: latin-1 fix"));                /* non-ASCII */
	assert_non_null(strstr(res, "OK net: foo: fix leak on error path\n"));
	assert_null(strstr(res, "SUBJECT"));
	free(res);
	free(tmp);
}

static size_t count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;
	const char *p = text;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static void test_rules_and_selection(void **state)
{
	char *tmp = test_tmpdir(), path[512], *out;

	(void)state;
	assert_int_equal(test_run("sh tests/gitrepo.sh '%s/repo' >/dev/null 2>&1", tmp), 0);
	assert_int_equal(test_run(GITENV "GIT_COMMITTER_DATE='1700200000 +0000'; export GIT_COMMITTER_DATE; "
				  "cd '%s/repo' && git checkout -q main 2>/dev/null || git checkout -q master; "
				  "echo x >> drivers/net/foo_main.c && git commit -qam 'net: foo: fix a race "
				  "(opted out)' -m 'Cc: <stable+noautosel@kernel.org> # reason' -m 'Signed-off-by: A <a@example.org>' "
				  "--date '1700200000 +0000'", tmp), 0);
	/* (GIT_COMMITTER_DATE is set for the commit above via the environment) */
	snprintf(path, sizeof(path), "%s/policy", tmp);
	test_write_file(path, "# xfs wants no autosel\nexclude scripts/\nfixes-only net: foo: latin\n",
			strlen("# xfs wants no autosel\nexclude scripts/\nfixes-only net: foo: latin\n"));
	/* noautosel and policy: held back, listed apart in text */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --policy '%s/policy' "
				  "--no-color > '%s/text'", tmp, tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/text", tmp);
	out = slurp(path);
	assert_non_null(strstr(out, "held back by stable rules: 4 (1 stable+noautosel, 3 by policy"));
	assert_non_null(strstr(out, "stable+noautosel  net: foo: fix a race (opted out)"));
	assert_null(strstr(out, "\x1b[")); /* no colour into a file */
	free(out);
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --policy '%s/policy' "
				  "--format tsv > '%s/tsv'", tmp, tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/tsv", tmp);
	out = slurp(path);
	assert_null(strstr(out, "opted out"));
	assert_null(strstr(out, "scripts: make check.sh"));
	assert_null(strstr(out, "latin-1"));
	assert_non_null(strstr(out, "net: foo: fix null dereference"));
	assert_non_null(strstr(out, "tagged stable"));
	free(out);
	/* --untagged-only hides the tagged fixes; --budget caps the picks */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --untagged-only "
				  "--budget 2 --format tsv > '%s/tsv'", tmp, tmp), 0);
	out = slurp(path);
	assert_null(strstr(out, "net: foo: fix null dereference"));
	assert_null(strstr(out, "net: foo: fix leak on error path"));
	assert_int_equal(count_lines_with(out, "\t1\t"), 2);
	free(out);
	/* --min-age: the commit made at 1700200000 is younger than 2 days at --now */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --min-age 2 "
				  "--now 2023-11-18 --format csv > '%s/csv'", tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/csv", tmp);
	out = slurp(path);
	assert_true(!strncmp(out, "sha,score,decision,subject", 26));
	assert_null(strstr(out, "opted out"));
	assert_non_null(strstr(out, "\"net: foo: fix null dereference\""));
	free(out);
	/* --min-age 400: every commit is too young: listed as wait, none proposed */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --min-age 400 "
				  "--now 2023-11-18 --format csv > '%s/csv'", tmp, tmp), 0);
	out = slurp(path);
	assert_true(!strncmp(out, "sha,score,decision,subject,author,flags,reasons,band\n", 51));
	assert_non_null(strstr(out, "\"net: foo: fix null dereference\""));
	assert_int_equal(count_lines_with(out, ",1,\""), 0);
	assert_int_equal(count_lines_with(out, ",wait\n"), count_lines_with(out, "\n") - 1);
	assert_non_null(strstr(out, "too young"));
	free(out);
	/* precedents come from settled history only (issue 35, case 20): with
	 * every commit ranked, none; never a sibling of the batch */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --stable '%s/repo' "
				  "--format json > '%s/json'", tmp, tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/json", tmp);
	out = slurp(path);
	assert_null(strstr(out, "\"precedents\":[{"));
	free(out);
	/* JSON lines: one object a shown row, with flags and precedents (the
	 * history before --since: "add driver") */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --stable '%s/repo' "
				  "--since 2023-11-15 --format json > '%s/json'", tmp, tmp, tmp), 0);
	out = slurp(path);
	assert_non_null(strstr(out, "\"in_stable\":\"stable-1.y\""));
	assert_non_null(strstr(out, "\"precedents\":[{\"sha\":"));
	assert_non_null(strstr(out, "\"subject\":\"net: foo: add driver\"}]"));
	assert_null(strstr(out, "\"subject\":\"net: foo: add driver\",\"author\""));
	assert_true(!strncmp(out, "{\"sha\":\"", 8));
	assert_int_equal(count_lines_with(out, "\n"), 1 + count_lines_with(out, "\n{\"sha\":\""));
	free(out);
	free(tmp);
}

/* The reasons in words, as every output shows them (issue 35, case 20):
 * the Cc: stable@ line the model sees as a trailer and as a "Cc:" key is
 * one reason, their sum; a release line names the releases. */
static void test_reasons_words(void **state)
{
	static const ss_rank_reason why[] = { { "cc_stable", 0.5f }, { "h:fix_of_fix", 0.25f },
					      { "k:cc", 0.125f }, { "r:11", 0.0625f } };
	ss_rank_row w;
	ss_strbuf sb = SS_STRBUF_INIT;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.reasons = why;
	w.nreasons = 4;
	w.flags = SS_RANK_TAGGED;
	ss_rank_reasons_text(&sb, &w, 5, "; ");
	assert_string_equal(sb.buf, "tagged for stable (its Cc: stable@ line) (+0.625); fix of a fix "
			    "(+0.250); the bug shipped in a *.11 release (any year's v*.11) (+0.062)");
	/* alone (the stable line masked, or untagged), a Cc: line is any */
	w.reasons = why + 2;
	w.nreasons = 1;
	ss_strbuf_reset(&sb);
	ss_rank_reasons_text(&sb, &w, 5, "; ");
	assert_string_equal(sb.buf, "its message has a \"cc:\" line (+0.125)");
	ss_strbuf_release(&sb);
}

/* One JSON line of out whose subject holds needle (malloc'd), or NULL. */
static char *json_line(const char *out, const char *needle)
{
	const char *p = strstr(out, needle), *bol, *eol;

	if (!p)
		return NULL;
	for (bol = p; bol > out && bol[-1] != '\n'; bol--)
		;
	eol = strchr(p, '\n');
	return strndup(bol, eol ? (size_t)(eol - bol) : strlen(bol));
}

/*
 * Verdict bands in every output: the cut points and counts in text, a
 * band column in TSV/CSV, "band" in JSON, and "wait" for a commit whose
 * Cc: stable asks for "# after -rc3" until three weeks have passed.
 */
static void test_bands_and_wait(void **state)
{
	char *tmp = test_tmpdir(), path[512], *out, *line;

	(void)state;
	assert_int_equal(ss_rank_hint_wait("after -rc3", 1000), 1000 + 3 * 7 * 86400);
	assert_int_equal(ss_rank_hint_wait("after 4 weeks in mainline", 0), 4 * 7 * 86400);
	assert_int_equal(ss_rank_hint_wait("after 10 days", 0), 10 * 86400);
	assert_int_equal(ss_rank_hint_wait("after the merge window", 0), 7 * 86400);
	assert_int_equal(ss_rank_hint_wait("5.10+", 1000), 0);
	assert_int_equal(ss_rank_hint_wait("", 1000), 0);
	assert_int_equal(test_run("sh tests/gitrepo.sh '%s/repo' >/dev/null 2>&1", tmp), 0);
	assert_int_equal(test_run(GITENV "GIT_COMMITTER_DATE='1700200000 +0000'; export GIT_COMMITTER_DATE; "
				  "cd '%s/repo' && git checkout -q main 2>/dev/null || git checkout -q master; "
				  "echo y >> drivers/net/foo_main.c && git commit -qam 'net: foo: fix a hang "
				  "(delayed)' -m 'Cc: stable@vger.kernel.org # after -rc3' -m 'Signed-off-by: A <a@example.org>' "
				  "--date '1700200000 +0000'", tmp), 0);
	snprintf(path, sizeof(path), "%s/out", tmp);
	/* a day after it: waits */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --now 2023-11-18 "
				  "--format json > '%s/out'", tmp, tmp), 0);
	out = slurp(path);
	line = json_line(out, "fix a hang (delayed)");
	assert_non_null(line);
	assert_non_null(strstr(line, "\"band\":\"wait\",\"pick\":false"));
	free(line);
	line = json_line(out, "fix null dereference");
	assert_non_null(line);
	assert_non_null(strstr(line, "\"band\":\"likely\",\"pick\":true"));
	free(line);
	free(out);
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --now 2023-11-18 "
				  "--no-color > '%s/out'", tmp, tmp), 0);
	out = slurp(path);
	assert_non_null(strstr(out, "bands: yes >= "));
	assert_non_null(strstr(out, "(waiting: 0 too young, 1 asked by Cc: stable)"));
	assert_non_null(strstr(out, " wait     "));
	assert_non_null(strstr(out, "waits: Cc: stable # after -rc3"));
	/* reasons in words in text (issue 23.7), their short names in JSON */
	assert_non_null(strstr(out, "a Fixes: trailer (+"));
	assert_null(strstr(out, "fixes_tag"));
	free(out);
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --now 2023-11-18 "
				  "--format json > '%s/out'", tmp, tmp), 0);
	out = slurp(path);
	assert_non_null(strstr(out, "{\"feature\":\"fixes_tag\",\"contribution\":"));
	assert_null(strstr(out, "a Fixes: trailer"));
	free(out);
	/* --budget N: the best N yes/likely commits; a waiting one is never among them */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --now 2023-11-18 "
				  "--budget 3 --format tsv > '%s/out'", tmp, tmp), 0);
	out = slurp(path);
	assert_int_equal(count_lines_with(out, "\t1\t"), 3);
	assert_non_null(strstr(out, "\t0\tnet: foo: fix a hang (delayed)\t"));
	free(out);
	/* six weeks on it may go */
	assert_int_equal(test_run("./stablesel rank --repo '%s/repo' --threshold 0 --now 2023-12-31 "
				  "--format tsv > '%s/out'", tmp, tmp), 0);
	out = slurp(path);
	assert_non_null(strstr(out, "\treasons\tband\n"));
	assert_null(strstr(out, "\twait\n"));
	assert_null(strstr(out, "waits:"));
	free(out);
	/* the page: a band on each row and the bands table */
	assert_int_equal(test_run("./stablesel report --repo '%s/repo' --threshold 0 --now 2023-11-18 "
				  "-o '%s/out.html' 2>/dev/null", tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/out.html", tmp);
	out = slurp(path);
	assert_non_null(strstr(out, "<h2>Verdict bands</h2>"));
	assert_non_null(strstr(out, "<span class='v wait'>wait</span>"));
	assert_non_null(strstr(out, "<tr><td>bands</td><td>yes &ge; "));
	assert_non_null(strstr(out, "<tr><td title=\"fixes_tag\">a Fixes: trailer<td>+"));
	free(out);
	free(tmp);
}

static void test_policy_parse(void **state)
{
	ss_policy *p;
	ss_commit *c = ss_commit_new();
	const char *rule;
	const char *msg = "xfs: fix a leak\n\nbody\n\nSigned-off-by: A <a@example.org>\n";

	(void)state;
	assert_int_equal(ss_policy_parse(&p, "exclude\n", "p"), SS_EINVALID);
	assert_int_equal(ss_policy_parse(&p, "drop fs/\n", "p"), SS_EINVALID);
	assert_int_equal(ss_policy_parse(&p, "  # c\n\nfixes-only xfs: # why\nexclude security/\n", "p"), 0);
	assert_non_null(c);
	assert_int_equal(ss_commit_set_message(c, msg, strlen(msg)), 0);
	assert_int_equal(ss_policy_check(p, c, &rule), SS_POLICY_NEEDS_FIXES);
	assert_string_equal(rule, "fixes-only xfs:");
	ss_commit_free(c);
	c = ss_commit_new();
	msg = "XFS: fix a leak\n\nbody\n\nFixes: 0123456789ab (\"x\")\nSigned-off-by: A <a@example.org>\n";
	assert_int_equal(ss_commit_set_message(c, msg, strlen(msg)), 0);
	assert_int_equal(ss_policy_check(p, c, NULL), SS_POLICY_OK);
	assert_int_equal(ss_policy_check(NULL, c, NULL), SS_POLICY_OK);
	ss_commit_free(c);
	ss_policy_free(p);
	ss_policy_free(NULL);
}

static ss_commit *msg_commit(const char *id, const char *msg)
{
	ss_commit *c = ss_commit_new();

	assert_non_null(c);
	snprintf(c->id, sizeof(c->id), "%s", id);
	c->author.name = "A";
	c->author.email = "a@example.org";
	c->author.time = 1700000000;
	c->committer = c->author;
	assert_int_equal(ss_commit_set_message(c, msg, strlen(msg)), 0);
	return c;
}

/* Remove every whole-word occurrence of w (any case) from s. */
static char *remove_word(const char *s, const char *w)
{
	size_t n = strlen(w), i, k = 0;
	char *out = malloc(strlen(s) + 1);

	assert_non_null(out);
	for (i = 0; s[i];) {
		int before = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');

		if (before && !strncasecmp(s + i, w, n) &&
		    !(isalnum((unsigned char)s[i + n]) || s[i + n] == '_')) {
			i += n;
			continue;
		}
		out[k++] = s[i++];
	}
	out[k] = '\0';
	return out;
}

/* Take the word the explanation names as the strongest raising (and
 * lowering) one out of the message: the score moves the way it said. */
static void test_explain_faithful(void **state)
{
	static const char *const msgs[] = {
		"net: foo: fix use after free in foo_remove\n\nThe timer still uses the buffer after it is "
		"freed, which crashes the kernel under load.  Cancel the timer first.\n\n"
		"Signed-off-by: A <a@example.org>\n",
		"x86/mm: fix a NULL pointer dereference on resume\n\nA crash was reported when the page "
		"table is missing after a failed allocation.\n\nReported-by: syzbot+1234@syzkaller.appspotmail.com\n"
		"Signed-off-by: A <a@example.org>\n",
	};
	ss_model *m;
	size_t t, checked = 0;

	(void)state;
	if (ss_model_load_default(&m)) {
		printf("SKIP: no embedded model\n");
		skip();
	}
	for (t = 0; t < sizeof(msgs) / sizeof(msgs[0]); t++) {
		ss_contrib why[64];
		size_t n = 0, i;
		float before, after;
		int dir;

		for (dir = 1; dir >= -1; dir -= 2) {
			ss_commit *c = msg_commit("1111111111111111111111111111111111111111", msgs[t]), *d;
			char *msg;

			assert_int_equal(ss_model_score_commit(&before, m, c, NULL), 0);
			assert_int_equal(ss_model_explain(why, 64, &n, m, c, NULL, 0), 0);
			for (i = 0; i < n; i++)
				if (!strncmp(why[i].name, "word:", 5) && why[i].contrib * (float)dir > 0.01f)
					break;
			if (i == n) {
				ss_commit_free(c);
				continue;
			}
			msg = remove_word(c->message, why[i].name + 5);
			d = msg_commit("1111111111111111111111111111111111111111", msg);
			assert_int_equal(ss_model_score_commit(&after, m, d, NULL), 0);
			if (dir > 0)
				assert_true(after < before);
			else
				assert_true(after > before);
			checked++;
			free(msg);
			ss_commit_free(c);
			ss_commit_free(d);
		}
	}
	assert_true(checked >= 2);
	ss_model_free(m);
}

/* A commit's nearest precedent is an earlier commit with the same words. */
static void test_precedents(void **state)
{
	ss_ranker_options o = SS_RANKER_OPTIONS_INIT;
	ss_rank_select s = SS_RANK_SELECT_INIT;
	ss_rank_precedent pr[3];
	ss_ranking *r;
	ss_history *h;
	ss_model *m;
	size_t i, n;
	static const char *const msgs[] = {
		"net: fix use after free in timer\n\nfree timer crash\n",
		"docs: update the readme\n\nspelling and grammar\n",
		"net: fix use after free in timer path\n\nfree timer crash again\n",
	};

	(void)state;
	if (ss_model_load_default(&m)) {
		printf("SKIP: no embedded model\n");
		skip();
	}
	o.threshold = 0;
	assert_int_equal(ss_ranking_new(&r, m, &o), 0);
	assert_int_equal(ss_history_new(&h), 0);
	for (i = 0; i < 3; i++) {
		char id[41];
		ss_commit *c;

		snprintf(id, sizeof(id), "%040zu", i + 1);
		c = msg_commit(id, msgs[i]);
		assert_int_equal(ss_ranking_feed(r, c, h, i == 0), 0);
		assert_int_equal(ss_history_add(h, c), 0);
		ss_commit_free(c);
	}
	assert_int_equal(ss_ranking_count(r), 2);
	ss_ranking_select(r, &s);
	for (i = 0; i < 2; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		if (strcmp(w.subject, msgs[2]) && strncmp(w.subject, "net: fix use after free in timer path", 37))
			continue;
		n = ss_ranking_precedents(pr, 3, r, i);
		assert_true(n >= 1);
		assert_string_equal(pr[0].id, "0000000000000000000000000000000000000001");
		assert_true(pr[0].similarity > 0.5f);
		assert_int_equal(pr[0].label, -1);
	}
	ss_ranking_free(r);
	ss_history_free(h);
	ss_model_free(m);
}

/*
 * One row per patch: commits whose diffs are the same patch (rebased
 * copies; white space aside) fold into the best-scored one, which lists
 * their ids; a copy is no precedent of its own patch; --keep-copies lists
 * them all.  A different context line is another patch.
 */
static void test_copies_folded(void **state)
{
	static const char *const fix[] = { " static int x;", "-int y = 1;", "+int y = 2;", NULL };
	static const char *const fix_ws[] = { " static  int x;", "-int y = 1;", "+int y=2;", NULL };
	static const char *const fix_ctx[] = { " static long x;", "-int y = 1;", "+int y = 2;", NULL };
	static const char *const other[] = { "+int z;", NULL };
	const tc_file files[4] = {
		{ "net/a.c", NULL, fix, SS_FILE_MODIFIED },
		{ "net/b.c", NULL, other, SS_FILE_MODIFIED },
		{ "net/a.c", NULL, fix_ws, SS_FILE_MODIFIED },
		{ "net/a.c", NULL, fix_ctx, SS_FILE_MODIFIED },
	};
	static const char *const msgs[4] = {
		"net: fix y\n\nFixes a crash.\n",
		"net: add z\n\nA new helper.\n",
		"net: fix y\n\nFixes a crash (resent after a rebase).\n",
		"net: fix y on long x\n\nFixes a crash.\n",
	};
	int keep;

	(void)state;
	for (keep = 0; keep < 2; keep++) {
		ss_ranker_options o = SS_RANKER_OPTIONS_INIT;
		ss_rank_select s = SS_RANK_SELECT_INIT;
		size_t i, shown = 0, copies = 0, flagged = 0;
		char rep_id[41] = "", copy_id[41] = "";
		ss_ranking *r;
		ss_history *h;
		ss_model *m;

		if (ss_model_load_default(&m)) {
			printf("SKIP: no embedded model\n");
			skip();
		}
		o.threshold = 0;
		assert_int_equal(ss_ranking_new(&r, m, &o), 0);
		assert_int_equal(ss_history_new(&h), 0);
		for (i = 0; i < 4; i++) {
			char id[41];
			ss_commit *c;

			snprintf(id, sizeof(id), "%040zu", i + 1);
			c = tc_commit(id, "dev@example.org", 1700000000 + (long long)i * 86400, msgs[i],
				      &files[i], 1);
			assert_non_null(c);
			assert_int_equal(ss_ranking_feed(r, c, h, 0), 0);
			assert_int_equal(ss_history_add(h, c), 0);
			ss_commit_free(c);
		}
		s.keep_copies = keep;
		ss_ranking_select(r, &s);
		assert_int_equal(ss_ranking_count(r), 4);
		for (i = 0; i < 4; i++) {
			ss_rank_row w;

			ss_ranking_row(&w, r, i);
			shown += w.shown;
			if (w.copy) {
				copies++;
				assert_false(w.shown);
				snprintf(copy_id, sizeof(copy_id), "%s", w.id);
			}
			if (w.flags & SS_RANK_COPIES) {
				ss_rank_precedent pr[3];
				size_t n = ss_ranking_precedents(pr, 3, r, i), k;

				flagged++;
				snprintf(rep_id, sizeof(rep_id), "%s", w.id);
				assert_string_equal(w.copies, strcmp(w.id, "0000000000000000000000000000000000000001")
							      ? "0000000000000000000000000000000000000001"
							      : "0000000000000000000000000000000000000003");
				for (k = 0; k < n; k++)
					assert_string_not_equal(pr[k].id, w.copies);
			}
		}
		if (keep) {
			assert_int_equal(shown, 4);
			assert_int_equal(copies + flagged, 0);
		} else {
			/* 1 and 3 are one patch; 4's context differs */
			assert_int_equal(shown, 3);
			assert_int_equal(copies, 1);
			assert_int_equal(flagged, 1);
			assert_true(!strcmp(rep_id, "0000000000000000000000000000000000000001") ||
				    !strcmp(rep_id, "0000000000000000000000000000000000000003"));
			assert_string_not_equal(rep_id, copy_id);
			assert_true(!strcmp(copy_id, "0000000000000000000000000000000000000001") ||
				    !strcmp(copy_id, "0000000000000000000000000000000000000003"));
		}
		ss_ranking_free(r);
		ss_history_free(h);
		ss_model_free(m);
	}
}

/*
 * One row per patch across rebases (issue 23.8): the tip tree mails a
 * patch again after rebasing it onto other context lines, which git's
 * patch id tells apart.  Copies with the same author and subject whose
 * changed lines are equal fold into the best row ("also as <ids>"); the
 * same change by another author, or under another subject, stays a row.
 */
static void test_copies_across_rebase(void **state)
{
	static const char *const fix[] = { " static int x;", "-int y = 1;", "+int y = 2;", " int w;", NULL };
	static const char *const moved[] = { " static long x;", " long v;", "-int y = 1;", "+int y = 2;",
					     NULL };
	/* other contexts again, so that git's patch id tells them apart too */
	static const char *const moved3[] = { " static char x;", "-int y = 1;", "+int y = 2;", NULL };
	static const char *const moved4[] = { " static short x;", "-int y = 1;", "+int y = 2;", NULL };
	static const struct {
		const char *id, *email, *msg;
		const char *const *lines;
	} in[] = {
		{ "1", "dev@example.org", "x86/e820: Discard high memory\n\nIt crashes.\n", fix },
		{ "2", "Dev@Example.org", "x86/e820: Discard high memory\n\nIt crashes (v2 base).\n", moved },
		{ "3", "other@example.org", "x86/e820: Discard high memory\n\nIt crashes.\n", moved3 },
		{ "4", "dev@example.org", "x86/e820: Discard higher memory\n\nIt crashes.\n", moved4 },
	};
	ss_ranker_options o = SS_RANKER_OPTIONS_INIT;
	ss_rank_select s = SS_RANK_SELECT_INIT;
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i, shown = 0, flagged = 0;
	ss_ranking *r;
	ss_history *h;
	ss_model *m;

	(void)state;
	if (ss_model_load_default(&m)) {
		printf("SKIP: no embedded model\n");
		skip();
	}
	o.threshold = 0;
	assert_int_equal(ss_ranking_new(&r, m, &o), 0);
	assert_int_equal(ss_history_new(&h), 0);
	for (i = 0; i < 4; i++) {
		tc_file f = { "arch/x86/kernel/e820.c", NULL, in[i].lines, SS_FILE_MODIFIED };
		char id[41], a[41], b[41];
		ss_commit *c;

		snprintf(id, sizeof(id), "%040d", atoi(in[i].id));
		c = tc_commit(id, in[i].email, 1700000000 + (long long)i * 86400, in[i].msg, &f, 1);
		assert_non_null(c);
		if (i == 1) {
			/* git's patch id differs (context), the change key does not */
			ss_commit *c0 = tc_commit("0000000000000000000000000000000000000009", in[0].email,
						  1700000000, in[0].msg, &(tc_file){ f.path, NULL, fix,
						  SS_FILE_MODIFIED }, 1);

			assert_int_equal(ss_commit_patch_id(a, c), 0);
			assert_int_equal(ss_commit_patch_id(b, c0), 0);
			assert_string_not_equal(a, b);
			assert_true(ss_commit_change_key(c) == ss_commit_change_key(c0));
			ss_commit_free(c0);
		}
		assert_int_equal(ss_ranking_feed(r, c, h, 0), 0);
		assert_int_equal(ss_history_add(h, c), 0);
		ss_commit_free(c);
	}
	ss_ranking_select(r, &s);
	for (i = 0; i < 4; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		shown += w.shown;
		if (w.copy)
			assert_true(!strcmp(w.id, "0000000000000000000000000000000000000001") ||
				    !strcmp(w.id, "0000000000000000000000000000000000000002"));
		if (!(w.flags & SS_RANK_COPIES))
			continue;
		flagged++;
		assert_true(!strcmp(w.id, "0000000000000000000000000000000000000001") ||
			    !strcmp(w.id, "0000000000000000000000000000000000000002"));
		assert_string_equal(w.copies, strcmp(w.id, "0000000000000000000000000000000000000001")
					      ? "0000000000000000000000000000000000000001"
					      : "0000000000000000000000000000000000000002");
		ss_rank_flags_text(&sb, &w, "; ");
		assert_non_null(strstr(sb.buf, "also as 00000000000"));
	}
	/* 1 and 2 are one row; 3 (another author) and 4 (another subject) stay */
	assert_int_equal(shown, 3);
	assert_int_equal(flagged, 1);
	ss_strbuf_release(&sb);
	ss_ranking_free(r);
	ss_history_free(h);
	ss_model_free(m);
}

/* A diff of n changed lines, line i reading "int v<i> = <i + shift>;"
 * for i >= keep (so that two calls share the first keep lines). */
static const char **changed_lines(int n, int keep, int shift)
{
	const char **l = calloc((size_t)n + 1, sizeof(*l));
	int i;

	assert_non_null(l);
	for (i = 0; i < n; i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "+int v%d = %d;", i, i < keep ? i : i + shift);
		l[i] = strdup(buf);
		assert_non_null(l[i]);
	}
	return l;
}

static void free_lines(const char **l)
{
	for (size_t i = 0; l[i]; i++)
		free((char *)l[i]);
	free(l);
}

/*
 * Near copies (issue 36.7): the same author and subject with one of 24
 * changed lines rewritten (a rebase that had to touch a line) fold into
 * the best row; half the lines rewritten, or another author (the same
 * lines but one), stay rows.
 * The sketch agrees in every minimum for equal sets and in few for
 * disjoint ones.
 */
static void test_near_copies_folded(void **state)
{
	const char **base = changed_lines(24, 24, 0), **one = changed_lines(24, 23, 100);
	const char **half = changed_lines(24, 12, 100), **other = changed_lines(24, 0, 1000);
	const char **third = changed_lines(24, 23, 200);
	static const char *const msg = "x86/mm: Fix the boundary\n\nIt overflows.\n";
	const struct {
		const char *email;
		const char **lines;
	} in[] = {
		{ "dev@example.org", base }, { "dev@example.org", one },
		{ "dev@example.org", half }, { "else@example.org", third },
	};
	ss_ranker_options o = SS_RANKER_OPTIONS_INIT;
	ss_rank_select s = SS_RANK_SELECT_INIT;
	ss_near_sketch sk[4], so;
	size_t i, shown = 0;
	ss_ranking *r;
	ss_history *h;
	ss_model *m;

	(void)state;
	if (ss_model_load_default(&m)) {
		printf("SKIP: no embedded model\n");
		skip();
	}
	o.threshold = 0;
	assert_int_equal(ss_ranking_new(&r, m, &o), 0);
	assert_int_equal(ss_history_new(&h), 0);
	for (i = 0; i < 4; i++) {
		tc_file f = { "arch/x86/mm/init.c", NULL, in[i].lines, SS_FILE_MODIFIED };
		char id[41];
		ss_commit *c;

		snprintf(id, sizeof(id), "%040zu", i + 1);
		c = tc_commit(id, in[i].email, 1700000000 + (long long)i * 86400, msg, &f, 1);
		assert_non_null(c);
		ss_commit_near_sketch(&sk[i], c);
		if (i == 0) {
			tc_file g = { "arch/x86/mm/init.c", NULL, other, SS_FILE_MODIFIED };
			ss_commit *d = tc_commit("0000000000000000000000000000000000000099", in[i].email,
						 1700000000, msg, &g, 1);

			ss_commit_near_sketch(&so, d);
			ss_commit_free(d);
		}
		assert_int_equal(ss_ranking_feed(r, c, h, 0), 0);
		assert_int_equal(ss_history_add(h, c), 0);
		ss_commit_free(c);
	}
	assert_int_equal(ss_near_agree(&sk[0], &sk[0]), SS_NEAR_HASHES);
	assert_true(ss_near_agree(&sk[0], &sk[1]) >= SS_NEAR_AGREE);
	assert_true(ss_near_agree(&sk[0], &sk[2]) < SS_NEAR_AGREE);
	assert_true(ss_near_agree(&sk[0], &so) <= 2);
	assert_true(sk[0].author == sk[2].author && sk[0].author != sk[3].author);
	ss_ranking_select(r, &s);
	for (i = 0; i < 4; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		shown += w.shown;
		if (w.copy)
			assert_true(!strcmp(w.id, "0000000000000000000000000000000000000001") ||
				    !strcmp(w.id, "0000000000000000000000000000000000000002"));
	}
	assert_int_equal(shown, 3);
	ss_ranking_free(r);
	ss_history_free(h);
	ss_model_free(m);
	free_lines(base);
	free_lines(one);
	free_lines(half);
	free_lines(other);
	free_lines(third);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons_words),
		cmocka_unit_test(test_policy_parse),
		cmocka_unit_test(test_explain_faithful),
		cmocka_unit_test(test_precedents),
		cmocka_unit_test(test_copies_folded),
		cmocka_unit_test(test_copies_across_rebase),
		cmocka_unit_test(test_near_copies_folded),
		cmocka_unit_test(test_mbox_git_am),
		cmocka_unit_test(test_rules_and_selection),
		cmocka_unit_test(test_bands_and_wait),
	};

	git_libgit2_init(); /* commit trailers are parsed by libgit2 */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
