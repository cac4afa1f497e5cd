/*
 * test_util.c - the ground floor's helpers: hexadecimal ids.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/hexid.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hexid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
