/*
 * test_util.c - the ground floor's helpers: hexadecimal ids, growing arrays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"
#include "util/suggest.h"
#include "util/strbuf.h"
#include "util/u64map.h"

static void test_hexid(void **state)
{
	const char *full = "0123456789abcdefABCDEF0123456789abcdef01";

	(void)state;
	assert_int_equal(strlen(full), 40);
	assert_true(ss_hexid_is_full(full, 40));
	assert_false(ss_hexid_is_full(full, 39));
	assert_false(ss_hexid_is_full("0123456789abcdefABCDEF0123456789abcdefg1", 40));
	/* the span stops at max even inside more digits */
	assert_int_equal(ss_hexid_span(full, 12), 12);
	assert_int_equal(ss_hexid_span("12ab-cd", 7), 4);
	assert_int_equal(ss_hexid_span("", 5), 0);
	assert_true(ss_hexid_is_prefix("beef"));
	assert_true(ss_hexid_is_prefix(full));
	assert_false(ss_hexid_is_prefix("bee"));
	assert_false(ss_hexid_is_prefix("beefy"));
	assert_false(ss_hexid_is_prefix("0123456789abcdefABCDEF0123456789abcdef012"));
	assert_false(ss_hexid_is_prefix(""));
}

/* SS_GROW from NULL; the content stays when the array moves; a need
 * within the capacity changes nothing. */
static void test_grow_basic(void **state)
{
	int *a = NULL, *before;
	size_t cap = 0, i;

	(void)state;
	assert_int_equal(SS_GROW(a, 10, cap), 0);
	assert_non_null(a);
	assert_true(cap >= 10);
	for (i = 0; i < 10; i++)
		a[i] = (int)i * 3;
	before = a;
	i = cap;
	assert_int_equal(SS_GROW(a, cap, cap), 0);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, i);
	assert_int_equal(SS_GROW(a, 5000, cap), 0);
	assert_true(cap >= 5000);
	for (i = 0; i < 10; i++)
		assert_int_equal(a[i], (int)i * 3);
	a[4999] = 7;  /* the whole capacity is usable (ASan would tell) */
	free(a);
}

/* 100000 appends one by one: every element kept, and the capacity
 * changes only a logarithmic number of times (n appends cost O(n)). */
static void test_grow_appends(void **state)
{
	uint32_t *a = NULL;
	size_t n = 0, cap = 0, grows = 0, last = 0, i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		assert_int_equal(SS_GROW(a, n + 1, cap), 0);
		assert_true(cap >= n + 1);
		if (cap != last) {
			grows++;
			last = cap;
		}
		a[n++] = (uint32_t)(i * 7 + 1);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(a[i], (uint32_t)(i * 7 + 1));
	assert_true(grows < 40);
	free(a);
}

/* A size that overflows is SS_ENOMEM with the message set; the array
 * and its capacity stay as they were. */
static void test_grow_overflow(void **state)
{
	int32_t *a = NULL, *before;
	size_t cap = 0, oldcap, i;

	(void)state;
	assert_int_equal(SS_GROW(a, 100, cap), 0);
	for (i = 0; i < 100; i++)
		a[i] = (int32_t)i;
	before = a;
	oldcap = cap;
	ss_error_clear();
	assert_int_equal(SS_GROW(a, SIZE_MAX / 2, cap), SS_ENOMEM);
	assert_non_null(strstr(ss_error_last(), "out of memory"));
	assert_ptr_equal(a, before);
	assert_int_equal(cap, oldcap);
	for (i = 0; i < 100; i++)
		assert_int_equal(a[i], (int32_t)i);
	/* ss_grow_to alike */
	assert_int_equal(ss_grow_to(&a, SIZE_MAX / 2, sizeof(*a)), SS_ENOMEM);
	assert_ptr_equal(a, before);
	free(a);
}

/* Parallel arrays: one capacity from ss_grow_cap, each resized with
 * ss_grow_to; the capacity never wraps around. */
static void test_grow_parallel(void **state)
{
	uint32_t *idx = NULL;
	float *val = NULL;
	size_t cap = 0, n, i;

	(void)state;
	assert_true(ss_grow_cap(0, 1) >= 1);
	assert_int_equal(ss_grow_cap(0, 1000), 1000);
	assert_true(ss_grow_cap(1000, 1001) >= 1500);
	assert_int_equal(ss_grow_cap(SIZE_MAX - 1, SIZE_MAX), SIZE_MAX);
	assert_int_equal(ss_grow_cap(SIZE_MAX / 3 * 2, 1), SIZE_MAX);
	for (n = 0; n < 3000; n++) {
		if (n == cap) {
			size_t c = ss_grow_cap(cap, n + 1);

			assert_int_equal(ss_grow_to(&idx, c, sizeof(*idx)), 0);
			assert_int_equal(ss_grow_to(&val, c, sizeof(*val)), 0);
			cap = c;
		}
		idx[n] = (uint32_t)n;
		val[n] = (float)n / 2;
	}
	for (i = 0; i < n; i++) {
		assert_int_equal(idx[i], (uint32_t)i);
		assert_true(val[i] == (float)i / 2);
	}
	free(idx);
	free(val);
}

/* u64map: the first value of a key stays; growth keeps every key. */
static void test_u64map(void **state)
{
	ss_u64map m = SS_U64MAP_INIT;
	size_t i, v;

	(void)state;
	for (i = 0; i < 5000; i++)
		assert_int_equal(ss_u64map_find_or_put(&m, (uint64_t)i * 0x9e3779b97f4a7c15ULL + 1, i, &v), 0);
	assert_int_equal(m.n, 5000);
	assert_true(m.cap >= 2 * m.n);
	for (i = 0; i < 5000; i++) {
		v = (size_t)-1;
		assert_int_equal(ss_u64map_find_or_put(&m, (uint64_t)i * 0x9e3779b97f4a7c15ULL + 1, 99999, &v), 1);
		assert_int_equal(v, i);
	}
	assert_int_equal(m.n, 5000);
	ss_u64map_release(&m);
	assert_null(m.key);
	assert_int_equal(m.n, 0);
}

/* Text for a terminal: controls, C1 controls and bytes that are no
 * UTF-8 escaped, the rest kept. */
static void test_escaped(void **state)
{
	ss_strbuf sb = SS_STRBUF_INIT;

	(void)state;
	assert_int_equal(ss_strbuf_add_escaped(&sb, "a\nb\tc\r\033[2J\x7f caf\xc3\xa9 \xe9 \xc2\x9b \\n"), 0);
	assert_string_equal(sb.buf, "a\\nb\\tc\\r\\x1b[2J\\x7f caf\xc3\xa9 \\xe9 \\u009b \\n");
	ss_strbuf_reset(&sb);
	assert_int_equal(ss_strbuf_add_escaped(&sb, NULL), 0);
	assert_string_equal(sb.buf, "");
	ss_strbuf_release(&sb);
	assert_true(ss_utf8_valid("caf\xc3\xa9 \xf0\x9f\x98\x80", 10));
	assert_false(ss_utf8_valid("caf\xe9", 4));
	assert_false(ss_utf8_valid("\xed\xa0\xbd", 3));  /* CESU-8 of a surrogate */
}

static void test_edit_distance(void **state)
{
	(void)state;
	/* the branch names of did-you-mean (util/suggest.h: a swap is one edit) */
	assert_int_equal(ss_suggest_distance("stabel", "stable"), 1);
	assert_int_equal(ss_suggest_distance("22.12", "22.11"), 1);
	assert_int_equal(ss_suggest_distance("", "abc"), 3);
	assert_int_equal(ss_suggest_distance("same", "same"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hexid),
		cmocka_unit_test(test_escaped),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_u64map),
		cmocka_unit_test(test_grow_basic),
		cmocka_unit_test(test_grow_appends),
		cmocka_unit_test(test_grow_overflow),
		cmocka_unit_test(test_grow_parallel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
