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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject_body_trailers),
		cmocka_unit_test(test_prose_paragraph_is_not_trailers),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_is_stable_address),
		cmocka_unit_test(test_upstream_refs),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
