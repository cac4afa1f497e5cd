/*
 * test_commit.c - the commit model: subject, body, trailers from every
 * trailer block, masking of stable tags, upstream references.
 */
#include "testutil.h"

#include <git2.h>

#include "commit/commit.h"
#include "labels/upstream.h"
#include "util/error.h"

static ss_commit *with_message(const char *msg)
{
	ss_commit *c = ss_commit_new();

	assert_non_null(c);
	assert_int_equal(ss_commit_set_message(c, msg, strlen(msg)), 0);
	return c;
}

static void test_subject_body_trailers(void **state)
{
	/* DPDK style: Fixes and Cc stable in their own block */
	ss_commit *c = with_message(
		"net/mlx5: fix crash on\n  close\n\n"
		"The queue was freed twice.\nNote: really.\n\n"
		"Fixes: 0123456789ab (\"net/mlx5: add queue\")\n"
		"Cc: stable@dpdk.org\n\n"
		"Signed-off-by: A Developer <a@example.com>\n"
		"Acked-by: B Reviewer <b@example.com>\n");
	const ss_trailer *t;
	size_t pos = 0;

	(void)state;
	assert_string_equal(c->subject, "net/mlx5: fix crash on   close");
	assert_string_equal(c->body, "The queue was freed twice.\nNote: really.");
	assert_int_equal(c->ntrailers, 4);
	t = ss_commit_trailer(c, "fixes", NULL);
	assert_non_null(t);
	assert_string_equal(t->value, "0123456789ab (\"net/mlx5: add queue\")");
	assert_true(ss_commit_has_stable_tag(c));
	t = ss_commit_trailer(c, "Signed-off-by", &pos);
	assert_string_equal(t->value, "A Developer <a@example.com>");
	assert_null(ss_commit_trailer(c, "Signed-off-by", &pos));
	ss_commit_free(c);
}

static void test_prose_paragraph_is_not_trailers(void **state)
{
	ss_commit *c = with_message("x: y\n\nNote: this is prose.\n\nSigned-off-by: A <a@b>\n");

	(void)state;
	assert_int_equal(c->ntrailers, 1);
	assert_string_equal(c->body, "Note: this is prose.");
	ss_commit_free(c);
}

static void test_mask(void **state)
{
	ss_commit *c = with_message(
		"x86/mm: fix leak\n\nA leak.\n\n"
		"Fixes: 0123456789ab (\"x86/mm: y\")\n"
		"Cc: <stable@vger.kernel.org> # 5.10+\n"
		"CC: Stable@Vger.Kernel.Org\n"
		"Cc: linux-stable@example.org\n"
		"Cc: <stable+noautosel@kernel.org>\n"
		"Signed-off-by: A <a@b>\n");

	(void)state;
	assert_true(ss_commit_has_stable_tag(c));
	assert_int_equal(ss_commit_mask_stable(c), 0);
	assert_true(c->masked);
	assert_false(ss_commit_has_stable_tag(c));
	assert_null(strcasestr(c->message, " stable@"));
	assert_null(strcasestr(c->message, "<stable@"));
	/* other addresses and the opt-out stay */
	assert_non_null(strstr(c->message, "linux-stable@example.org"));
	assert_non_null(strstr(c->message, "stable+noautosel@kernel.org"));
	assert_int_equal(c->ntrailers, 4);
	assert_string_equal(c->subject, "x86/mm: fix leak");

	/* nothing to mask: unchanged and not flagged */
	ss_commit_free(c);
	c = with_message("a: b\n\nSigned-off-by: A <a@b>\n");
	assert_int_equal(ss_commit_mask_stable(c), 0);
	assert_false(c->masked);
	ss_commit_free(c);
}

static void test_is_stable_address(void **state)
{
	(void)state;
	assert_true(ss_is_stable_address("stable@vger.kernel.org"));
	assert_true(ss_is_stable_address("<stable@dpdk.org>"));
	assert_true(ss_is_stable_address("Greg <stable@kernel.org> # 4.19"));
	assert_false(ss_is_stable_address("linux-stable@vger.kernel.org"));
	assert_false(ss_is_stable_address("<stable+noautosel@kernel.org>"));
	assert_false(ss_is_stable_address(NULL));
}

static void test_upstream_refs(void **state)
{
	const char *msg =
		"commit 0123456789ABCDEF0123456789abcdef01234567 upstream.\n"
		"[ Upstream commit 1111111111111111111111111111111111111111 ]\n"
		"[ upstream commit 2222222222222222222222222222222222222222]\n"
		"Upstream commit 3333333333333333333333333333333333333333\n"
		"[ backported from upstream commit 4444444444444444444444444444444444444444 ]\n"
		"(cherry picked from commit 5555555555555555555555555555555555555555)\n"
		"see commit 6666666666666666666666666666666666666666 for details\n"
		"the upstream commit abcdef012345 is short\n"
		"BUGFIX 7777777777777777777777777777777777777777\n";
	const char *extra[] = { "BUGFIX ([0-9a-f]{40})" };
	char out[16][41];
	ss_upstream *u;
	size_t n;

	(void)state;
	assert_int_equal(ss_upstream_new(&u, NULL, 0), 0);
	n = ss_upstream_find(u, msg, out, 16);
	assert_int_equal(n, 6);
	assert_string_equal(out[0], "0123456789abcdef0123456789abcdef01234567");
	ss_upstream_free(u);

	assert_int_equal(ss_upstream_new(&u, extra, 1), 0);
	n = ss_upstream_find(u, msg, out, 16);
	assert_int_equal(n, 7);
	assert_string_equal(out[6], "7777777777777777777777777777777777777777");
	/* "upstream commit" twice for one sha counts once */
	n = ss_upstream_find(u, "commit 1111111111111111111111111111111111111111 upstream.\n"
			     "[ Upstream commit 1111111111111111111111111111111111111111 ]", out, 16);
	assert_int_equal(n, 1);
	ss_upstream_free(u);

	assert_int_equal(ss_upstream_new(&u, (const char *[]){ "([" }, 1), SS_EINVALID);
	ss_upstream_free(NULL);
}

/* Count the trailers with this key and check the first one's value. */
static size_t trailers_of(const ss_commit *c, const char *key, const char *first)
{
	const ss_trailer *t;
	size_t pos = 0, n = 0;

	while ((t = ss_commit_trailer(c, key, &pos))) {
		if (!n++ && first)
			assert_string_equal(t->value, first);
	}
	return n;
}

/* systemd fb17510ede6f: "Fixes <sha>" without a colon, alone at the end */
static void test_systemd_fixes_no_colon(void **state)
{
	ss_commit *c = with_message(
		"importctl: fix flag checking against wrong variable\n\n"
		"Fixes 67c7ee11afb5ff703c3ca8e390c8360140298a0f\n");

	(void)state;
	assert_int_equal(trailers_of(c, "Fixes", "67c7ee11afb5ff703c3ca8e390c8360140298a0f"), 1);
	assert_int_equal(trailers_of(c, "Closes", NULL), 0);
	ss_commit_free(c);
	/* prose that only looks like it: hex letters alone, a coverity id */
	c = with_message("x: y\n\nFixes defaced output.\nFixes CID#1548019\n"
			 "Fixes a bug introduced by nothing.\n");
	assert_int_equal(c->ntrailers, 0);
	ss_commit_free(c);
}

/* systemd 64f2e1ff05d2: "Fixes: #N" is an issue (like Closes:), and
 * "Follow-up-for: #N" names a pull request, not a commit */
static void test_systemd_fixes_issue(void **state)
{
	ss_commit *c = with_message(
		"cryptsetup: unset an unlock path on each unlock retry\n\n"
		"If we couldn't unlock a device with the chosen unlock path, let's not\n"
		"fall back to the lowest one right away, but only flush out one path, and\n"
		"try the next.\n\n"
		"Fixes: #30425\n"
		"Follow-up-for: #30185\n"
		"Alternative-to: #33183\n");

	(void)state;
	assert_int_equal(trailers_of(c, "Fixes", NULL), 0);
	assert_int_equal(trailers_of(c, "Closes", "#30425"), 1);
	assert_int_equal(trailers_of(c, "Follow-up-for", "#30185"), 1);
	ss_commit_free(c);
	/* in a body paragraph, and a bug tracker's address */
	c = with_message("x: y\n\nThe unit failed.\nFixes #12345.\n\n"
			 "Fixes: https://bugzilla.redhat.com/show_bug.cgi?id=1234\n");
	assert_int_equal(trailers_of(c, "Fixes", NULL), 0);
	assert_int_equal(trailers_of(c, "Closes", NULL), 2);
	ss_commit_free(c);
}

/* systemd 07296542d636: "Follow-up for: <sha>" in a body paragraph */
static void test_systemd_follow_up_for(void **state)
{
	ss_commit *c = with_message(
		"exec-invoke: correct dont_close[] size\n\n"
		"THis needs 15 entries as far as I can count, not just 14.\n\n"
		"Follow-up for: 5686391b006ee82d8a4559067ad9818e3e631247\n\n"
		"Sniff.\n");

	(void)state;
	assert_int_equal(trailers_of(c, "Fixes", "5686391b006ee82d8a4559067ad9818e3e631247"), 1);
	ss_commit_free(c);
	/* systemd 7b529bfc476a: no colon, a full stop, next to another line */
	c = with_message(
		"man: document that separate /usr/local/ must not be used for config\n\n"
		"Also, split paragraphs in one place where the subject changes without any\n"
		"transition.\n\n"
		"Follow-up for 02f35b1c905ac63ba62f94efebf858412e961fc1.\n"
		"Replaces https://github.com/systemd/systemd/pull/33231.\n");
	assert_int_equal(trailers_of(c, "Fixes", "02f35b1c905ac63ba62f94efebf858412e961fc1"), 1);
	ss_commit_free(c);
	/* several ids, and a commit's web address */
	c = with_message("x: y\n\nFollow-up for 1234567abc, 89abcdef01 and "
			 "https://github.com/systemd/systemd/commit/fedcba9876543210.\n");
	assert_int_equal(trailers_of(c, "Fixes", "1234567abc"), 3);
	assert_string_equal(c->trailers[2].value, "fedcba9876543210");
	ss_commit_free(c);
}

/* systemd 119f22526e50: "Follow-up-for: <sha>", a trailer of its own */
static void test_systemd_follow_up_for_trailer(void **state)
{
	ss_commit *c = with_message(
		"journald-server: drop another invalid assert()\n\n"
		"config_parse_forward_to_socket() is not used for parsing unit files\n"
		"either.\n\n"
		"Follow-up-for: f31cff849d3db074d0d8157e4117d9b8372c03e8\n");

	(void)state;
	assert_int_equal(c->ntrailers, 1);
	assert_int_equal(trailers_of(c, "Fixes", "f31cff849d3db074d0d8157e4117d9b8372c03e8"), 1);
	assert_string_equal(c->body, "config_parse_forward_to_socket() is not used for parsing unit files\neither.");
	ss_commit_free(c);
	/* a Fixes: trailer and the same line read as prose count once */
	c = with_message("x: y\n\nbody\n\nFixes: 0123456789ab (\"x: add\")\n"
			 "Signed-off-by: A <a@b>\n");
	assert_int_equal(trailers_of(c, "Fixes", "0123456789ab (\"x: add\")"), 1);
	ss_commit_free(c);
}

/* systemd-stable 85cc6a46de1e (v253-stable): picked from v254-stable,
 * which picked it from main: both are backport lines, main's first */
static void test_systemd_cherry_picked(void **state)
{
	const char *msg =
		"test: mask rc.local generator, broken on Jammy\n\n"
		"On jammy it started to fail, it's not really needed and we install\n"
		"an empty stub anyway, so just mask the generator\n\n"
		"(cherry picked from commit 565916c245b53b49f5917f5326d21246f46ae3db)\n"
		"(cherry picked from commit dfb007ffe0a9aa3a1d0f7930131b129fbaa2b3d9)\n";
	ss_commit *c = with_message(msg);
	char out[4][41];
	ss_upstream *u;

	(void)state;
	assert_int_equal(trailers_of(c, "Fixes", NULL), 0);
	assert_int_equal(ss_upstream_new(&u, NULL, 0), 0);
	assert_int_equal(ss_upstream_find(u, c->message, out, 4), 2);
	assert_string_equal(out[0], "565916c245b53b49f5917f5326d21246f46ae3db");
	assert_string_equal(out[1], "dfb007ffe0a9aa3a1d0f7930131b129fbaa2b3d9");
	ss_upstream_free(u);
	ss_commit_free(c);
	/* a commit's address in a reference list is no Fixes: */
	c = with_message("test: drop a removed feature\n\nIt was removed upstream [0].\n\n"
			 "[0] https://github.com/qemu/qemu/commit/"
			 "a271b8d7b2f39275a05e49deb7c8edc20b7a8279\n");
	assert_int_equal(trailers_of(c, "Fixes", NULL), 0);
	ss_commit_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject_body_trailers),
		cmocka_unit_test(test_prose_paragraph_is_not_trailers),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_is_stable_address),
		cmocka_unit_test(test_upstream_refs),
		cmocka_unit_test(test_systemd_fixes_no_colon),
		cmocka_unit_test(test_systemd_fixes_issue),
		cmocka_unit_test(test_systemd_follow_up_for),
		cmocka_unit_test(test_systemd_follow_up_for_trailer),
		cmocka_unit_test(test_systemd_cherry_picked),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
