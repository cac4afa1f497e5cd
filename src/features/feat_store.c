/*
 * feat_store.c - a commit's raw features as bytes, and the name of the
 * feature set they belong to (see feat_store.h).
 *
 * Layout: 'F', format byte, varint length of the payload, then the
 * payload deflated: varint count of non-zero dense values, each as its
 * index (one byte) and the float's 32 bits little-endian; varint count of
 * hashes, each 32 bits little-endian; varint count of words, varint bytes
 * of words, the words NUL-terminated.  Most dense values are zero and the
 * words repeat across a message: a systemd commit is a few hundred bytes.
 * A part (ss_feat_part_encode(): the groups extracted before the history
 * is known, for the index's update) is a row with what joining it needs
 * in front.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "features/feat_store.h"
#include "util/error.h"
#include "util/strmap.h"

#define FORMAT 1
/* A payload larger than this is no row this build wrote (a commit of
 * 200,000 files hashes some 1.2 M names: 5 MB). */
#define MAX_PAYLOAD ((size_t)256 << 20)

_Static_assert(SS_NDENSE <= 256, "a dense index is kept in one byte");

static uint64_t table_hash(void)
{
	uint64_t h = ss_hash64("dense", 5, SS_HASH64_SEED);
	size_t i;

	for (i = 0; i < SS_NDENSE; i++) {
		uint32_t g = ss_dense_features[i].group;

		h = ss_hash64(ss_dense_features[i].name, strlen(ss_dense_features[i].name), h);
		h = ss_hash64(&g, sizeof(g), h);
	}
	return h;
}

void ss_feat_version_prefix(char *out)
{
	snprintf(out, SS_FEAT_VERSION_SIZE, "f%d-%016llx-", SS_FEAT_STORE_EXTRACTOR,
		 (unsigned long long)table_hash());
}

void ss_feat_version(char *out, const ss_feat_options *opts, int mask_stable_tags,
		     size_t max_lines)
{
	uint64_t v[3] = { opts->groups, (uint64_t)(mask_stable_tags != 0), (uint64_t)max_lines };

	snprintf(out, SS_FEAT_VERSION_SIZE, "f%d-%016llx-%016llx", SS_FEAT_STORE_EXTRACTOR,
		 (unsigned long long)table_hash(),
		 (unsigned long long)ss_hash64(v, sizeof(v), SS_HASH64_SEED));
}

static int put_varint(ss_strbuf *sb, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		b[n] |= v ? 0x80 : 0;
		n++;
	} while (v);
	return ss_strbuf_add(sb, b, n);
}

static int put_u32(ss_strbuf *sb, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	return ss_strbuf_add(sb, b, 4);
}

int ss_feat_raw_encode(ss_strbuf *out, const ss_feat_raw *r)
{
	ss_strbuf p = SS_STRBUF_INIT;
	size_t i, nz = 0, start = out->len;
	uLongf clen;
	int rc = SS_ENOMEM;

	for (i = 0; i < SS_NDENSE; i++)
		nz += r->dense[i] != 0.0f;
	if (put_varint(&p, nz))
		goto free_payload;
	for (i = 0; i < SS_NDENSE; i++) {
		uint32_t bits;

		if (r->dense[i] == 0.0f)
			continue;
		memcpy(&bits, &r->dense[i], sizeof(bits));
		if (ss_strbuf_addch(&p, (int)i) || put_u32(&p, bits))
			goto free_payload;
	}
	if (put_varint(&p, r->nhashed))
		goto free_payload;
	for (i = 0; i < r->nhashed; i++)
		if (put_u32(&p, r->hashed[i]))
			goto free_payload;
	if (put_varint(&p, r->nwords) || put_varint(&p, r->words.len) ||
	    (r->words.len && ss_strbuf_add(&p, r->words.buf, r->words.len)))
		goto free_payload;
	clen = compressBound((uLong)p.len);
	if (ss_strbuf_addch(out, 'F') || ss_strbuf_addch(out, FORMAT) || put_varint(out, p.len) ||
	    ss_strbuf_grow(out, clen))
		goto free_payload;
	if (compress2((Bytef *)out->buf + out->len, &clen, (const Bytef *)(p.buf ? p.buf : ""),
		      (uLong)p.len, 1) != Z_OK)
		goto free_payload;
	out->len += clen;
	out->buf[out->len] = '\0';
	rc = 0;

free_payload:
	if (rc) {
		out->len = start;
		if (out->buf)
			out->buf[start] = '\0';
	}
	ss_strbuf_release(&p);
	return rc;
}

struct reader {
	const unsigned char *p, *end;
};

static int get_varint(struct reader *rd, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (rd->p < rd->end && shift < 64) {
		unsigned char b = *rd->p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

static uint32_t get_u32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int damaged(const char *what)
{
	return ss_error_code(SS_EINVALID, "stored features are damaged: %s", what);
}

int ss_feat_raw_decode(ss_feat_raw *out, const void *buf, size_t len)
{
	struct reader rd = { buf, (const unsigned char *)buf + len };
	uint64_t plen, n, k, nwords, wbytes;
	unsigned char *p = NULL;
	uLongf got;
	int rc;

	ss_feat_raw_reset(out);
	if (len < 2 || rd.p[0] != 'F' || rd.p[1] != FORMAT)
		return damaged("not a row of this format");
	rd.p += 2;
	if (get_varint(&rd, &plen) || plen > MAX_PAYLOAD)
		return damaged("bad length");
	if (!(p = malloc(plen ? plen : 1)))
		return SS_ENOMEM;
	got = (uLongf)plen;
	if (uncompress(p, &got, rd.p, (uLong)(rd.end - rd.p)) != Z_OK || got != plen) {
		rc = damaged("cannot inflate");
		goto free_payload;
	}
	rd.p = p;
	rd.end = p + plen;
	rc = damaged("cut short");
	if (get_varint(&rd, &n) || n > SS_NDENSE || (uint64_t)(rd.end - rd.p) < n * 5)
		goto free_payload;
	for (k = 0; k < n; k++, rd.p += 5) {
		uint32_t bits = get_u32(rd.p + 1);

		if (rd.p[0] >= SS_NDENSE)
			goto free_payload;
		memcpy(&out->dense[rd.p[0]], &bits, sizeof(bits));
		if (!isfinite(out->dense[rd.p[0]]) || fabsf(out->dense[rd.p[0]]) > SS_FEAT_DENSE_MAX) {
			rc = damaged("a value out of range");
			goto free_payload;
		}
	}
	if (get_varint(&rd, &n) || (uint64_t)(rd.end - rd.p) / 4 < n)
		goto free_payload;
	if (n > out->hcap) {
		uint32_t *h = realloc(out->hashed, n * sizeof(*h));

		if (!h) {
			rc = SS_ENOMEM;
			goto free_payload;
		}
		out->hashed = h;
		out->hcap = n;
	}
	for (k = 0; k < n; k++, rd.p += 4)
		out->hashed[k] = get_u32(rd.p);
	out->nhashed = n;
	if (get_varint(&rd, &nwords) || get_varint(&rd, &wbytes) ||
	    (uint64_t)(rd.end - rd.p) != wbytes || (wbytes && rd.p[wbytes - 1] != '\0'))
		goto free_payload;
	for (k = 0, n = 0; k < wbytes; k++)
		n += rd.p[k] == '\0';
	if (n != nwords)
		goto free_payload;
	if (wbytes && ss_strbuf_add(&out->words, rd.p, wbytes)) {
		rc = SS_ENOMEM;
		goto free_payload;
	}
	out->nwords = nwords;
	rc = 0;

free_payload:
	free(p);
	if (rc)
		ss_feat_raw_reset(out);
	return rc;
}

/* A part: 'P', format byte, varint marks[0] and marks[1], varint length
 * of the release (0 or 40) and its digits, varint count and bytes of the
 * paths (each NUL-terminated), then the row of own (ss_feat_raw_encode()). */
int ss_feat_part_encode(ss_strbuf *out, const ss_feat_raw *own, const size_t marks[2],
			const char *release, const ss_commit *c)
{
	size_t rlen = release ? strlen(release) : 0, bytes = 0, i;

	for (i = 0; i < c->nfiles; i++)
		bytes += strlen(ss_file_path(&c->files[i])) + 1;
	if (ss_strbuf_addch(out, 'P') || ss_strbuf_addch(out, FORMAT) ||
	    put_varint(out, marks[0]) || put_varint(out, marks[1]) || put_varint(out, rlen) ||
	    (rlen && ss_strbuf_add(out, release, rlen)) || put_varint(out, c->nfiles) ||
	    put_varint(out, bytes))
		return SS_ENOMEM;
	for (i = 0; i < c->nfiles; i++) {
		const char *path = ss_file_path(&c->files[i]);

		if (ss_strbuf_add(out, path, strlen(path) + 1))
			return SS_ENOMEM;
	}
	return ss_feat_raw_encode(out, own);
}

int ss_feat_part_decode(ss_feat_raw *own, size_t marks[2], char release[41], ss_strbuf *paths,
			size_t *npaths, const void *buf, size_t len)
{
	struct reader rd = { buf, (const unsigned char *)buf + len };
	uint64_t m0, m1, rlen, n, bytes, k, nul = 0;

	ss_strbuf_reset(paths);
	*npaths = 0;
	release[0] = '\0';
	if (len < 2 || rd.p[0] != 'P' || rd.p[1] != FORMAT)
		return damaged("not a part of this format");
	rd.p += 2;
	if (get_varint(&rd, &m0) || get_varint(&rd, &m1) || get_varint(&rd, &rlen) ||
	    (rlen != 0 && rlen != 40) || (uint64_t)(rd.end - rd.p) < rlen)
		return damaged("cut short");
	memcpy(release, rd.p, rlen);
	release[rlen] = '\0';
	rd.p += rlen;
	if (get_varint(&rd, &n) || get_varint(&rd, &bytes) || (uint64_t)(rd.end - rd.p) < bytes ||
	    (bytes && rd.p[bytes - 1] != '\0'))
		return damaged("cut short");
	for (k = 0; k < bytes; k++)
		nul += rd.p[k] == '\0';
	if (nul != n)
		return damaged("bad paths");
	if (bytes && ss_strbuf_add(paths, rd.p, bytes))
		return SS_ENOMEM;
	rd.p += bytes;
	*npaths = n;
	marks[0] = m0;
	marks[1] = m1;
	return ss_feat_raw_decode(own, rd.p, (size_t)(rd.end - rd.p));
}
