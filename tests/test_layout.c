/*
 * test_layout.c - what the index finds by itself (labels/layout.h, issue
 * 23 items 1-5): the mainline whatever HEAD is (a stable branch, detached,
 * a 2-commit default branch, a worktree), the candidates named when none
 * stands out, a branch and a tag of one name; release kinds from the graph
 * in every tag scheme (tests/layoutrepo.sh); branch roles (remote copies,
 * staging areas, end of life, --branches and stablesel.branches); the
 * defaults that follow (--onto-upstream, --verdicts without a list,
 * "index DIR"); rank's exit status with a blob missing; the layout an
 * update keeps, taken by the next from the same refs.  On
 * ../shared/data: DPDK with HEAD on a 2-commit branch indexes as with
 * HEAD on main.
 */
#include "testutil.h"

#include "labels/layout.h"
#include "util/error.h"

static char tmpdir[2048], base[4096];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/ss-test-layout-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(base, sizeof(base), "%s/base", tmpdir);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	return test_run("sh '%s' '%s'", test_gitrepo_script(), base);
}

static int teardown(void **state)
{
	(void)state;
	return test_run("rm -rf '%s'", tmpdir);
}

/* A fresh copy of the base repository as tmpdir/name (into out). */
static void copy_base(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", tmpdir, name);
	assert_int_equal(test_run("rm -rf '%s' && cp -r '%s' '%s'", out, base, out), 0);
}

/* The rows of sql on the index at db, as sqlite3 prints them. */
static char *sql(const char *db, const char *query)
{
	return test_run_output("sqlite3 '%s' \"%s\"", db, query);
}

/* Index repo into db (removed first) with extra options; stderr into
 * tmpdir/err, returned; *rc the exit status. */
static char *index_repo(int *rc, const char *repo, const char *db, const char *extra)
{
	assert_int_equal(test_run("rm -f '%s'", db), 0);
	*rc = test_run("./stablesel index --no-progress --repo '%s' --db '%s' %s 2>'%s/err'", repo, db,
		       extra, tmpdir);
	return test_run_output("cat '%s/err'", tmpdir);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* HEAD on a stable branch, detached, on a 2-commit branch: main. */
static void test_mainline_found(void **state)
{
	char r[4200], a[4300], b[4300], *err, *x, *y;
	int rc;

	(void)state;
	copy_base(r, sizeof(r), "found");
	snprintf(a, sizeof(a), "%s/a.db", tmpdir);
	snprintf(b, sizeof(b), "%s/b.db", tmpdir);
	/* a stable branch as HEAD, as systemd's stable mirror has */
	assert_int_equal(test_run("git -C '%s' checkout -q stable-1.y", r), 0);
	err = index_repo(&rc, r, a, "");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "note: HEAD is stable-1.y, the mainline is main"));
	assert_int_equal(count(err, "HEAD is stable-1.y, the mainline"), 1);
	assert_non_null(strstr(err, "note: mainline main (found; HEAD is stable-1.y), 2 release tags: "
			       "2 mainline, 0 stable, 0 rc"));
	free(err);
	x = sql(a, "SELECT name FROM refs WHERE kind = 'mainline'; SELECT value FROM meta WHERE key"
		" IN ('mainline', 'mainline_how') ORDER BY key");
	assert_string_equal(x, "main\nrefs/heads/main\nfound\n");
	free(x);
	x = sql(a, "SELECT name, kind FROM refs WHERE name LIKE 'stable%' ORDER BY name");
	assert_string_equal(x, "stable-1.y|stable\nstable-2.y|stable\n");
	free(x);
	/* detached: never "HEAD" as the mainline; the same rows */
	assert_int_equal(test_run("git -C '%s' checkout -q --detach main~2", r), 0);
	err = index_repo(&rc, r, b, "");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "note: HEAD is no branch: the mainline is main"));
	free(err);
	x = test_run_output("sqlite3 '%s' .dump", a);
	y = test_run_output("sqlite3 '%s' .dump", b);
	assert_string_equal(x, y);
	assert_null(strstr(x, "'HEAD'"));
	free(x);
	free(y);
	/* a 2-commit default branch as HEAD (DPDK's stable mirror) */
	assert_int_equal(test_run("cd '%s' && git checkout -q --orphan default && git rm -rqf . && "
				  "echo hi > README && git add README && git -c user.name=A -c user.email=a@b "
				  "commit -qm one && echo ho >> README && git -c user.name=A -c "
				  "user.email=a@b commit -qam two", r), 0);
	err = index_repo(&rc, r, a, "");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "note: HEAD is default, the mainline is main"));
	free(err);
	x = sql(a, "SELECT name FROM refs WHERE kind = 'mainline'");
	assert_string_equal(x, "main\n");
	free(x);
	x = sql(a, "SELECT count(*) FROM commits WHERE mainline = 1");
	assert_string_equal(x, "13\n");
	free(x);
	/* named: what --mainline says, recorded as named */
	err = index_repo(&rc, r, b, "--mainline main");
	assert_int_equal(rc, 0);
	assert_null(strstr(err, "HEAD is"));
	free(err);
	x = sql(b, "SELECT value FROM meta WHERE key = 'mainline_how'");
	assert_string_equal(x, "named\n");
	free(x);
}

/* No branch stands out: HEAD's branch with a note; detached, stop and
 * name the candidates and --mainline. */
static void test_mainline_ambiguous(void **state)
{
	char r[4200], db[4300], *err;
	int rc;

	(void)state;
	snprintf(r, sizeof(r), "%s/twins", tmpdir);
	snprintf(db, sizeof(db), "%s/twins.db", tmpdir);
	assert_int_equal(test_run(
		"rm -rf '%s' && git -c init.defaultBranch=main init -q '%s' && cd '%s' && "
		"export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b && "
		"echo 0 > f && git add f && git commit -qm root && git checkout -qb other && "
		"for i in 1 2 3; do echo o$i >> f; git commit -qam o$i; done && git checkout -q main && "
		"for i in 1 2 3; do echo m$i >> g; git add g; git commit -qm m$i; done", r, r, r), 0);
	/* HEAD's branch decides when none stands out, with a note */
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "note: no branch stands out as the mainline (main: 4 commits, 0 "
			       "release tags, other (4 commits, 0 release tags) could be): HEAD's branch "
			       "main is taken"));
	free(err);
	/* detached: nothing decides, stop */
	assert_int_equal(test_run("git -C '%s' checkout -q --detach main", r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 128);
	assert_non_null(strstr(err, "cannot tell the mainline of"));
	assert_non_null(strstr(err, "main (4 commits, 0 release tags)"));
	assert_non_null(strstr(err, "other (4 commits, 0 release tags)"));
	assert_non_null(strstr(err, "--mainline"));
	free(err);
	assert_int_equal(test_run("test -e '%s'", db), 1);
	err = index_repo(&rc, r, db, "--mainline other");
	assert_int_equal(rc, 0);
	free(err);
}

/* A worktree on a stable branch: main is the mainline, the index goes
 * into the common git directory; a tag named as a branch: the branch. */
static void test_worktree_and_tag_clash(void **state)
{
	char r[4200], wt[4300], db[4300], *err, *x, *tip;
	int rc;

	(void)state;
	copy_base(r, sizeof(r), "wt");
	snprintf(wt, sizeof(wt), "%s/wt1", tmpdir);
	assert_int_equal(test_run("git -C '%s' worktree add -q '%s' stable-1.y", r, wt), 0);
	assert_int_equal(test_run("./stablesel index --no-progress '%s' 2>'%s/err'", wt, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "note: HEAD is stable-1.y, the mainline is main"));
	free(err);
	assert_int_equal(test_run("test -f '%s/.git/stablesel/index.db'", r), 0);
	assert_int_equal(test_run("test -e '%s/.git/worktrees/wt1/stablesel'", r), 1);
	/* a tag stable-2.y on main's root: the branch is read, one warning */
	assert_int_equal(test_run("git -C '%s' tag stable-2.y main~10", r), 0);
	snprintf(db, sizeof(db), "%s/clash.db", tmpdir);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	assert_int_equal(count(err, "'stable-2.y' is both a branch and a tag: the branch is read"), 1);
	free(err);
	tip = test_run_output("git -C '%s' rev-parse refs/heads/stable-2.y", r);
	x = sql(db, "SELECT tip FROM refs WHERE name = 'stable-2.y' AND kind = 'stable'");
	assert_string_equal(x, tip);
	free(x);
	free(tip);
	x = sql(db, "SELECT count(*) FROM backports WHERE branch = 'stable-2.y'");
	assert_string_equal(x, "1\n");
	free(x);
}

static const char *const schemes[][4] = {
	/* MAIN1, MAIN2, POINT, RC */
	{ "v6.5", "v6.6", "v6.6.1", "v6.6-rc1" },
	{ "v22.07", "v22.11", "v22.11.1", "v22.11-rc1" },
	{ "v254", "v255", "v255.13", "v255-rc1" },
	{ "name-4.19.0", "name-4.20.0", "name-4.20.1", "name-4.20.0-rc1" },
	{ "llvmorg-16.0.0", "llvmorg-17.0.0", "llvmorg-17.0.1", "llvmorg-17.0.0-rc1" },
	{ "curl-8_4_0", "curl-8_5_0", "curl-8_5_1", "curl-8_5_0-rc1" },
	{ "4.1.0", "4.2.0", "4.2.1", "4.2.0rc1" },
};

/* Release kinds from the graph, whatever the tags' scheme. */
static void test_release_kinds(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(schemes) / sizeof(*schemes); i++) {
		const char *const *s = schemes[i];
		char r[4200], db[4300], q[256], *x, *err;
		ss_layout *l;
		int rc;

		snprintf(r, sizeof(r), "%s/scheme%zu", tmpdir, i);
		assert_int_equal(test_run("sh tests/layoutrepo.sh '%s' '%s' '%s' '%s' '%s'", r, s[0], s[1],
					  s[2], s[3]), 0);
		/* HEAD on the stable branch changes nothing */
		assert_int_equal(test_run("git -C '%s' checkout -q stable", r), 0);
		if (ss_layout_find(&l, r, NULL))
			fail_msg("%s: %s", s[1], ss_error_last());
		assert_string_equal(l->mainline_name, "main");
		assert_non_null(l->note);
		assert_int_equal(l->nreleases, 4);
		assert_string_equal(ss_layout_release_kind(l, s[0]), "mainline");
		assert_string_equal(ss_layout_release_kind(l, s[1]), "mainline");
		assert_string_equal(ss_layout_release_kind(l, s[2]), "stable");
		assert_string_equal(ss_layout_release_kind(l, s[3]), "rc");
		ss_layout_free(l);
		/* the index records them so (its releases leave out rc tags) */
		snprintf(db, sizeof(db), "%s/scheme%zu.db", tmpdir, i);
		err = index_repo(&rc, r, db, "");
		assert_int_equal(rc, 0);
		assert_non_null(strstr(err, "4 release tags: 2 mainline, 1 stable, 1 rc"));
		free(err);
		snprintf(q, sizeof(q), "SELECT kind FROM releases ORDER BY time, tag");
		x = sql(db, q);
		assert_string_equal(x, "mainline\nmainline\nstable\n");
		free(x);
		x = sql(db, "SELECT count(*) FROM commits WHERE first_release IS NOT NULL");
		assert_string_equal(x, "4\n");
		free(x);
	}
}

/* Remote copies once, staging areas and end-of-life branches no target,
 * unless --branches or stablesel.branches names them. */
static void test_branch_roles(void **state)
{
	char r[4200], db[4300], *err, *x;
	int rc;

	(void)state;
	copy_base(r, sizeof(r), "roles");
	snprintf(db, sizeof(db), "%s/roles.db", tmpdir);
	assert_int_equal(test_run(
		"cd '%s' && export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A "
		"GIT_COMMITTER_EMAIL=a@b && "
		"git update-ref refs/remotes/origin/stable-1.y stable-1.y~1 && "
		"git update-ref refs/remotes/github/stable-1.y stable-1.y && "
		"git update-ref refs/remotes/github/stable-2.y stable-2.y && "
		"git checkout -q -b stable-2.y-staging stable-2.y && echo q >> queued.c && git add queued.c && "
		"GIT_AUTHOR_DATE='1700090000 +0000' GIT_COMMITTER_DATE='1700090000 +0000' "
		"git commit -qm 'queued: a fix' -m \"(cherry picked from commit $(git rev-parse main))\" && "
		"git checkout -q -b old-0.y $(git rev-list --max-parents=0 main) && echo o >> old.c && "
		"git add old.c && GIT_AUTHOR_DATE='1600000000 +0000' GIT_COMMITTER_DATE='1600000000 +0000' "
		"git commit -qm 'old: a fix' -m \"(cherry picked from commit $(git rev-list main | tail -2 | "
		"head -1))\" && "
		"git checkout -q main", r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "branches: 3 stable, 1 staging, 1 end-of-life, 3 copy"));
	free(err);
	x = sql(db, "SELECT substr(key, 6) || '=' || value FROM meta WHERE key LIKE 'role:%' ORDER BY key");
	assert_string_equal(x, "github/stable-1.y=copy\ngithub/stable-2.y=copy\nold-0.y=end-of-life\n"
			    "origin/stable-1.y=copy\nstable-2.y-staging=staging\n");
	free(x);
	/* each copy counted once: no ref of a remote-tracking branch */
	x = sql(db, "SELECT group_concat(name, ' ') FROM refs WHERE name LIKE '%/%'");
	assert_string_equal(x, "\n");
	free(x);
	/* the staging area is read (what it holds is known) */
	x = sql(db, "SELECT kind FROM refs WHERE name = 'stable-2.y-staging'");
	assert_string_equal(x, "stable\n");
	free(x);
	/* rank's default targets: the two maintained branches */
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --db '%s' --rev v2.0..main "
				  "--verdicts --top 50 >/dev/null 2>'%s/err'", r, db, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "stable branches from index '"));
	assert_non_null(strstr(err, "': stable-2.y stable-1.y\n"));
	free(err);
	/* named: every branch matching, whatever its role */
	err = index_repo(&rc, r, db, "--branches 'stable-*'");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "branches: 3 stable, 3 copy, 2 unnamed"));
	free(err);
	assert_int_equal(test_run("git -C '%s' config stablesel.branches 'old-*'", r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "branches: 1 stable, 3 copy, 4 unnamed"));
	free(err);
	x = sql(db, "SELECT name FROM refs WHERE kind = 'stable'");
	assert_string_equal(x, "old-0.y\n");
	free(x);
}

/* --onto-upstream from the index; --verdicts --top 50; "index DIR". */
static void test_defaults(void **state)
{
	char r[4200], *err, *out;

	(void)state;
	copy_base(r, sizeof(r), "defaults");
	assert_int_equal(test_run("git -C '%s' checkout -q stable-1.y", r), 0);
	/* a repository as the operand: --repo, the default database */
	assert_int_equal(test_run("./stablesel index --no-progress '%s' 2>/dev/null", r), 0);
	out = test_run_output("sqlite3 '%s/.git/stablesel/index.db' \"SELECT name FROM refs WHERE kind ="
			      " 'stable' ORDER BY name\"", r);
	assert_string_equal(out, "stable-1.y\nstable-2.y\n");
	free(out);
	/* the README's form */
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --verdicts "
				  "--top 50 >'%s/out' 2>'%s/err'", r, tmpdir, tmpdir), 0);
	out = test_run_output("cat '%s/out'", tmpdir);
	assert_non_null(strstr(out, "stable-1.y: "));
	free(out);
	/* a branch moved since the index: read from the repository, with the
	 * index's mainline as the upstream, not HEAD (stable-1.y itself) */
	assert_int_equal(test_run("cd '%s' && echo x >> drivers/net/foo.c && git -c user.name=A -c "
				  "user.email=a@b commit -qam 'net: foo: stable tweak'", r), 0);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main "
				  "--onto stable-1.y --top 50 >/dev/null 2>'%s/err'", r, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "is stale for stable-1.y"));
	assert_null(strstr(err, "none of the branch's commits are read as backports"));
	free(err);
}

/* A blob missing (partial clone): one warning, every commit ranked, 0. */
static void test_missing_blob(void **state)
{
	char r[4200], *err, *out;

	(void)state;
	copy_base(r, sizeof(r), "partial");
	assert_int_equal(test_run("cd '%s' && b=$(git rev-parse main~2:fw/blob.bin) && "
				  "rm .git/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-) && "
				  "b=$(git rev-parse $(git rev-list --max-parents=0 main):README) && "
				  "rm .git/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-)", r), 0);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --no-index "
				  "--history 'git:%s' --format tsv --top 50 >'%s/out' 2>'%s/err'", r, r,
				  tmpdir, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_int_equal(count(err, "missing from the object store"), 1);
	assert_non_null(strstr(err, "3 changed files could not be diffed"));
	assert_null(strstr(err, "error:"));
	free(err);
	out = test_run_output("cat '%s/out'", tmpdir);
	assert_non_null(strstr(out, "\tfirmware: update foo blob\t"));
	assert_int_equal(test_count_lines(out), 11);
	free(out);
	out = test_run_output("./stablesel log --repo '%s' --rev main~3..main~2 2>/dev/null", r);
	assert_non_null(strstr(out, "{\"path\":\"fw/blob.bin\",\"status\":\"modified\",\"binary\":true,"
			       "\"added\":0,\"removed\":0,\"hunks\":0,\"unreadable\":\"missing object\"}"));
	free(out);
}

/* History commits that cannot be read (a tree missing): one warning, 0. */
static void test_history_unreadable(void **state)
{
	char r[4200], *err, *out;

	(void)state;
	copy_base(r, sizeof(r), "notree");
	assert_int_equal(test_run("cd '%s' && t=$(git rev-parse $(git rev-list --max-parents=0 main):drivers/net)"
				  " && rm .git/objects/$(echo $t | cut -c1-2)/$(echo $t | cut -c3-)", r), 0);
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --rev v1.0..main --no-index "
				  "--history 'git:%s' --format tsv --top 50 >'%s/out' 2>'%s/err'", r, r,
				  tmpdir, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_int_equal(count(err, "warning: 2 commits of the history could not be read and are left "
			       "out (first: commit "), 1);
	assert_null(strstr(err, "error:"));
	free(err);
	out = test_run_output("cat '%s/out'", tmpdir);
	assert_int_equal(test_count_lines(out), 11);
	free(out);
	/* a commit asked for that cannot be read is still an error */
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --no-index --format tsv "
				  "--top 50 >/dev/null 2>'%s/err'", r, tmpdir), 1);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_int_equal(count(err, "error: commit "), 2);
	free(err);
}

/* What an index run said of the layout (its note: and warning: lines,
 * from errfile; not the features' note of a first build) and what it
 * recorded (the layout's rows in meta). */
static char *layout_of(const char *db, const char *errfile)
{
	char *said = test_run_output("grep -E '^(note|warning): ' '%s' | grep -v 'kept the features' "
				     "|| true", errfile);
	char *rows = sql(db, "SELECT key, value FROM meta WHERE key IN ('mainline', 'mainline_how',"
			 " 'layout') OR key LIKE 'role:%' OR key LIKE 'local:%' ORDER BY key");
	char *out = malloc(strlen(said) + strlen(rows) + 2);

	assert_non_null(out);
	sprintf(out, "%s\n%s", said, rows);
	free(said);
	free(rows);
	return out;
}

/*
 * An update from the refs the last one read takes the layout it kept
 * (meta "layout") instead of walking the history: it says and records
 * what a fresh build says and records, and writes nothing.  Whatever
 * changes an input is found again, as a fresh build finds it: a new tag,
 * HEAD, a setting, a branch at the mainline's tip (HEAD breaks the tie),
 * a moved branch, a damaged text; packing the refs changes nothing.
 */
static void test_kept_layout(void **state)
{
	static const char *const steps[] = {
		"true",
		"git tag v9.0 main~1",
		"git checkout -q stable-1.y",
		"git config stablesel.eol 1d",
		"git config --unset stablesel.eol && git checkout -q main",
		"git branch tie main",
		"git checkout -q tie",
		"git checkout -q main",
		"git pack-refs --all",
		"git branch -D -q tie",
		"echo x >> lib.c && git add lib.c && git -c user.name=A -c user.email=a@b commit -qm more",
	};
	char r[4200], a[4300], b[4300], ea[4300], eb[4300], *x, *y;
	size_t i;

	(void)state;
	copy_base(r, sizeof(r), "kept");
	snprintf(a, sizeof(a), "%s/kept-a.db", tmpdir);
	snprintf(b, sizeof(b), "%s/kept-b.db", tmpdir);
	snprintf(ea, sizeof(ea), "%s/kept-a.err", tmpdir);
	snprintf(eb, sizeof(eb), "%s/kept-b.err", tmpdir);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null",
				  r, a), 0);
	for (i = 0; i < sizeof(steps) / sizeof(*steps); i++) {
		assert_int_equal(test_run("cd '%s' && %s", r, steps[i]), 0);
		x = test_run_output("sqlite3 '%s' .dump", a);
		assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>'%s'",
					  r, a, ea), 0);
		y = test_run_output("sqlite3 '%s' .dump", a);
		/* nothing new (no ref, no tag moved): nothing written */
		if (i == 0 || i == 2 || i == 8)
			assert_string_equal(x, y);
		free(x);
		free(y);
		assert_int_equal(test_run("rm -f '%s' && ./stablesel index --no-progress --repo '%s' "
					  "--db '%s' 2>'%s'", b, r, b, eb), 0);
		x = layout_of(a, ea);
		y = layout_of(b, eb);
		if (strcmp(x, y))
			fail_msg("after '%s': the update says and records\n%s\na fresh build\n%s",
				 steps[i], x, y);
		/* HEAD on the branch at the mainline's tip: that branch */
		if (i == 6)
			assert_non_null(strstr(x, "note: mainline tie (found; HEAD is tie)"));
		if (i == 2)
			assert_non_null(strstr(x, "note: HEAD is stable-1.y, the mainline is main"));
		free(x);
		free(y);
	}
	/* the layout kept is what the update takes, without a walk: a
	 * warning planted in it is said, until a ref moves */
	x = test_run_output("sqlite3 '%s' \"UPDATE meta SET value = replace(value, 'warning' || "
			    "char(9) || '-', 'warning' || char(9) || '+planted') WHERE key = 'layout'\" "
			    "&& ./stablesel index --no-progress --repo '%s' --db '%s' 2>&1", a, r, a);
	assert_non_null(strstr(x, "warning: planted\n"));
	free(x);
	x = test_run_output("cd '%s' && git tag v9.1 && cd - >/dev/null && ./stablesel index "
			    "--no-progress --repo '%s' --db '%s' 2>&1", r, r, a);
	assert_null(strstr(x, "planted"));
	free(x);
	/* cut at a line's end: found again (the planted warning is not said) */
	x = test_run_output("sqlite3 '%s' \"UPDATE meta SET value = replace(substr(value, 1, "
			    "instr(value, 'end' || char(9)) - 1), 'warning' || char(9) || '-', "
			    "'warning' || char(9) || '+planted') WHERE key = 'layout'\" && ./stablesel "
			    "index --no-progress --repo '%s' --db '%s' 2>&1", a, r, a);
	assert_null(strstr(x, "planted"));
	free(x);
	/* a damaged text is found again, and recorded whole */
	x = test_run_output("sqlite3 '%s' \"UPDATE meta SET value = value || 'branch' || char(9) || "
			    "'+x' WHERE key = 'layout'\" && ./stablesel index --no-progress --repo '%s' "
			    "--db '%s' 2>'%s'; rm -f '%s' && ./stablesel index --no-progress --repo '%s' "
			    "--db '%s' 2>'%s'", a, r, a, ea, b, r, b, eb);
	free(x);
	x = layout_of(a, ea);
	y = layout_of(b, eb);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

/* DPDK with HEAD on a 2-commit branch indexes as with HEAD on main. */
static void test_dpdk_default_branch(void **state)
{
	char dir[4200], a[4300], b[4300], x[4300], y[4300], *da, *db;
	int rc;

	(void)state;
	SS_REQUIRE_DATA();
	snprintf(dir, sizeof(dir), "%s/dpdk", tmpdir);
	snprintf(a, sizeof(a), "%s/dpdk-a.git", tmpdir);
	snprintf(b, sizeof(b), "%s/dpdk-b.git", tmpdir);
	snprintf(x, sizeof(x), "%s/dpdk-a.db", tmpdir);
	snprintf(y, sizeof(y), "%s/dpdk-b.db", tmpdir);
	assert_int_equal(test_run("mkdir -p '%s' && tar -xf '%s/dpdk/dpdk-v22.03.git.tar' -C '%s' && "
				  "mv '%s/dpdk.git' '%s'", dir, test_data_dir(), dir, dir, a), 0);
	/* a 2-commit branch "default", HEAD on it, as DPDK's stable mirror */
	assert_int_equal(test_run(
		"export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b "
		"GIT_AUTHOR_DATE='1640000000 +0000' GIT_COMMITTER_DATE='1640000000 +0000' && "
		"t=$(git -C '%s' hash-object -w -t tree /dev/null) && "
		"c1=$(echo one | git -C '%s' commit-tree $t) && c2=$(echo two | git -C '%s' commit-tree $t -p $c1) && "
		"git -C '%s' update-ref refs/heads/default $c2 && cp -r '%s' '%s' && "
		"git -C '%s' symbolic-ref HEAD refs/heads/default && "
		"git -C '%s' symbolic-ref HEAD refs/heads/main", a, a, a, a, a, b, a, b), 0);
	/* the two builds at once (each reads its own copy, writes its own
	 * database): the test takes one build's time, not two; the exit
	 * status says which failed (1: a's, 2: b's) */
	rc = test_run("./stablesel index --no-progress --repo '%s' --db '%s' 2>'%s/err' & "
		      "./stablesel index --no-progress --repo '%s' --db '%s' 2>/dev/null; b=$?; "
		      "wait $!; a=$?; exit $(( (a != 0) + 2 * (b != 0) ))", a, x, tmpdir, b, y);
	if (rc == -1 || rc & 1)
		fail_msg("%s", test_run_output("cat '%s/err'", tmpdir));
	assert_int_equal(rc, 0);
	da = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(da, "note: HEAD is default, the mainline is main"));
	free(da);
	da = test_run_output("sqlite3 '%s' .dump", x);
	db = test_run_output("sqlite3 '%s' .dump", y);
	assert_true(strlen(da) > 1000000);
	assert_string_equal(da, db);
	free(da);
	free(db);
	da = sql(x, "SELECT count(*) > 30000 FROM commits WHERE mainline = 1");
	assert_string_equal(da, "1\n");
	free(da);
	assert_int_equal(test_run("rm -rf '%s' '%s' '%s' '%s' '%s'", dir, a, b, x, y), 0);
}

/*
 * A mirror of stable branches only, as DPDK's dpdk-stable: no mainline
 * branch; the newest stable branch ("1.1") reaches the most commits, but
 * it is the stable branch of release v1.1, and the mainline is read up to
 * that tag.
 */
static void test_stable_branches_only(void **state)
{
	char r[4200], db[4300], *err, *x;
	int rc;

	(void)state;
	snprintf(r, sizeof(r), "%s/stable-only", tmpdir);
	snprintf(db, sizeof(db), "%s/stable-only.db", tmpdir);
	assert_int_equal(test_run("rm -rf '%s' && sh tests/layoutrepo.sh '%s' v1.0 v1.1 v1.1.1 v1.1-rc1 "
				  ">/dev/null && cd '%s' && git branch -q -m stable 1.1 && "
				  "git checkout -q 1.1 && git branch -q -D main", r, r, r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "no branch is the mainline: 1.1 is the stable branch of release "
			       "v1.1"));
	free(err);
	x = sql(db, "SELECT name FROM refs WHERE kind = 'mainline'; SELECT value FROM meta WHERE key"
		" = 'mainline_how'");
	assert_string_equal(x, "v1.1\nfound\n");
	free(x);
	/* its backport of a commit after v1.1 (not in this mirror) */
	x = sql(db, "SELECT branch, how FROM backports");
	assert_string_equal(x, "1.1|line\n");
	free(x);
	x = sql(db, "SELECT tag, kind FROM releases ORDER BY tag");
	assert_string_equal(x, "v1.0|mainline\nv1.1|mainline\nv1.1.1|stable\n");
	free(x);
}

/* The role of branch name in l ("?" when l has none of the name). */
static const char *role_of(const ss_layout *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nbranches; i++)
		if (!strcmp(l->branches[i].name, name))
			return ss_layout_role_name(l->branches[i].role);
	return "?";
}

/*
 * Two branches a release series (tests/seriesrepo.sh): vX-Y-test takes
 * the backports, vX-Y-stable holds the releases; each series forks from
 * master at its first release candidate, so its .0 release is off
 * master.  One target a series, master the mainline whatever HEAD is,
 * the .0 releases mainline releases; the graph decides which of the two
 * takes the backports, the name only when the graph cannot tell.
 */
static void test_series_branches(void **state)
{
	char r[4200], db[4300], *err, *x;
	ss_layout *l;
	int rc;

	(void)state;
	snprintf(r, sizeof(r), "%s/series", tmpdir);
	snprintf(db, sizeof(db), "%s/series.db", tmpdir);
	assert_int_equal(test_run("rm -rf '%s' && sh tests/seriesrepo.sh '%s' && git -C '%s' checkout -q "
				  "--detach v4-20-test", r, r, r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	assert_int_equal(count(err, "release series on two branches"), 1);
	assert_non_null(strstr(err, "note: 2 release series on two branches: the one taking the backports "
			       "is the target, the other holds the releases and is read, no target: "
			       "v4-19-test over v4-19-stable (1 backport the other has not), v4-20-test "
			       "over v4-20-stable (1 backport the other has not)"));
	assert_non_null(strstr(err, "note: mainline master (found; HEAD is no branch), 6 release tags: "
			       "2 mainline, 1 stable, 3 rc; branches: 2 stable, 2 releases\n"));
	free(err);
	x = sql(db, "SELECT value FROM meta WHERE key = 'mainline'; SELECT substr(key, 6) || '=' || value"
		" FROM meta WHERE key LIKE 'role:%' ORDER BY key");
	assert_string_equal(x, "refs/heads/master\nv4-19-stable=releases\nv4-20-stable=releases\n");
	free(x);
	x = sql(db, "SELECT tag, kind FROM releases ORDER BY tag");
	assert_string_equal(x, "name-4.19.0|mainline\nname-4.19.1|stable\nname-4.20.0|mainline\n");
	free(x);
	/* master's commits are released by the .0 releases off master */
	x = sql(db, "SELECT first_release, count(*) FROM commits WHERE mainline = 1 AND first_release IS "
		"NOT NULL GROUP BY first_release ORDER BY first_release");
	assert_string_equal(x, "name-4.19.0|4\nname-4.20.0|3\n");
	free(x);
	/* backports on either branch of a series reach stable: the fix the
	 * 4.19.1 release carries is on both of 4.19's branches */
	x = sql(db, "SELECT b.branch FROM backports b JOIN refs r ON r.name = b.branch AND r.kind = "
		"'stable' JOIN commits c ON c.id = b.upstream_id WHERE c.subject = 'core: fix the "
		"second' ORDER BY b.branch");
	assert_string_equal(x, "v4-19-stable\nv4-19-test\n");
	free(x);
	/* one target a series: the branch that takes the backports */
	assert_int_equal(test_run("git -C '%s' checkout -q master && ./stablesel rank --no-progress "
				  "--repo '%s' --db '%s' --rev name-4.19.0rc1..master --verdicts --top 50 "
				  ">'%s/out' 2>'%s/err'", r, r, db, tmpdir, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_non_null(strstr(err, "': v4-20-test v4-19-test\n"));
	free(err);
	/* a release just made: equal tips, the graph cannot tell; the name
	 * does (-test is a staging word) */
	assert_int_equal(test_run("git -C '%s' branch -f v4-20-stable v4-20-test", r), 0);
	if (ss_layout_find(&l, r, NULL))
		fail_msg("%s", ss_error_last());
	assert_string_equal(role_of(l, "v4-20-stable"), "releases");
	assert_string_equal(role_of(l, "v4-20-test"), "stable");
	assert_non_null(l->series);
	assert_non_null(strstr(l->series, "v4-20-test over v4-20-stable (as many backports: its name)"));
	ss_layout_free(l);
	/* the graph over the name: -test set back behind -stable, which
	 * took the backport; a lone vX-Y-stable (systemd's) is no pair */
	assert_int_equal(test_run("git -C '%s' branch -f v4-20-test v4-20-test~1 && git -C '%s' branch "
				  "v4-18-stable name-4.19.0rc1~1", r, r), 0);
	if (ss_layout_find(&l, r, NULL))
		fail_msg("%s", ss_error_last());
	assert_string_equal(l->mainline_name, "master");
	assert_string_equal(role_of(l, "v4-20-test"), "releases");
	assert_string_equal(role_of(l, "v4-20-stable"), "stable");
	assert_string_equal(role_of(l, "v4-18-stable"), "stable");
	assert_non_null(strstr(l->series, "v4-20-stable over v4-20-test (1 backport the other has not)"));
	assert_string_equal(ss_layout_release_kind(l, "name-4.20.0"), "mainline");
	assert_string_equal(ss_layout_release_kind(l, "name-4.20.0rc2"), "rc");
	ss_layout_free(l);
	/* named branches: no pair is made */
	assert_int_equal(test_run("git -C '%s' config stablesel.branches 'v4-*'", r), 0);
	if (ss_layout_find(&l, r, NULL))
		fail_msg("%s", ss_error_last());
	assert_null(l->series);
	assert_string_equal(role_of(l, "v4-20-test"), "stable");
	ss_layout_free(l);
}

/*
 * End of life by a setting: no commit for AGE before the newest stable
 * release (--eol, git config stablesel.eol), not a year before the
 * newest branch tip (the default); "never" keeps every branch.
 */
static void test_eol_setting(void **state)
{
	char r[4200], db[4300], *err, *x;
	ss_layout_options o = SS_LAYOUT_OPTIONS_INIT;
	ss_layout *l;
	int rc;

	(void)state;
	snprintf(r, sizeof(r), "%s/eol", tmpdir);
	snprintf(db, sizeof(db), "%s/eol.db", tmpdir);
	/* v4-18-test: last commit 100 days before name-4.19.1 (the newest
	 * stable release); "tools": a commit 300 days after it */
	assert_int_equal(test_run(
		"rm -rf '%s' && sh tests/seriesrepo.sh '%s' && cd '%s' && "
		"export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b && "
		"t=$(git log -1 --format=%%ct name-4.19.1) && "
		"git checkout -q -b v4-18-test name-4.19.0rc1~1 && echo o >> old.c && git add old.c && "
		"GIT_AUTHOR_DATE=\"$((t - 100 * 86400)) +0000\" GIT_COMMITTER_DATE=\"$((t - 100 * 86400)) "
		"+0000\" git commit -qm 'old: a fix' && "
		"git checkout -q -b tools master && echo t >> tools.c && git add tools.c && "
		"GIT_AUTHOR_DATE=\"$((t + 300 * 86400)) +0000\" GIT_COMMITTER_DATE=\"$((t + 300 * 86400)) "
		"+0000\" git commit -qm 'tools: new' && git checkout -q master", r, r, r), 0);
	/* the default: a year before the newest tip (tools'), 400 days */
	if (ss_layout_find(&l, r, NULL))
		fail_msg("%s", ss_error_last());
	assert_string_equal(role_of(l, "v4-18-test"), "end-of-life");
	assert_null(l->eol_note);
	ss_layout_free(l);
	/* a year before the newest stable release: 100 days, maintained */
	o.eol = "1y";
	if (ss_layout_find(&l, r, &o))
		fail_msg("%s", ss_error_last());
	assert_string_equal(role_of(l, "v4-18-test"), "stable");
	assert_string_equal(role_of(l, "v4-20-test"), "stable");
	assert_non_null(l->eol_note);
	assert_non_null(strstr(l->eol_note, "end of life: no commit in 1y before the newest stable "
				"release name-4.19.1 (2023-11-1"));
	assert_non_null(strstr(l->eol_note, "; --eol): 0 branches"));
	ss_layout_free(l);
	o.eol = "90d";
	if (ss_layout_find(&l, r, &o))
		fail_msg("%s", ss_error_last());
	assert_string_equal(role_of(l, "v4-18-test"), "end-of-life");
	assert_string_equal(role_of(l, "v4-19-test"), "stable");
	ss_layout_free(l);
	/* the setting of the repository, said once; --eol over it */
	assert_int_equal(test_run("git -C '%s' config stablesel.eol 90d", r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	assert_int_equal(count(err, "end of life"), 1);
	assert_non_null(strstr(err, "note: end of life: no commit in 90d before the newest stable release "
			       "name-4.19.1 ("));
	assert_non_null(strstr(err, "; git config stablesel.eol): 1 branch\n"));
	free(err);
	x = sql(db, "SELECT value FROM meta WHERE key = 'role:v4-18-test'");
	assert_string_equal(x, "end-of-life\n");
	free(x);
	err = index_repo(&rc, r, db, "--eol never");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "note: no branch is end of life (--eol never)"));
	free(err);
	x = sql(db, "SELECT count(*) FROM meta WHERE value = 'end-of-life'");
	assert_string_equal(x, "0\n");
	free(x);
	/* bad ages: a usage error, a bad setting one line naming it */
	err = index_repo(&rc, r, db, "--eol 3x");
	assert_int_equal(rc, 129);
	assert_non_null(strstr(err, "--eol: bad age '3x'"));
	free(err);
	assert_int_equal(test_run("git -C '%s' config stablesel.eol soon", r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 128);
	assert_non_null(strstr(err, "git config stablesel.eol: bad age 'soon'"));
	free(err);
}

/*
 * An honest replay: --onto a branch set back (v4-19-test reset to its
 * 4.19.1 release) reads only the backports committed by its tip's time:
 * the fix backported later is neither "already in stable" nor a
 * precedent in stable; the one backported before still is.  Onto the
 * branch as indexed, both are.
 */
static void test_honest_replay(void **state)
{
	char r[4200], db[4300], *err, *out, *tip;
	int rc;

	(void)state;
	snprintf(r, sizeof(r), "%s/replay", tmpdir);
	snprintf(db, sizeof(db), "%s/replay.db", tmpdir);
	/* a later commit like "drv: fix the first" (backported after
	 * 4.19.1), so that the fix is its precedent: ranked from its day
	 * (--since), the fix is settled history, and only that is a
	 * precedent (issue 35, case 20) */
	assert_int_equal(test_run(
		"rm -rf '%s' && sh tests/seriesrepo.sh '%s' && cd '%s' && "
		"export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b "
		"GIT_AUTHOR_DATE='1700400000 +0000' GIT_COMMITTER_DATE='1700400000 +0000' && "
		"echo 'int d2;' >> drv.c && git commit -qam 'drv: fix the first again'", r, r, r), 0);
	err = index_repo(&rc, r, db, "");
	assert_int_equal(rc, 0);
	free(err);
	/* the branch as indexed: both backports known */
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --db '%s' --rev "
				  "name-4.19.0rc1..master --onto v4-19-test --threshold 0.01 --precedents 3 "
				  "--since 2023-11-19 --top 50 >'%s/out' 2>'%s/err'", r, db, tmpdir, tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_null(strstr(err, "replay cut"));
	free(err);
	out = test_run_output("cat '%s/out'", tmpdir);
	assert_non_null(strstr(out, "[stable v4-19-test,v4-20-test] drv: fix the first\n"));
	free(out);
	/* set back to 4.19.1: the later backports are cut, said once */
	assert_int_equal(test_run("git -C '%s' branch -f v4-19-test name-4.19.1", r), 0);
	tip = test_run_output("git -C '%s' rev-parse --short=12 name-4.19.1^{commit}", r);
	tip[strcspn(tip, "\n")] = '\0';
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --db '%s' --rev "
				  "name-4.19.0rc1..master --onto v4-19-test --threshold 0.01 --precedents 3 "
				  "--since 2023-11-19 --top 50 --format text >'%s/out' 2>'%s/err'", r, db, tmpdir,
				  tmpdir), 0);
	err = test_run_output("cat '%s/err'", tmpdir);
	assert_int_equal(count(err, "replay cut"), 1);
	assert_non_null(strstr(err, "note: replay cut at 2023-11-15: v4-19-test is at "));
	assert_non_null(strstr(err, tip));
	assert_non_null(strstr(err, "2 backports committed later are left out of the flags, labels and "
			       "precedents"));
	free(err);
	free(tip);
	out = test_run_output("cat '%s/out'", tmpdir);
	assert_null(strstr(out, "v4-20-test"));
	assert_null(strstr(out, "[stable v4-19-test"));
	assert_non_null(strstr(out, "[not in stable] drv: fix the first\n"));
	assert_int_equal(count(out, "already in stable"), 0);
	free(out);
	/* the fix backported before the tip is still known (tsv: every row's
	 * flags) */
	assert_int_equal(test_run("./stablesel rank --no-progress --repo '%s' --db '%s' --rev "
				  "name-4.19.0rc1..master --onto v4-19-test --format tsv --top 50 >'%s/out' "
				  "2>/dev/null", r, db, tmpdir), 0);
	out = test_run_output("cat '%s/out'", tmpdir);
	assert_non_null(strstr(out, "core: fix the second\tAnn Author <ann@example.org>\talready in "
			       "stable v4-19-stable,v4-19-test"));
	assert_null(strstr(out, "already in stable v4-19-test,v4-20-test"));
	assert_int_equal(count(out, "already in stable"), 1);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mainline_found),
		cmocka_unit_test(test_stable_branches_only),
		cmocka_unit_test(test_mainline_ambiguous),
		cmocka_unit_test(test_worktree_and_tag_clash),
		cmocka_unit_test(test_release_kinds),
		cmocka_unit_test(test_branch_roles),
		cmocka_unit_test(test_series_branches),
		cmocka_unit_test(test_eol_setting),
		cmocka_unit_test(test_honest_replay),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_missing_blob),
		cmocka_unit_test(test_history_unreadable),
		cmocka_unit_test(test_kept_layout),
		cmocka_unit_test(test_dpdk_default_branch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
