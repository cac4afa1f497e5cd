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

int ss_hexid_raw(unsigned char raw[20], const char *s)
{
	if (!ss_hexid_is_full(s, strlen(s)))
		return -1;
	for (int i = 0; i < 20; i++) {
		int hi = tolower((unsigned char)s[2 * i]), lo = tolower((unsigned char)s[2 * i + 1]);

		raw[i] = (unsigned char)((hi <= '9' ? hi - '0' : hi - 'a' + 10) << 4 |
					 (lo <= '9' ? lo - '0' : lo - 'a' + 10));
	}
	return 0;
}
