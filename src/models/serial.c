/* serial.c - explicit little-endian encoding for model files (see serial.h). */
#include <string.h>

#include "models/serial.h"
#include "util/error.h"

static void put(ss_wbuf *w, const void *p, size_t n)
{
	if (!w->err && ss_strbuf_add(w->sb, p, n))
		w->err = SS_ENOMEM;
}

void ss_w_u8(ss_wbuf *w, uint8_t v)
{
	put(w, &v, 1);
}

void ss_w_u32(ss_wbuf *w, uint32_t v)
{
	unsigned char b[4];
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(w, b, 4);
}

void ss_w_u64(ss_wbuf *w, uint64_t v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(w, b, 8);
}

void ss_w_i64(ss_wbuf *w, int64_t v)
{
	ss_w_u64(w, (uint64_t)v);
}

void ss_w_f32(ss_wbuf *w, float v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	ss_w_u32(w, u);
}

void ss_w_f64(ss_wbuf *w, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	ss_w_u64(w, u);
}

void ss_w_str(ss_wbuf *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	ss_w_u32(w, (uint32_t)n);
	put(w, s ? s : "", n);
}

void ss_w_f32s(ss_wbuf *w, const float *v, size_t n)
{
	size_t i;

	if (w->err || ss_strbuf_grow(w->sb, n * 4)) {
		w->err = SS_ENOMEM;
		return;
	}
	for (i = 0; i < n; i++)
		ss_w_f32(w, v[i]);
}

const unsigned char *ss_r_bytes(ss_rbuf *r, size_t len)
{
	const unsigned char *p = r->p;

	if (r->err || (size_t)(r->end - r->p) < len) {
		if (!r->err)
			r->truncated = 1;
		r->err = SS_EINVALID;
		return NULL;
	}
	r->p += len;
	return p;
}

uint8_t ss_r_u8(ss_rbuf *r)
{
	const unsigned char *p = ss_r_bytes(r, 1);

	return p ? p[0] : 0;
}

uint32_t ss_r_u32(ss_rbuf *r)
{
	const unsigned char *p = ss_r_bytes(r, 4);

	if (!p)
		return 0;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t ss_r_u64(ss_rbuf *r)
{
	uint64_t lo = ss_r_u32(r);

	return lo | (uint64_t)ss_r_u32(r) << 32;
}

int64_t ss_r_i64(ss_rbuf *r)
{
	return (int64_t)ss_r_u64(r);
}

float ss_r_f32(ss_rbuf *r)
{
	uint32_t u = ss_r_u32(r);
	float v;

	memcpy(&v, &u, 4);
	return v;
}

double ss_r_f64(ss_rbuf *r)
{
	uint64_t u = ss_r_u64(r);
	double v;

	memcpy(&v, &u, 8);
	return v;
}

void ss_r_str(ss_rbuf *r, char *buf, size_t size, size_t max)
{
	uint32_t n = ss_r_u32(r);
	const unsigned char *p;
	size_t copy;

	if (size)
		buf[0] = '\0';
	if (r->err)
		return;
	if (n > max) {
		r->err = SS_EINVALID;
		return;
	}
	p = ss_r_bytes(r, n);
	if (!p || !size)
		return;
	copy = n < size - 1 ? n : size - 1;
	memcpy(buf, p, copy);
	buf[copy] = '\0';
}

void ss_r_f32s(ss_rbuf *r, float *v, size_t n)
{
	size_t i;

	if (r->err || (size_t)(r->end - r->p) / 4 < n) {
		if (!r->err)
			r->truncated = 1;
		r->err = SS_EINVALID;
		return;
	}
	for (i = 0; i < n; i++)
		v[i] = ss_r_f32(r);
}
