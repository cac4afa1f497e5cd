/*
 * hexid.c - hexadecimal object ids (see hexid.h).
 */
#include <ctype.h>
#include <string.h>

#include "util/hexid.h"

size_t ss_hexid_span(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && isxdigit((unsigned char)s[n]))
		n++;
	return n;
}

int ss_hexid_is_full(const char *s, size_t len)
{
	return len == 40 && ss_hexid_span(s, len) == 40;
}

int ss_hexid_is_prefix(const char *s)
{
	size_t n = strlen(s);

	return n >= 4 && n <= 40 && ss_hexid_span(s, n) == n;
}

uint64_t ss_hexid_key(const char *s)
{
	uint64_t k = 0;

	for (int i = 0; i < 16 && s[i]; i++) {
		int c = tolower((unsigned char)s[i]);

		k = k << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return k ? k : 1;
}
