/*
 * test_replay.c - commits kept compressed in memory (source/replay.h):
 * every commit of tests/gitrepo.sh's repository, and hand-made ones with
 * the fields git never sets (NULL strings, mail facts, a NUL inside a
 * line, flags), come back equal field for field and in order; several
 * frames; the cap drops the store; misuse is refused.
 */
#include "testutil.h"
#include "testcommit.h"

#include "source/replay.h"
#include "source/source.h"
#include "util/error.h"

static void assert_str_same(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* a and b hold the same facts, whatever arena they live in. */
static void assert_commit_same(const ss_commit *a, const ss_commit *b)
{
	size_t i, j, l;

	assert_string_equal(a->id, b->id);
	assert_string_equal(a->author.name, b->author.name);
	assert_string_equal(a->author.email, b->author.email);
	assert_int_equal(a->author.time, b->author.time);
	assert_int_equal(a->author.tz, b->author.tz);
	assert_string_equal(a->committer.name, b->committer.name);
	assert_string_equal(a->committer.email, b->committer.email);
	assert_int_equal(a->committer.time, b->committer.time);
	assert_int_equal(a->committer.tz, b->committer.tz);
	assert_string_equal(a->subject, b->subject);
	assert_string_equal(a->message, b->message);
	assert_string_equal(a->body, b->body);
	assert_int_equal(a->ntrailers, b->ntrailers);
	for (i = 0; i < a->ntrailers; i++) {
		assert_string_equal(a->trailers[i].key, b->trailers[i].key);
		assert_string_equal(a->trailers[i].value, b->trailers[i].value);
	}
	assert_int_equal(a->nfiles, b->nfiles);
	for (i = 0; i < a->nfiles; i++) {
		const ss_file *f = &a->files[i], *g = &b->files[i];

		assert_str_same(f->old_path, g->old_path);
		assert_str_same(f->new_path, g->new_path);
		assert_int_equal(f->status, g->status);
		assert_int_equal(f->binary, g->binary);
		assert_int_equal(f->old_mode, g->old_mode);
		assert_int_equal(f->new_mode, g->new_mode);
		assert_int_equal(f->added, g->added);
		assert_int_equal(f->removed, g->removed);
		assert_int_equal(f->nhunks, g->nhunks);
		for (j = 0; j < f->nhunks; j++) {
			const ss_hunk *h = &f->hunks[j], *k = &g->hunks[j];

			assert_int_equal(h->old_start, k->old_start);
			assert_int_equal(h->old_lines, k->old_lines);
			assert_int_equal(h->new_start, k->new_start);
			assert_int_equal(h->new_lines, k->new_lines);
			assert_string_equal(h->func, k->func);
			assert_int_equal(h->added, k->added);
			assert_int_equal(h->removed, k->removed);
			assert_int_equal(h->nlines, k->nlines);
			for (l = 0; l < h->nlines; l++) {
				assert_int_equal(h->lines[l].origin, k->lines[l].origin);
				assert_int_equal(h->lines[l].no_eol, k->lines[l].no_eol);
				assert_int_equal(h->lines[l].len, k->lines[l].len);
				assert_memory_equal(h->lines[l].text, k->lines[l].text, h->lines[l].len + 1);
			}
		}
	}
	assert_int_equal(a->added, b->added);
	assert_int_equal(a->removed, b->removed);
	assert_int_equal(a->truncated, b->truncated);
	assert_int_equal(a->masked, b->masked);
	assert_string_equal(a->source, b->source);
	assert_int_equal(a->patch_n, b->patch_n);
	assert_int_equal(a->patch_total, b->patch_total);
	assert_str_same(a->mail_thread, b->mail_thread);
	assert_int_equal(a->mail_n, b->mail_n);
	assert_int_equal(a->mail_total, b->mail_total);
	assert_int_equal(a->index, b->index);
}

static void open_repo(ss_source **src, const char *repo)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;

	o.repo = repo;
	if (ss_source_open(src, repo, &o))
		fail_msg("%s", ss_error_last());
}

/* Every commit of the generated repository, diffs and all. */
static void test_git_commits(void **state)
{
	char *repo = test_scratch_path("repo");
	ss_source *src;
	ss_replay *r;
	ss_commit *c, *back;
	size_t n = 0;
	int rc;

	(void)state;
	assert_int_equal(test_run("sh '%s' '%s' >/dev/null 2>&1", test_gitrepo_script(), repo), 0);
	assert_int_equal(ss_replay_new(&r, 0), 0);
	open_repo(&src, repo);
	while (!(rc = ss_source_next(&c, src))) {
		assert_int_equal(ss_replay_add(r, c), 0);
		ss_commit_free(c);
		n++;
	}
	assert_int_equal(rc, SS_ITEROVER);
	ss_source_free(src);
	assert_true(n > 5);
	assert_int_equal(ss_replay_count(r), n);
	assert_false(ss_replay_dropped(r));

	/* read again from git, side by side */
	open_repo(&src, repo);
	while (!(rc = ss_source_next(&c, src))) {
		assert_int_equal(ss_replay_next(&back, r), 0);
		assert_commit_same(c, back);
		ss_commit_free(c);
		ss_commit_free(back);
	}
	assert_int_equal(rc, SS_ITEROVER);
	ss_source_free(src);
	assert_int_equal(ss_replay_next(&back, r), SS_ITEROVER);
	assert_null(back);
	assert_int_equal(ss_replay_next(&back, r), SS_ITEROVER);
	/* no more adding once read */
	open_repo(&src, repo);
	assert_int_equal(ss_source_next(&c, src), 0);
	assert_int_equal(ss_replay_add(r, c), SS_EINVALID);
	ss_commit_free(c);
	ss_source_free(src);
	ss_replay_free(r);
	ss_replay_free(NULL);
	free(repo);
}

/* A commit with what git never sets: NULL paths, mail facts, flags, a NUL
 * and no newline in a line, a second hunk; size a large line. */
static ss_commit *odd_commit(const char *id, size_t big)
{
	static const char *const lines[] = { "-old", "+new", " ctx", NULL };
	const tc_file files[] = {
		{ "lib/a.c", "int f(void)", lines, SS_FILE_ADDED },
		{ "lib/b.c", NULL, lines, SS_FILE_DELETED },
		{ "doc/c.rst", NULL, lines, SS_FILE_RENAMED },
	};
	ss_commit *c = tc_commit(id, "a@example.org", 1600000000,
				 "net: fix it\n\nA body.\n\nFixes: 0123456789ab (\"x\")\n"
				 "Cc: stable@dpdk.org\n\nSigned-off-by: A <a@example.org>\n",
				 files, 3);
	ss_hunk *h;
	ss_line *l;
	char *text;

	assert_non_null(c);
	c->files[2].old_path = "doc/old.rst";
	c->files[2].binary = 1;
	c->files[0].old_mode = 0;
	c->files[0].new_mode = 0100755;
	c->author.tz = -420;
	c->committer.tz = 330;
	c->truncated = 1;
	c->masked = 1;
	c->source = "mail.mbox";
	c->patch_n = 2;
	c->patch_total = 5;
	c->mail_thread = "<root@example.org> v2";
	c->mail_n = 2;
	c->mail_total = 5;
	c->index = 77;
	/* a second hunk in the first file, with a NUL inside a line */
	h = ss_arena_calloc(c->arena, 2, sizeof(*h));
	h[0] = c->files[0].hunks[0];
	h[1].old_start = 10;
	h[1].new_start = 12;
	h[1].old_lines = 1;
	h[1].new_lines = 1;
	h[1].func = "static int g(int x)";
	h[1].lines = l = ss_arena_calloc(c->arena, 2, sizeof(*l));
	h[1].nlines = 2;
	text = ss_arena_alloc(c->arena, big + 4);
	memset(text, 'x', big + 3);
	text[1] = '\0';
	text[big + 3] = '\0';
	l[0] = (ss_line){ '+', 1, (uint32_t)(big + 3), text };
	l[1] = (ss_line){ '-', 0, 0, "" };
	h[1].added = h[1].removed = 1;
	c->files[0].hunks = h;
	c->files[0].nhunks = 2;
	return c;
}

static void test_odd_fields_and_frames(void **state)
{
	ss_replay *r;
	ss_commit *c[8], *back, *empty;
	size_t i;

	(void)state;
	assert_int_equal(ss_replay_new(&r, 0), 0);
	/* 2 MiB lines: the commits span several 4 MiB frames */
	for (i = 0; i < 8; i++) {
		char id[41];

		snprintf(id, sizeof(id), "%040zu", i);
		c[i] = odd_commit(id, i % 2 ? 2u << 20 : 10);
		assert_int_equal(ss_replay_add(r, c[i]), 0);
	}
	empty = ss_commit_new();
	assert_non_null(empty);
	assert_int_equal(ss_replay_add(r, empty), 0);
	assert_int_equal(ss_replay_count(r), 9);
	assert_true(ss_replay_raw_bytes(r) > 8u << 20);
	/* 'x' after 'x' compresses well */
	assert_true(ss_replay_bytes(r) < ss_replay_raw_bytes(r) / 10);
	for (i = 0; i < 8; i++) {
		assert_int_equal(ss_replay_next(&back, r), 0);
		assert_commit_same(c[i], back);
		assert_string_equal(back->files[0].hunks[1].lines[0].text, "x");
		assert_null(back->files[0].old_path);
		assert_null(back->files[1].new_path);
		ss_commit_free(back);
		ss_commit_free(c[i]);
	}
	assert_int_equal(ss_replay_next(&back, r), 0);
	assert_commit_same(empty, back);
	assert_null(back->mail_thread);
	ss_commit_free(back);
	ss_commit_free(empty);
	assert_int_equal(ss_replay_next(&back, r), SS_ITEROVER);
	ss_replay_free(r);
}

/* Past the cap nothing is kept, adding goes on quietly, reading is refused. */
static void test_cap(void **state)
{
	ss_replay *r;
	ss_commit *c, *back;
	size_t i;

	(void)state;
	assert_int_equal(ss_replay_new(&r, 4096), 0);
	c = odd_commit("1111111111111111111111111111111111111111", 10);
	for (i = 0; i < 3; i++)
		assert_int_equal(ss_replay_add(r, c), 0);
	assert_false(ss_replay_dropped(r));
	for (i = 0; i < 400; i++)
		assert_int_equal(ss_replay_add(r, c), 0);
	assert_true(ss_replay_dropped(r));
	assert_int_equal(ss_replay_add(r, c), 0);
	assert_int_equal(ss_replay_next(&back, r), SS_EINVALID);
	assert_null(back);
	assert_non_null(strstr(ss_error_last(), "dropped"));
	ss_commit_free(c);
	ss_replay_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_commits),
		cmocka_unit_test(test_odd_fields_and_frames),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, test_scratch_setup, test_scratch_teardown);
}
