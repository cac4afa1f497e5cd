/*
 * test_report.c - the HTML report: escaping, a self-contained page with
 * capped diffs, and the browser test (tests/report_browser.sh: headless
 * Chromium opens a commit, checks the DOM, keeps $SS_BUILD/report.png,
 * build/report.png by default).
 */
#include "testutil.h"

#include "rank/report_html.h"
#include "util/strbuf.h"

/* A whole file, which must exist (testutil.h reads it). */
static char *slurp(const char *path)
{
	char *buf = test_read_file(path, NULL);

	assert_non_null(buf);
	return buf;
}

static void test_escape(void **state)
{
	ss_strbuf sb = SS_STRBUF_INIT;

	(void)state;
	assert_int_equal(ss_html_escape(&sb, "a<b>&\"c'</script>", 18), 0);
	assert_string_equal(sb.buf, "a&lt;b&gt;&amp;&quot;c&#39;&lt;/script&gt;");
	ss_strbuf_release(&sb);
}

static void test_page(void **state)
{
	char *tmp = test_tmpdir(), path[512], *page;

	(void)state;
	assert_int_equal(test_run("sh tests/gitrepo.sh '%s/repo' >/dev/null 2>&1", tmp), 0);
	assert_int_equal(test_run("./stablesel report --repo '%s/repo' --stable '%s/repo' --threshold 0 "
				  "--diffs 3 --diff-lines 4 --title 'a <b> page' -o '%s/r.html'", tmp, tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/r.html", tmp);
	page = slurp(path);
	assert_true(!strncmp(page, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(page, "<title>a &lt;b&gt; page</title>"));
	/* self-contained: nothing fetched */
	assert_null(strstr(page, "http:"));
	assert_null(strstr(page, "https:"));
	assert_null(strstr(page, " src="));
	assert_null(strstr(page, "<link"));
	/* the stable tree's labels settle nothing but what reached it: no
	 * curve, no calibration over undecided commits (issue 35, case 18) */
	assert_null(strstr(page, "<polyline"));
	assert_non_null(strstr(page, "no curve: it needs settled commits of both kinds"));
	assert_null(strstr(page, "of them reached stable"));
	/* the list first, the model's metrics below it */
	assert_true(strstr(page, "<h2>Ranked commits</h2>") < strstr(page, "<h2>Model</h2>"));
	assert_true(strstr(page, "<h2>Ranked commits</h2>") < strstr(page, "<h2>Calibration</h2>"));
	free(page);
	/* a labels file settles every commit it names: the curve and the
	 * calibration on them */
	assert_int_equal(test_run("cd '%s/repo' && { printf 'sha\\tin_stable\\n'; git log --format='%%H %%s' main | "
				  "awk '{ print $1 \"\\t\" ($0 ~ / fix / ? 1 : 0) }'; } >'%s/labels.tsv'", tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel report --repo '%s/repo' --labels '%s/labels.tsv' --threshold 0 "
				  "--diffs 3 --diff-lines 4 --title 'a <b> page' -o '%s/r.html'", tmp, tmp, tmp), 0);
	page = slurp(path);
	assert_non_null(strstr(page, "<polyline"));
	/* and the calibration on the settled commits: ten bins */
	assert_non_null(strstr(page, "the expected calibration error (10 equal-width bins) is "));
	assert_non_null(strstr(page, "<table class=rel>"));
	assert_non_null(strstr(page, "<tr><td>0.9-1.0</td>"));
	assert_non_null(strstr(page, "<tr><td>calibration</td>"));
	assert_non_null(strstr(page, "net: foo: fix null dereference<span class='f t'>tagged</span>"));
	assert_non_null(strstr(page, "raised the score most"));
	/* diffs: escaped, capped at 4 lines, only for the first 3 rows */
	assert_non_null(strstr(page, "diff capped: "));
	assert_non_null(strstr(page, "message and diff left out below rank 3"));
	assert_non_null(strstr(page, "<pre class=diff>"));
	assert_non_null(strstr(page, "&lt;") ? page : NULL);
	free(page);
	/* each branch's queue opens the page, and an accepted pick is shown
	 * with its decision */
	assert_int_equal(test_run("cd '%s/repo' && git config user.name T && git config user.email t@e", tmp), 0);
	assert_int_equal(test_run("./stablesel index --repo '%s/repo' >/dev/null 2>&1 && "
				  "./stablesel mark --repo '%s/repo' accept $(git -C '%s/repo' log --format=%%H -1 "
				  "--grep='^scripts: make check.sh executable$' main) --branch stable-1.y >/dev/null 2>&1",
				  tmp, tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel report --repo '%s/repo' --threshold 0 --onto stable-1.y "
				  "-o '%s/q.html' 2>/dev/null", tmp, tmp), 0);
	snprintf(path, sizeof(path), "%s/q.html", tmp);
	page = slurp(path);
	assert_non_null(strstr(page, "<h2>Queue for stable-1.y</h2>"));
	assert_true(strstr(page, "<h2>Queue for stable-1.y</h2>") < strstr(page, "<h2>Ranked commits</h2>"));
	assert_non_null(strstr(page, "<td>scripts: make check.sh executable</td><td>pick</td><td>applies</td>"
				     "<td>accepted stable-1.y</td></tr>"));
	assert_non_null(strstr(page, "<span class='f r'>accepted stable-1.y</span>"));
	free(page);
	/* no -o: usage error, nothing written */
	assert_int_equal(test_run("./stablesel report --repo '%s/repo' >/dev/null 2>&1", tmp), 129);
	free(tmp);
}

static void test_browser(void **state)
{
	const char *build = getenv("SS_BUILD");
	char png[4096];
	int rc;

	(void)state;
	rc = test_run("sh tests/report_browser.sh");
	if (rc == 77) {
		printf("SKIP: chromium not available\n");
		skip();
	}
	assert_int_equal(rc, 0);
	snprintf(png, sizeof(png), "%s/report.png", build && *build ? build : "build");
	assert_int_equal(access(png, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_browser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
