/*
 * hexid.h - object ids written as hexadecimal digits: the one check of
 * "is this a full id" and "is this an abbreviated id" for every reader
 * (labels files, releases files, mail "From <sha>" lines, command-line
 * commits, history).  Upper and lower case are both accepted; callers
 * that store an id lower-case it themselves.
 */
#ifndef SS_HEXID_H
#define SS_HEXID_H

#include <stddef.h>
#include <stdint.h>

/* How many hex digits s starts with, looking at no more than max bytes. */
size_t ss_hexid_span(const char *s, size_t max);

/* 1 when s[0..len) is a full object id: exactly 40 hex digits. */
int ss_hexid_is_full(const char *s, size_t len);

/* 1 when the string s is an abbreviated id: 4 to 40 hex digits. */
int ss_hexid_is_prefix(const char *s);

/*
 * The first 16 hex digits of s (fewer when it is shorter) as a number,
 * never 0 (ss_u64map's empty key): the key of an id or a patch id in a
 * util/u64map.h map.  s holds only hex digits, either case.
 */
uint64_t ss_hexid_key(const char *s);

/* The value of the hex digit c (either case), or -1 when c is none. */
int ss_hexid_digit(int c);

/* The 20 bytes of the full id s (40 hex digits, either case) into raw:
 * 0, or -1 when s is no full id. */
int ss_hexid_raw(unsigned char raw[20], const char *s);

#endif
