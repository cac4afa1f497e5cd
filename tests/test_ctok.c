/*
 * test_ctok.c - the C tokenizer on real kernel lines: each line against its
 * expected token stream (tokens joined by one space), token kinds, block
 * comments across lines, truncation, and the error-check line test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "features/ctok.h"

/* Tokens of line joined by single spaces into buf. */
static size_t join(char *buf, size_t size, ss_ctok_state *st, const char *line)
{
	ss_ctok t[128];
	size_t n = ss_ctok_line(t, 128, st, line, strlen(line)), pos = 0;

	assert_true(n <= 128);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + pos, size - pos, "%s%.*s", i ? " " : "",
				 (int)t[i].len, t[i].text);

		assert_true(w > 0 && (size_t)w < size - pos);
		pos += (size_t)w;
	}
	return n;
}

static const struct {
	const char *line, *tokens;
} cases[] = {
	{ "\tif (!ptr) return -ENOMEM;", "if ( ! ptr ) return - ENOMEM ;" },
	{ "\tspin_unlock_irqrestore(&lock, flags);",
	  "spin_unlock_irqrestore ( & lock , flags ) ;" },
	{ "\tkfree(buf); /* done */", "kfree ( buf ) ;" },
	{ "#define FOO(x) ((x) << 2)", "#define FOO ( x ) ( ( x ) << <num> )" },
	{ "\tpr_err(\"can't \\\"open\\\" %s\\n\", name);", "pr_err ( <str> , name ) ;" },
	{ "\twritel(0x1, base + 0x0UL);", "writel ( 1 , base + 0 ) ;" },
	{ "\tval = readl(regs + 0xFF00) & ~BIT(3);",
	  "val = readl ( regs + <num> ) & ~ BIT ( <num> ) ;" },
	{ "\tdev->flags <<= 1;", "dev -> flags <<= 1 ;" },
	{ "static int foo(const char *fmt, ...)", "static int foo ( const char * fmt , ... )" },
	{ "#include <linux/slab.h>", "#include linux/slab.h" },
	{ "#include \"internal.h\"", "#include internal.h" },
	{ "\t\treturn -1;", "return -1 ;" },
	{ "\tlen = end - 1;", "len = end - 1 ;" },
	{ "\tif (c == '\\'' || c == '\\\\')", "if ( c == <chr> || c == <chr> )" },
	{ "\tfor (i = 0; i < n; i++) {", "for ( i = 0 ; i < n ; i ++ ) {" },
	{ "#ifdef CONFIG_SMP", "#ifdef CONFIG_SMP" },
	{ "# if defined(CONFIG_X86) // 32-bit too", "#if defined ( CONFIG_X86 )" },
	{ "#endif /* CONFIG_PM */", "#endif" },
	{ "\tdouble d = 1.5e-3f;", "double d = <num> ;" },
	{ "\tunsigned long mask = 0b101 | 010 | 00;",
	  "unsigned long mask = <num> | <num> | 0 ;" },
	{ "\tstruct foo *p = container_of(ptr, struct foo, list);",
	  "struct foo * p = container_of ( ptr , struct foo , list ) ;" },
	{ "\tx = y ? -1 : (int)-2;", "x = y ? -1 : ( int ) - <num> ;" },
	{ "\t} else if (ret < 0) {", "} else if ( ret < 0 ) {" },
	{ "\ta[i] = b[i]-1;", "a [ i ] = b [ i ] - 1 ;" },
	{ "\twchar_t *s = L\"wide\"; char c = u8'x';", "wchar_t * s = <str> ; char c = <chr> ;" },
	{ "\tmutex_lock(&dev->lock);\t\\", "mutex_lock ( & dev -> lock ) ;" },
	{ "#define STR(x) #x", "#define STR ( x ) # x" },
	{ "#define CAT(a, b) a ## b", "#define CAT ( a , b ) a ## b" },
	{ "\tif (flags & ~(O_RDONLY|O_NONBLOCK)) return -EINVAL;",
	  "if ( flags & ~ ( O_RDONLY | O_NONBLOCK ) ) return - EINVAL ;" },
	{ "\tstatic DEFINE_SPINLOCK(lock);", "static DEFINE_SPINLOCK ( lock ) ;" },
	{ "\tp->len >>= 2; q->x ^= m; r %= 3; ok = a && !b || c != d;",
	  "p -> len >>= <num> ; q -> x ^= m ; r %= <num> ; ok = a && ! b || c != d ;" },
	{ "\tBUILD_BUG_ON(sizeof(struct foo) > 64);",
	  "BUILD_BUG_ON ( sizeof ( struct foo ) > <num> ) ;" },
	{ "\tpr_info(\"unterminated", "pr_info ( <str>" },
	{ "", "" },
	{ "\t/* a whole comment */", "" },
};

static void test_lines(void **state)
{
	char buf[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss_ctok_state st = SS_CTOK_STATE_INIT;

		join(buf, sizeof(buf), &st, cases[i].line);
		if (strcmp(buf, cases[i].tokens))
			print_error("line '%s'\n  got      '%s'\n  expected '%s'\n",
				    cases[i].line, buf, cases[i].tokens);
		assert_string_equal(buf, cases[i].tokens);
		assert_int_equal(st.in_comment, 0);
	}
}

static void test_kinds(void **state)
{
	const char *line = "#include <a.h>";
	const char *code = "if (x->n == 1) return \"s\" 'c' = -1 foo 7;";
	ss_ctok t[32];
	ss_ctok_state st = SS_CTOK_STATE_INIT;
	enum ss_ctok_kind want[] = {
		SS_CTOK_KEYWORD, SS_CTOK_PUNCT, SS_CTOK_IDENT, SS_CTOK_PUNCT,
		SS_CTOK_IDENT, SS_CTOK_PUNCT, SS_CTOK_NUMBER, SS_CTOK_PUNCT,
		SS_CTOK_KEYWORD, SS_CTOK_STRING, SS_CTOK_CHAR, SS_CTOK_PUNCT, SS_CTOK_NUMBER,
		SS_CTOK_IDENT, SS_CTOK_NUMBER, SS_CTOK_PUNCT,
	};
	size_t n;

	(void)state;
	n = ss_ctok_line(t, 32, &st, line, strlen(line));
	assert_int_equal(n, 2);
	assert_int_equal(t[0].kind, SS_CTOK_PREPROC);
	assert_int_equal(t[1].kind, SS_CTOK_HEADER);
	assert_true(ss_ctok_is(&t[1], "a.h"));
	n = ss_ctok_line(t, 32, &st, code, strlen(code));
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t[i].kind, want[i]);
	assert_true(ss_ctok_is(&t[12], "-1"));
}

static void test_comment_across_lines(void **state)
{
	const char *lines[] = {
		"\tx = 1; /* start of a",
		" * middle with \"quotes\" and 'q",
		" end */ y = 2; // trailing",
		"\tz = 3;",
	};
	const char *want[] = { "x = 1 ;", "", "y = <num> ;", "z = <num> ;" };
	int in_comment[] = { 1, 1, 0, 0 };
	ss_ctok_state st = SS_CTOK_STATE_INIT;
	char buf[256];

	(void)state;
	for (int i = 0; i < 4; i++) {
		join(buf, sizeof(buf), &st, lines[i]);
		assert_string_equal(buf, want[i]);
		assert_int_equal(st.in_comment, in_comment[i]);
	}
}

static void test_truncation(void **state)
{
	const char *line = "a = b + -1;";
	ss_ctok t[4];
	ss_ctok_state st = SS_CTOK_STATE_INIT;
	size_t n;

	(void)state;
	n = ss_ctok_line(t, 4, &st, line, strlen(line));
	assert_int_equal(n, 6);   /* a = b + -1 ; */
	assert_true(ss_ctok_is(&t[3], "+"));
	/* the merged "-1" lands exactly at the cut */
	n = ss_ctok_line(t, 4, &st, "x = - 1", 7);
	assert_int_equal(n, 3);
	assert_true(ss_ctok_is(&t[2], "-1"));
	n = ss_ctok_line(NULL, 0, &st, line, strlen(line));
	assert_int_equal(n, 6);
	/* a newline at the end is whitespace */
	n = ss_ctok_line(t, 4, &st, "foo();\n", 7);
	assert_int_equal(n, 4);
}

static const struct {
	const char *line, *next;
	int want;
} checks[] = {
	{ "\tif (!ptr) return -ENOMEM;", NULL, 1 },
	{ "\tif (ret)", "\t\treturn ret;", 1 },
	{ "\tif (IS_ERR(clk))", "\t\treturn PTR_ERR(clk);", 1 },
	{ "\tif (!page)", "\t\tgoto out_free;", 1 },
	{ "\t} else if (err < 0) {", "\t\tgoto err_put;", 1 },
	{ "\tif (!buf) return NULL;", NULL, 1 },
	{ "\tif (WARN_ON(!dev)) return -EINVAL;", NULL, 1 },
	{ "\tif (x) { kfree(p); return -EIO; }", NULL, 1 },
	{ "\tif (len > PAGE_SIZE)", "\t\treturn -1;", 1 },
	{ "\tif (IS_ERR(d)) return ERR_CAST(d);", NULL, 1 },
	{ "\tif (x > 5) x = 5;", NULL, 0 },
	{ "\tif (ret)", "\t\tdev_err(dev, \"failed\\n\");", 0 },
	{ "\tret = foo();", "\tif (ret) return ret;", 0 },
	{ "\tif (a &&", "\t    b) return -EINVAL;", 0 },
	{ "\tif (x) return 0;", NULL, 0 },
	{ "\treturn -ENOMEM;", NULL, 0 },
	{ "\tif (cnt) return cnt;", NULL, 0 },
	{ "\tif (ret)", NULL, 0 },
	{ "\tnotif (x) goto out;", NULL, 0 },
};

static void test_error_checks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		int got = ss_ctok_is_error_check(checks[i].line, checks[i].next);

		if (got != checks[i].want)
			print_error("'%s' / '%s': got %d\n", checks[i].line,
				    checks[i].next ? checks[i].next : "(none)", got);
		assert_int_equal(got, checks[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_comment_across_lines),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_error_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
