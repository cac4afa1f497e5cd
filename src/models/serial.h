/*
 * serial.h - little-endian writer and bounds-checked reader for model files.
 *
 * The writer appends to an ss_strbuf; its first failure sticks (w->err)
 * so that callers check once at the end.  The reader never reads past its
 * end: a short read sets r->err = SS_EINVALID, marks r->truncated and
 * returns zeros, so a truncated file cannot crash the loader, and the
 * loader reports "truncated" rather than garbage.
 */
#ifndef SS_SERIAL_H
#define SS_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

typedef struct {
	ss_strbuf *sb;
	int err;
} ss_wbuf;

void ss_w_u8(ss_wbuf *w, uint8_t v);
void ss_w_u32(ss_wbuf *w, uint32_t v);
void ss_w_u64(ss_wbuf *w, uint64_t v);
void ss_w_i64(ss_wbuf *w, int64_t v);
void ss_w_f32(ss_wbuf *w, float v);
void ss_w_f64(ss_wbuf *w, double v);
void ss_w_str(ss_wbuf *w, const char *s);          /* u32 length + bytes; NULL = "" */
void ss_w_f32s(ss_wbuf *w, const float *v, size_t n); /* n floats, no count */

typedef struct {
	const unsigned char *p, *end;
	int err;
	int truncated;
} ss_rbuf;

uint8_t ss_r_u8(ss_rbuf *r);
uint32_t ss_r_u32(ss_rbuf *r);
uint64_t ss_r_u64(ss_rbuf *r);
int64_t ss_r_i64(ss_rbuf *r);
float ss_r_f32(ss_rbuf *r);
double ss_r_f64(ss_rbuf *r);
/* A string of at most max bytes, copied into buf[size] (truncated there);
 * longer strings are an error (r->err) rather than a huge allocation. */
void ss_r_str(ss_rbuf *r, char *buf, size_t size, size_t max);
/* Pointer to len bytes in the buffer (NULL when short). */
const unsigned char *ss_r_bytes(ss_rbuf *r, size_t len);
void ss_r_f32s(ss_rbuf *r, float *v, size_t n);

#endif
