/*
 * test_history.c - a bug's history: Fixes: targets, reverts and blame,
 * resolved against releases from a repository's graph, from a mail
 * source's order and from dates.
 *
 * A repository is built with the git CLI (fixed dates), tags v1.0,
 * v2.0-rc1 and v2.0, oldest first:
 *   A  lib: add foo              day 0
 *   B  lib: add bar              day 10   [v1.0, annotated]
 *   C  lib: tune foo length      day 20   (the line the blame test fixes)
 *   D  lib: add baz              day 30   [v2.0-rc1]
 *   E  release 2.0               day 40   [v2.0]
 *   X  lib: add qux              day 50   (after the last release)
 *   F1 lib: fix qux null pointer day 55   Fixes: X
 *   F7 lib: fix the qux fix      day 57   Fixes: F1 (a fix of a fix)
 *   F2 lib: fix foo bounds       day 60   Fixes: A
 *   F3 lib: fix foo length       day 62   no Fixes: (blame -> C)
 *   R  Revert "lib: add baz"     day 64   git revert D
 *   filler 1..n                  day 70   until two ids share 4 hex digits
 *   F4 lib: fix after filler     day 80   Fixes: <4 hex> ("filler j")
 *   F5 lib: fix something ambiguous      Fixes: <4 hex> ("no such subject")
 *   F6 lib: fix foo again        day 82   Fixes: A with a wrong subject
 * and the same history as a format-patch mbox with a releases TSV.
 * The last test runs on ../shared/data/dpdk and prints the figures.
 */
#include "testutil.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "history/histidx.h"
#include "source/source.h"
#include "util/error.h"

static char *tmp;
static char repo[600], mbox[600], reltsv[600], datetsv[600];

/* subject -> commit, as git log says and as the git source reads it */
static ss_commit **commits;
static size_t ncommits;
static char collide[8];   /* the shared 4-digit prefix */
static int filler_a, filler_b;

static const char script[] =
	"set -eu\n"
	"cd \"$1\"\n"
	"GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null\n"
	"export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL\n"
	"unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE 2>/dev/null || true\n"
	"GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.org\n"
	"GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.org\n"
	"export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL\n"
	"base=1700000000\n"
	"at() {\n"
	"  GIT_AUTHOR_DATE=\"$((base + $1 * 86400)) +0000\"\n"
	"  GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE\n"
	"  export GIT_AUTHOR_DATE GIT_COMMITTER_DATE\n"
	"}\n"
	"cm() { git commit -q --no-verify \"$@\"; }\n"
	"git -c init.defaultBranch=main init -q .\n"
	"git config commit.gpgsign false\n"
	"git config tag.gpgsign false\n"
	"printf '#include <stdlib.h>\\n\\nstatic int foo_len = 2048;\\n\\n"
	"int foo_get(const char *buf, int idx)\\n{\\n\\treturn buf[idx];\\n}\\n' >lib.c\n"
	"git add -A; at 0; cm -m 'lib: add foo'\n"
	"A=$(git rev-parse HEAD)\n"
	"printf 'int bar(void)\\n{\\n\\treturn 1;\\n}\\n' >bar.c\n"
	"git add -A; at 10; cm -m 'lib: add bar'\n"
	"git tag -a v1.0 -m 'release 1.0'\n"
	"sed -i 's/foo_len = 2048/foo_len = 4096/' lib.c\n"
	"git add -A; at 20; cm -m 'lib: tune foo length'\n"
	"printf 'int baz(void)\\n{\\n\\treturn 2;\\n}\\n' >baz.c\n"
	"git add -A; at 30; cm -m 'lib: add baz'\n"
	"D=$(git rev-parse HEAD)\n"
	"git tag v2.0-rc1\n"
	"printf 'release notes\\n' >NEWS\n"
	"git add -A; at 40; cm -m 'release 2.0'\n"
	"git tag v2.0\n"
	"printf 'int qux(int *p)\\n{\\n\\treturn *p;\\n}\\n' >qux.c\n"
	"git add -A; at 50; cm -m 'lib: add qux'\n"
	"X=$(git rev-parse HEAD)\n"
	"sed -i 's/return \\*p;/return p ? *p : 0;/' qux.c\n"
	"git add -A; at 55\n"
	"cm -m 'lib: fix qux null pointer' -m \"Fixes: $(echo $X | cut -c1-12) (\\\"lib: add qux\\\")\"\n"
	"F1=$(git rev-parse HEAD)\n"
	"sed -i 's/return p ? \\*p : 0;/return p ? *p : -1;/' qux.c\n"
	"git add -A; at 57\n"
	"cm -m 'lib: fix the qux fix' -m \"Fixes: $(echo $F1 | cut -c1-12) (\\\"lib: fix qux null pointer\\\")\"\n"
	"sed -i 's/return buf\\[idx\\];/return idx >= 0 ? buf[idx] : 0;/' lib.c\n"
	"git add -A; at 60\n"
	"cm -m 'lib: fix foo bounds' -m \"Fixes: $(echo $A | cut -c1-12) (\\\"lib: add foo\\\")\"\n"
	"sed -i 's/foo_len = 4096/foo_len = 8192/' lib.c\n"
	"git add -A; at 62; cm -m 'lib: fix foo length'\n"
	"at 64; git revert --no-edit $D >/dev/null\n"
	/* empty commits until two ids share their first 4 hex digits */
	"tree=$(git rev-parse 'HEAD^{tree}'); parent=$(git rev-parse HEAD); seen=' '; i=0\n"
	"at 70\n"
	"while :; do\n"
	"  i=$((i + 1))\n"
	"  c=$(git commit-tree \"$tree\" -p \"$parent\" -m \"filler $i\")\n"
	"  p=$(echo $c | cut -c1-4)\n"
	"  case \"$seen\" in *\" $p:\"*) break;; esac\n"
	"  seen=\"$seen$p:$i \"\n"
	"  parent=$c\n"
	"done\n"
	"j=$(echo \"$seen\" | tr ' ' '\\n' | grep \"^$p:\" | cut -d: -f2)\n"
	"git reset -q --hard $c\n"
	"echo \"$p $j $i\" >../collide\n"
	"printf 'x\\n' >amb.txt\n"
	"git add -A; at 80; cm -m 'lib: fix after filler' -m \"Fixes: $p (\\\"filler $j\\\")\"\n"
	"printf 'y\\n' >>amb.txt\n"
	"git add -A; at 80; cm -m 'lib: fix something ambiguous' -m \"Fixes: $p (\\\"no such subject\\\")\"\n"
	"sed -i 's/idx >= 0/idx >= 0 \\&\\& idx < foo_len/' lib.c\n"
	"git add -A; at 82\n"
	"cm -m 'lib: fix foo again' -m \"Fixes: $(echo $A | cut -c1-12) (\\\"lib: add food\\\")\"\n"
	/* the same history as mail, and the releases as a TSV */
	"git format-patch -q --always --root --stdout main >../all.mbox\n"
	"{ printf 'tag\\tsha\\tdate\\n'\n"
	"  for t in v1.0 v2.0-rc1 v2.0; do\n"
	"    printf '%s\\t%s\\t%s\\n' $t $(git rev-parse \"$t^{commit}\") $(git log -1 --format=%ct \"$t\")\n"
	"  done; } >../releases.tsv\n"
	/* releases that are not in the mbox: only dates can place them */
	"{ printf 'tag\\tsha\\tdate\\n'\n"
	"  printf 'v1.0\\t%s\\t%s\\n' 1111111111111111111111111111111111111111 $(git log -1 --format=%ct v1.0)\n"
	"  printf 'v2.0\\t%s\\t%s\\n' 2222222222222222222222222222222222222222 $(git log -1 --format=%ct v2.0)\n"
	"} >../dates.tsv\n";

static const ss_commit *by_subject(const char *subject)
{
	size_t i;

	for (i = 0; i < ncommits; i++)
		if (!strcmp(commits[i]->subject, subject))
			return commits[i];
	fail_msg("no commit '%s'", subject);
	return NULL;
}

static const char *id_of(const char *subject)
{
	return by_subject(subject)->id;
}

static int setup(void **state)
{
	char path[700], *s;
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_source *src;
	ss_commit *c;
	size_t cap = 0;

	(void)state;
	tmp = test_tmpdir();
	snprintf(repo, sizeof(repo), "%s/repo", tmp);
	snprintf(mbox, sizeof(mbox), "%s/all.mbox", tmp);
	snprintf(reltsv, sizeof(reltsv), "%s/releases.tsv", tmp);
	snprintf(datetsv, sizeof(datetsv), "%s/dates.tsv", tmp);
	snprintf(path, sizeof(path), "%s/make-repo.sh", tmp);
	test_write_file(path, script, strlen(script));
	if (test_run("mkdir '%s' && sh '%s' '%s' >'%s/script.log' 2>&1", repo, path, repo, tmp)) {
		snprintf(path, sizeof(path), "%s/script.log", tmp);
		s = test_read_file(path, NULL);
		fprintf(stderr, "make-repo.sh failed:\n%s\n", s ? s : "");
		free(s);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/collide", tmp);
	s = test_read_file(path, NULL);
	if (!s || sscanf(s, "%4s %d %d", collide, &filler_a, &filler_b) != 3)
		return -1;
	free(s);
	/* every commit of main, with its diff, as the git source reads it */
	if (ss_source_open(&src, repo, &opts))
		return -1;
	while (!ss_source_next(&c, src)) {
		if (ncommits == cap) {
			cap = cap ? cap * 2 : 512;
			commits = realloc(commits, cap * sizeof(*commits));
		}
		commits[ncommits++] = c;
	}
	ss_source_free(src);
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ncommits; i++)
		ss_commit_free(commits[i]);
	free(commits);
	test_run("rm -rf '%s'", tmp);
	free(tmp);
	return 0;
}

static void test_parse_fixes(void **state)
{
	const char *s;
	size_t len;
	char id[41];

	(void)state;
	assert_int_equal(ss_histidx_parse_fixes(id, &s, &len, "1a2B3c4d5e6f (\"net: x (y) \\\"z\\\"\")"), 0);
	assert_string_equal(id, "1a2b3c4d5e6f");
	assert_int_equal(len, strlen("net: x (y) \\\"z\\\""));
	assert_memory_equal(s, "net: x (y)", 10);
	assert_int_equal(ss_histidx_parse_fixes(id, &s, &len, "commit abcd (plain subject)"), 0);
	assert_string_equal(id, "abcd");
	assert_int_equal(len, 13);
	assert_int_equal(ss_histidx_parse_fixes(id, &s, &len, "abcdef0"), 0);
	assert_null(s);
	assert_int_equal(ss_histidx_parse_fixes(id, &s, &len, "abc (\"too short\")"), SS_EINVALID);
	assert_int_equal(ss_histidx_parse_fixes(id, &s, &len, "next-net tree"), SS_EINVALID);
	assert_int_equal(ss_histidx_parse_fixes(id, &s, &len, "abcdefgh"), SS_EINVALID);
}

static void test_releases(void **state)
{
	ss_releases *r, *t;
	size_t first;

	(void)state;
	assert_int_equal(ss_releases_from_repo(&r, repo, NULL), 0);
	assert_int_equal(ss_releases_count(r), 2);  /* no v2.0-rc1 */
	assert_string_equal(ss_releases_get(r, 0)->tag, "v1.0");
	assert_string_equal(ss_releases_get(r, 1)->tag, "v2.0");
	/* the annotated tag is peeled to its commit */
	assert_string_equal(ss_releases_get(r, 0)->sha, id_of("lib: add bar"));
	assert_int_equal(ss_releases_get(r, 0)->time, 1700000000 + 10 * 86400);
	assert_true(ss_releases_has_graph(r));
	assert_int_equal(ss_releases_first_containing(&first, r, id_of("lib: add foo")), 0);
	assert_int_equal(first, 0);
	assert_int_equal(ss_releases_first_containing(&first, r, id_of("lib: add bar")), 0);
	assert_int_equal(first, 0);
	assert_int_equal(ss_releases_first_containing(&first, r, id_of("lib: tune foo length")), 0);
	assert_int_equal(first, 1);
	assert_int_equal(ss_releases_first_containing(&first, r, id_of("lib: add qux")), SS_ENOTFOUND);

	assert_int_equal(ss_releases_load_tsv(&t, reltsv), 0);
	assert_int_equal(ss_releases_count(t), 2);
	assert_false(ss_releases_has_graph(t));
	assert_int_equal(ss_releases_first_containing(&first, t, id_of("lib: add foo")), SS_EINVALID);
	assert_string_equal(ss_releases_get(t, 1)->sha, ss_releases_get(r, 1)->sha);
	assert_int_equal(ss_releases_get(t, 1)->time, ss_releases_get(r, 1)->time);
	ss_releases_free(t);
	ss_releases_free(r);

	assert_int_equal(ss_releases_from_repo(&r, repo, "v2*"), 0);
	assert_int_equal(ss_releases_count(r), 1);
	ss_releases_free(r);
	assert_int_equal(ss_releases_from_repo(&r, repo, "v2.0-rc*"), 0);
	assert_int_equal(ss_releases_count(r), 1);
	ss_releases_free(r);
	assert_int_equal(ss_releases_load_tsv(&t, "/nonexistent/releases.tsv"), SS_ENOTFOUND);
	assert_null(t);
}

static void test_lookup_prefix(void **state)
{
	ss_histidx_commit m[4];
	ss_histidx *h;
	char a[16], b[16];
	size_t i;

	(void)state;
	assert_int_equal(ss_histidx_new(&h), 0);
	for (i = 0; i < ncommits; i++)
		assert_int_equal(ss_histidx_add_commit(h, commits[i]), 0);
	/* a second copy (as from --history) is not a second commit */
	assert_int_equal(ss_histidx_add_commit(h, by_subject("lib: add foo")), 0);
	assert_int_equal(ss_histidx_count(h), ncommits);

	assert_int_equal(ss_histidx_lookup_prefix(m, 4, h, id_of("lib: add qux")), 1);
	assert_string_equal(m[0].subject, "lib: add qux");
	assert_false(m[0].has_fixes);
	assert_int_equal(m[0].time, 1700000000 + 50 * 86400);
	assert_int_equal(ss_histidx_lookup_prefix(m, 4, h, "lib: add qux"), SS_EINVALID);
	assert_int_equal(ss_histidx_lookup_prefix(m, 4, h, "abc"), SS_EINVALID);

	snprintf(a, sizeof(a), "filler %d", filler_a);
	snprintf(b, sizeof(b), "filler %d", filler_b);
	assert_int_equal(ss_histidx_lookup_prefix(m, 4, h, collide), 2);
	assert_true((!strcmp(m[0].subject, a) && !strcmp(m[1].subject, b)) ||
		    (!strcmp(m[0].subject, b) && !strcmp(m[1].subject, a)));
	assert_int_equal(strncmp(m[0].id, collide, 4), 0);
	assert_true(strcmp(m[0].id, m[1].id) < 0);
	/* upper case works, and the revert is known as one */
	assert_int_equal(ss_histidx_lookup_prefix(m, 1, h, "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"), 0);
	assert_int_equal(ss_histidx_lookup_prefix(m, 1, h, id_of("Revert \"lib: add baz\"")), 1);
	assert_true(m[0].is_revert);
	ss_histidx_free(h);

	/* the same through the repository only */
	assert_int_equal(ss_histidx_new(&h), 0);
	assert_int_equal(ss_histidx_open_repo(h, repo), 0);
	assert_int_equal(ss_histidx_lookup_prefix(m, 4, h, collide), 2);
	assert_true(m[0].from_repo);
	assert_true(strcmp(m[0].id, m[1].id) < 0);
	assert_int_equal(ss_histidx_lookup_prefix(m, 4, h, id_of("lib: fix qux null pointer")), 1);
	assert_true(m[0].has_fixes);
	assert_string_equal(m[0].subject, "lib: fix qux null pointer");
	ss_histidx_free(h);
	assert_int_equal(ss_histidx_new(&h), 0);
	assert_int_equal(ss_histidx_open_repo(h, "/nonexistent/repo"), SS_ENOTFOUND);
	ss_histidx_free(h);
}

static void resolve(ss_histidx_facts *f, ss_histidx *h, const char *subject,
		    const ss_releases *r, int blame)
{
	ss_histidx_resolve_options opts = SS_HISTIDX_RESOLVE_OPTIONS_INIT;

	opts.blame = blame;
	assert_int_equal(ss_histidx_resolve(f, h, by_subject(subject), r, &opts), 0);
}

/* What every way of reading the history must agree on. */
static void check_common(ss_histidx *h, const ss_releases *r, ss_release_method method)
{
	ss_histidx_facts f;

	/* a fix of a commit made after the last release: never released */
	resolve(&f, h, "lib: fix qux null pointer", r, 0);
	assert_int_equal(f.nfixes_tags, 1);
	assert_int_equal(f.ntargets, 1);
	assert_true(f.target_found);
	assert_string_equal(f.target, id_of("lib: add qux"));
	assert_int_equal(f.targets[0].how, SS_ORIGIN_FIXES_TAG);
	assert_false(f.targets[0].subject_mismatch);
	assert_false(f.released_before_fix);
	assert_int_equal(f.first_release, -1);
	assert_null(f.first_release_tag);
	assert_int_equal(f.releases_since, 0);
	assert_true(f.age_days > 4.99 && f.age_days < 5.01);
	assert_false(f.fix_of_fix);
	assert_int_equal(f.method, method);

	/* a fix of that fix */
	resolve(&f, h, "lib: fix the qux fix", r, 0);
	assert_string_equal(f.target, id_of("lib: fix qux null pointer"));
	assert_true(f.fix_of_fix);
	assert_false(f.released_before_fix);

	/* a fix of an old commit: first release v1.0, lived through two */
	resolve(&f, h, "lib: fix foo bounds", r, 0);
	assert_string_equal(f.target, id_of("lib: add foo"));
	assert_true(f.released_before_fix);
	assert_string_equal(f.first_release_tag, "v1.0");
	assert_int_equal(f.first_release, 0);
	assert_int_equal(f.releases_since, 2);
	assert_true(f.age_days > 59.99 && f.age_days < 60.01);
	assert_true(f.shipped_days > 49.99 && f.shipped_days < 50.01);
	assert_int_equal(f.method, method);

	/* a revert of a released commit */
	resolve(&f, h, "Revert \"lib: add baz\"", r, 0);
	assert_int_equal(f.nreverts, 1);
	assert_int_equal(f.targets[0].how, SS_ORIGIN_REVERT);
	assert_string_equal(f.target, id_of("lib: add baz"));
	assert_false(f.targets[0].subject_mismatch);
	assert_true(f.revert_of_released);
	assert_string_equal(f.first_release_tag, "v2.0");

	/* an ambiguous 4-digit id settled by its quoted subject ... */
	resolve(&f, h, "lib: fix after filler", r, 0);
	assert_true(f.target_found);
	assert_true(f.targets[0].by_subject);
	assert_int_equal(f.targets[0].nmatches, 2);
	{
		char want[16];

		snprintf(want, sizeof(want), "filler %d", filler_a);
		assert_string_equal(f.target, id_of(want));
	}
	assert_false(f.released_before_fix);
	/* ... or reported ambiguous */
	resolve(&f, h, "lib: fix something ambiguous", r, 0);
	assert_false(f.target_found);
	assert_int_equal(f.nambiguous, 1);
	assert_true(f.targets[0].ambiguous);
	assert_int_equal(f.targets[0].nmatches, 2);
	assert_int_equal(f.primary, -1);
	assert_true(f.age_days < 0);

	/* a quoted subject that is not the commit's */
	resolve(&f, h, "lib: fix foo again", r, 0);
	assert_true(f.target_found);
	assert_int_equal(f.nmismatch, 1);
	assert_true(f.targets[0].subject_mismatch);
	assert_string_equal(f.target, id_of("lib: add foo"));

	/* nothing to go by */
	resolve(&f, h, "lib: fix foo length", r, 0);
	assert_int_equal(f.ntargets, 0);
	assert_false(f.target_found);
}

static void test_resolve_graph(void **state)
{
	ss_histidx_facts f;
	ss_releases *r;
	ss_histidx *h;

	(void)state;
	assert_int_equal(ss_releases_from_repo(&r, repo, NULL), 0);
	/* targets looked up in the repository only */
	assert_int_equal(ss_histidx_new(&h), 0);
	assert_int_equal(ss_histidx_open_repo(h, repo), 0);
	check_common(h, r, SS_RELEASE_GRAPH);

	/* blame finds the commit that introduced the line a fix changes */
	resolve(&f, h, "lib: fix foo length", r, 1);
	assert_true(f.blamed);
	assert_true(f.target_found);
	assert_int_equal(f.targets[0].how, SS_ORIGIN_BLAME);
	assert_string_equal(f.target, id_of("lib: tune foo length"));
	assert_true(f.confidence > 0.99);
	assert_true(f.released_before_fix);
	assert_string_equal(f.first_release_tag, "v2.0");
	assert_int_equal(f.method, SS_RELEASE_GRAPH);
	/* a one-line change in an old function: blame goes to the commit that
	 * wrote the line, and the tag says nothing else */
	resolve(&f, h, "lib: fix foo bounds", r, 1);
	assert_false(f.blamed);
	ss_histidx_free(h);

	/* the same with the commits in the index and the repository behind */
	assert_int_equal(ss_histidx_new(&h), 0);
	for (size_t i = 0; i < ncommits; i++)
		assert_int_equal(ss_histidx_add_commit(h, commits[i]), 0);
	assert_int_equal(ss_histidx_open_repo(h, repo), 0);
	check_common(h, r, SS_RELEASE_GRAPH);
	ss_histidx_free(h);
	ss_releases_free(r);
}

static void test_blame(void **state)
{
	ss_blame_candidate c[4];
	ss_histidx *h;
	size_t n;

	(void)state;
	assert_int_equal(ss_histidx_new(&h), 0);
	assert_int_equal(ss_blame_introducers(c, 4, &n, h, by_subject("lib: fix foo length")),
			 SS_EINVALID);
	assert_int_equal(ss_histidx_open_repo(h, repo), 0);
	assert_int_equal(ss_blame_introducers(c, 4, &n, h, by_subject("lib: fix foo length")), 0);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].id, id_of("lib: tune foo length"));
	assert_int_equal(c[0].lines, 1);
	assert_true(c[0].confidence > 0.99);
	assert_int_equal(c[0].time, 1700000000 + 20 * 86400);
	/* a fix that changes a line of the first commit */
	assert_int_equal(ss_blame_introducers(c, 4, &n, h, by_subject("lib: fix foo bounds")), 0);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].id, id_of("lib: add foo"));
	/* a commit that only adds a file blames nothing */
	assert_int_equal(ss_blame_introducers(c, 4, &n, h, by_subject("lib: add qux")), 0);
	assert_int_equal(n, 0);
	ss_histidx_free(h);
}

static void add_source(ss_histidx *h, const char *spec)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_source *src;
	ss_commit *c;

	opts.with_diff = 0;
	assert_int_equal(ss_source_open(&src, spec, &opts), 0);
	while (!ss_source_next(&c, src)) {
		assert_int_equal(ss_histidx_add_commit(h, c), 0);
		ss_commit_free(c);
	}
	ss_source_free(src);
}

static void test_resolve_mail(void **state)
{
	ss_releases *r;
	ss_histidx *h;

	(void)state;
	assert_int_equal(ss_histidx_new(&h), 0);
	add_source(h, mbox);
	assert_int_equal(ss_histidx_count(h), ncommits);
	/* release commits in the mbox: its order decides */
	assert_int_equal(ss_releases_load_tsv(&r, reltsv), 0);
	check_common(h, r, SS_RELEASE_ORDER);
	ss_releases_free(r);
	/* release commits elsewhere: dates decide */
	assert_int_equal(ss_releases_load_tsv(&r, datetsv), 0);
	check_common(h, r, SS_RELEASE_DATE);
	ss_releases_free(r);
	ss_histidx_free(h);
}

static void test_no_releases(void **state)
{
	ss_histidx_facts f;
	ss_histidx *h;

	(void)state;
	assert_int_equal(ss_histidx_new(&h), 0);
	add_source(h, mbox);
	assert_int_equal(ss_histidx_resolve(&f, h, by_subject("lib: fix foo bounds"), NULL, NULL), 0);
	assert_true(f.target_found);
	assert_int_equal(f.method, SS_RELEASE_NONE);
	assert_false(f.released_before_fix);
	assert_int_equal(f.first_release, -1);
	ss_histidx_free(h);
}

static char *run_origin(const char *args, int want_rc)
{
	char path[700];
	char *out;
	int rc;

	rc = test_run("./stablesel origin %s >'%s/out' 2>'%s/err'", args, tmp, tmp);
	snprintf(path, sizeof(path), "%s/out", tmp);
	out = test_read_file(path, NULL);
	assert_non_null(out);
	if (rc != want_rc) {
		snprintf(path, sizeof(path), "%s/err", tmp);
		fprintf(stderr, "origin %s: exit %d\n%s", args, rc, test_read_file(path, NULL));
	}
	assert_int_equal(rc, want_rc);
	return out;
}

static void test_origin_cli(void **state)
{
	char args[2048], want[256];
	char *out;

	(void)state;
	if (access(test_bin(), X_OK)) {
		printf("SKIP: %s not built\n", test_bin());
		skip();
	}
	snprintf(args, sizeof(args), "--repo '%s' %.12s %.10s %.8s", repo,
		 id_of("lib: fix qux null pointer"), id_of("lib: fix foo bounds"),
		 id_of("lib: fix foo length"));
	out = run_origin(args, 0);
	snprintf(want, sizeof(want), "  => fixes %.12s (\"lib: add qux\"), bug introduced in this cycle, never released\n",
		 id_of("lib: add qux"));
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "  => fixes %.12s (\"lib: add foo\"), bug shipped in v1.0, 50 days ago\n",
		 id_of("lib: add foo"));
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "  => probably fixes %.12s (\"lib: tune foo length\") (blame, confidence 1.00), bug shipped in v2.0",
		 id_of("lib: tune foo length"));
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "  fixes-tag  "));
	assert_non_null(strstr(out, "  blame      "));
	free(out);

	/* revisions work in repository mode; --no-blame */
	snprintf(args, sizeof(args), "--repo '%s' --no-blame HEAD~3", repo);
	out = run_origin(args, 0);
	assert_non_null(strstr(out, "  => no Fixes: tag and no revert\n"));
	free(out);

	/* mail: the mbox with the releases TSV */
	snprintf(args, sizeof(args), "'%s' --releases '%s' %.12s", mbox, reltsv, id_of("lib: fix foo bounds"));
	out = run_origin(args, 0);
	snprintf(want, sizeof(want), "  => fixes %.12s (\"lib: add foo\"), bug shipped in v1.0, 50 days ago\n",
		 id_of("lib: add foo"));
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "(by order of the mail source)"));
	free(out);
	/* ... and a --history source holding the target */
	snprintf(args, sizeof(args), "'%s' --history '%s' --releases '%s' %.12s", mbox, repo, datetsv,
		 id_of("lib: fix something ambiguous"));
	out = run_origin(args, 0);
	assert_non_null(strstr(out, "ambiguous: 2 commits match"));
	free(out);

	/* a commit that is not there: exit 1; no commit: usage */
	snprintf(args, sizeof(args), "'%s' --releases '%s' deadbeef", mbox, reltsv);
	out = run_origin(args, 1);
	free(out);
	snprintf(args, sizeof(args), "'%s'", mbox);
	out = run_origin(args, 129);
	free(out);
}

/* ------------------------------------------------------------------ */
/* ../shared/data/dpdk */

struct label {
	char sha[41];
	int in_stable, stable_tag;
};

static int label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct label *)a)->sha, ((const struct label *)b)->sha);
}

static struct label *read_labels(size_t *n)
{
	char path[600], line[1024];
	struct label *v = NULL;
	size_t cap = 0;
	FILE *f;

	*n = 0;
	snprintf(path, sizeof(path), "%s/dpdk/labels-v16.11-v22.03.tsv", test_data_dir());
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, "in_stable"));
	while (fgets(line, sizeof(line), f)) {
		char sha[64], branches[512];
		long long t;
		int in, tag, fixes;

		if (sscanf(line, "%63s %lld %d %511s %d %d", sha, &t, &in, branches, &tag, &fixes) != 6)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 4096;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		snprintf(v[*n].sha, sizeof(v[*n].sha), "%.40s", sha);
		v[*n].in_stable = in;
		v[*n].stable_tag = tag;
		(*n)++;
	}
	fclose(f);
	qsort(v, *n, sizeof(*v), label_cmp);
	return v;
}

struct rate {
	size_t n, stable;
};

static void print_rate(const char *what, const struct rate *r)
{
	printf("  %-34s %5zu commits, %5.1f%% in stable\n", what, r->n,
	       r->n ? 100.0 * (double)r->stable / (double)r->n : 0.0);
}

static void test_dpdk(void **state)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	char path[600];
	struct label *labels, key, *l;
	struct rate age[2][3], rel[2][2], unknown[2];
	size_t nlabels, nfix = 0, cap = 0, i, targets = 0, found = 0, ambiguous = 0, mismatch = 0;
	size_t by_date = 0;
	ss_commit **fixes = NULL, *c;
	ss_releases *r, *rd;
	ss_source *src;
	ss_histidx *h;
	size_t ndiffer[2] = { 0, 0 }, sdiffer[2] = { 0, 0 };
	int k;

	(void)state;
	SS_REQUIRE_DATA();
	memset(age, 0, sizeof(age));
	memset(rel, 0, sizeof(rel));
	memset(unknown, 0, sizeof(unknown));
	labels = read_labels(&nlabels);
	assert_true(nlabels > 20000);
	snprintf(path, sizeof(path), "%s/dpdk/releases.tsv", test_data_dir());
	assert_int_equal(ss_releases_load_tsv(&r, path), 0);
	assert_true(ss_releases_count(r) > 20);
	/* the same releases with ids no source has: placed by dates only */
	assert_int_equal(test_run("awk -F'\\t' 'NR == 1 { print; next } "
				  "{ printf \"%%s\\t%%040d\\t%%s\\n\", $1, NR, $3 }' '%s' >'%s/dates-only.tsv'",
				  path, tmp), 0);
	snprintf(path, sizeof(path), "%s/dates-only.tsv", tmp);
	assert_int_equal(ss_releases_load_tsv(&rd, path), 0);
	assert_int_equal(ss_releases_count(rd), ss_releases_count(r));

	/* one pass: index everything, keep the commits that name a target */
	assert_int_equal(ss_histidx_new(&h), 0);
	snprintf(path, sizeof(path), "%s/dpdk/mainline-v16.11-v22.03.mbox.zst", test_data_dir());
	opts.with_diff = 0;
	assert_int_equal(ss_source_open(&src, path, &opts), 0);
	while ((k = ss_source_next(&c, src)) != SS_ITEROVER) {
		if (k == SS_ESKIP)
			continue;
		assert_int_equal(k, 0);
		assert_int_equal(ss_histidx_add_commit(h, c), 0);
		if (!ss_commit_trailer(c, "Fixes", NULL)) {
			ss_commit_free(c);
			continue;
		}
		if (nfix == cap) {
			cap = cap ? cap * 2 : 4096;
			fixes = realloc(fixes, cap * sizeof(*fixes));
			assert_non_null(fixes);
		}
		fixes[nfix++] = c;
	}
	ss_source_free(src);

	for (i = 0; i < nfix; i++) {
		ss_histidx_facts f;
		int tagged, b;

		assert_int_equal(ss_histidx_resolve(&f, h, fixes[i], r, NULL), 0);
		for (k = 0; k < (int)f.ntargets; k++) {
			const ss_histidx_target *t = &f.targets[k];

			if (t->how != SS_ORIGIN_FIXES_TAG)
				continue;
			targets++;
			found += (size_t)t->found;
			ambiguous += (size_t)t->ambiguous;
			mismatch += (size_t)t->subject_mismatch;
		}
		targets += f.ndropped;
		snprintf(key.sha, sizeof(key.sha), "%s", fixes[i]->id);
		l = bsearch(&key, labels, nlabels, sizeof(*labels), label_cmp);
		assert_non_null(l);
		for (tagged = 0; tagged < 2; tagged++) {
			if (tagged && !l->stable_tag)
				continue;
			if (!f.target_found) {
				unknown[tagged].n++;
				unknown[tagged].stable += (size_t)l->in_stable;
				continue;
			}
			b = f.age_days < 90 ? 0 : f.age_days <= 180 ? 1 : 2;
			age[tagged][b].n++;
			age[tagged][b].stable += (size_t)l->in_stable;
			rel[tagged][f.released_before_fix].n++;
			rel[tagged][f.released_before_fix].stable += (size_t)l->in_stable;
		}
		by_date += f.target_found && f.method == SS_RELEASE_DATE;
		{
			ss_histidx_facts d;

			assert_int_equal(ss_histidx_resolve(&d, h, fixes[i], rd, NULL), 0);
			assert_true(!d.target_found || d.method == SS_RELEASE_DATE);
			if (d.released_before_fix != f.released_before_fix) {
				ndiffer[d.released_before_fix]++;
				sdiffer[d.released_before_fix] += (size_t)l->in_stable;
			}
		}
		ss_commit_free(fixes[i]);
	}
	printf("dpdk: %zu commits indexed, %zu with Fixes:, %zu Fixes: targets, %zu found (%.1f%%), "
	       "%zu ambiguous, %zu subject mismatches; %zu placed by dates\n",
	       ss_histidx_count(h), nfix, targets, found, 100.0 * (double)found / (double)targets,
	       ambiguous, mismatch, by_date);
	printf("dates alone disagree with the mail order: released by dates only %zu (%zu in stable), "
	       "by order only %zu (%zu in stable)\n", ndiffer[1], sdiffer[1], ndiffer[0], sdiffer[0]);
	for (k = 0; k < 2; k++) {
		printf("%s:\n", k ? "stable-tagged fixes" : "all fixes");
		print_rate("target < 90 days old", &age[k][0]);
		print_rate("target 90-180 days old", &age[k][1]);
		print_rate("target > 180 days old", &age[k][2]);
		print_rate("target released before the fix", &rel[k][1]);
		print_rate("target never released", &rel[k][0]);
		print_rate("target not found", &unknown[k]);
	}
	/* measured 81.8% (targets older than v16.11 are not in the mbox) */
	assert_true((double)found / (double)targets > 0.80);
	/* the point of it all: young bugs are rarely stable material */
	assert_true(age[1][0].stable * age[1][2].n < age[1][2].stable * age[1][0].n);
	assert_true(rel[0][0].stable * rel[0][1].n < rel[0][1].stable * rel[0][0].n);
	free(fixes);
	free(labels);
	ss_releases_free(rd);
	ss_releases_free(r);
	ss_histidx_free(h);
}

/* The one rule of release names: parts kept as written, -rc and point
 * releases told apart from mainline ones, subjects of release commits. */
static void test_release_version(void **state)
{
	static const struct {
		const char *name;
		int ok, mainline, rc;
		const char *major, *minor, *patch, *text;
	} cases[] = {
		{ "v22.11", 1, 1, 0, "22", "11", "", "22.11" },
		{ "22.03.0", 1, 1, 0, "22", "03", "0", "22.03.0" },
		{ "v22.11.1", 1, 0, 0, "22", "11", "1", "22.11.1" },
		{ "v6.6", 1, 1, 0, "6", "6", "", "6.6" },
		{ "v6.6.12", 1, 0, 0, "6", "6", "12", "6.6.12" },
		{ "v6.7-rc1", 1, 0, 1, "6", "7", "", "6.7" },
		{ "v2.0.0", 1, 1, 0, "2", "0", "0", "2.0.0" },
		{ "v2.6.11-rc3", 1, 0, 3, "2", "6", "11", "2.6.11" },
		{ "v6", 1, 1, 0, "6", "", "", "6" },
		{ "v255.13", 1, 1, 0, "255", "13", "", "255.13" },
		{ "v255-rc1", 1, 0, 1, "255", "", "", "255" },
		{ "name-4.20.0", 1, 1, 0, "4", "20", "0", "4.20.0" },
		{ "llvmorg-17.0.1", 1, 0, 0, "17", "0", "1", "17.0.1" },
		{ "llvmorg-17.0.0-rc1", 1, 0, 1, "17", "0", "0", "17.0.0" },
		{ "curl-8_5_0", 1, 1, 0, "8", "5", "0", "8.5.0" },
		{ "4.2.1", 1, 0, 0, "4", "2", "1", "4.2.1" },
		{ "4.2.0rc1", 1, 0, 1, "4", "2", "0", "4.2.0" },
		{ "255", 0, 0, 0, NULL, NULL, NULL, NULL },
		{ "udev-182", 1, 1, 0, "182", "", "", "182" },
		{ "v239-10", 0, 0, 0, NULL, NULL, NULL, NULL },
		{ "debian/4.2.1", 0, 0, 0, NULL, NULL, NULL, NULL },
		{ "v6.6-tree", 0, 0, 0, NULL, NULL, NULL, NULL },
		{ "next-20240101", 0, 0, 0, NULL, NULL, NULL, NULL },
		{ "v6.6.", 0, 0, 0, NULL, NULL, NULL, NULL },
		{ "v6.6-rc", 0, 0, 0, NULL, NULL, NULL, NULL },
		{ "", 0, 0, 0, NULL, NULL, NULL, NULL },
	};
	ss_release_version v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = ss_release_version_parse(&v, cases[i].name);

		assert_int_equal(rc == 0, cases[i].ok);
		if (!cases[i].ok)
			continue;
		assert_string_equal(v.major, cases[i].major);
		assert_string_equal(v.minor, cases[i].minor);
		assert_string_equal(v.patch, cases[i].patch);
		assert_string_equal(v.text, cases[i].text);
		assert_int_equal(v.rc, cases[i].rc);
		assert_int_equal(ss_release_version_is_mainline(&v), cases[i].mainline);
	}
	assert_int_equal(ss_release_version_of_subject(&v, "version: 21.11.0"), 0);
	assert_string_equal(v.text, "21.11.0");
	assert_int_equal(ss_release_version_of_subject(&v, "Linux 6.6.12"), 0);
	assert_string_equal(v.patch, "12");
	assert_int_equal(ss_release_version_of_subject(&v, "version: 22.11.0-rc4\n"), 0);
	assert_int_equal(v.rc, 4);
	assert_int_equal(ss_release_version_of_subject(&v, "version 2.2.0"), 0);
	assert_int_equal(ss_release_version_of_subject(&v, "version: 21.11.0 released"), 0);
	assert_int_not_equal(ss_release_version_of_subject(&v, "versions: 21.11.0"), 0);
	/* a version followed by words still names a release ("Linux 6.6 fix") */
	assert_int_equal(ss_release_version_of_subject(&v, "Linux 6.6 fix"), 0);
	assert_int_not_equal(ss_release_version_of_subject(&v, "linux: fix 6.6.1"), 0);
	assert_int_not_equal(ss_release_version_of_subject(&v, "version: 21.11.0x"), 0);
	assert_int_not_equal(ss_release_version_of_subject(&v, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fixes),
		cmocka_unit_test(test_releases),
		cmocka_unit_test(test_release_version),
		cmocka_unit_test(test_lookup_prefix),
		cmocka_unit_test(test_resolve_graph),
		cmocka_unit_test(test_blame),
		cmocka_unit_test(test_resolve_mail),
		cmocka_unit_test(test_no_releases),
		cmocka_unit_test(test_origin_cli),
		cmocka_unit_test(test_dpdk),
	};
	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, setup, teardown);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
