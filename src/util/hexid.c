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

int ss_hexid_digit(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

uint64_t ss_hexid_key(const char *s)
{
	uint64_t k = 0;

	for (int i = 0; i < 16 && s[i]; i++)
		k = k << 4 | (uint64_t)ss_hexid_digit((unsigned char)s[i]);
	return k ? k : 1;
}

int ss_hexid_raw(unsigned char raw[20], const char *s)
{
	if (!ss_hexid_is_full(s, strlen(s)))
		return -1;
	for (int i = 0; i < 20; i++)
		raw[i] = (unsigned char)(ss_hexid_digit((unsigned char)s[2 * i]) << 4 |
					 ss_hexid_digit((unsigned char)s[2 * i + 1]));
	return 0;
}
