/*
 * patchid.c - git's stable patch id (see patchid.h).  SHA-1 comes from
 * GLib's GChecksum (GLib is already linked through GMime); the state
 * machine is git's, written here because libgit2 has no patch id.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "commit/patch.h"
#include "commit/patchid.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/strbuf.h"

#define SHA1_LEN 20

struct pid {
	GChecksum *ctx;
	unsigned char sum[SHA1_LEN]; /* the files' hashes added up */
	size_t hashed;               /* bytes hashed in all */
};

/* Add the current file's hash to the sum (little-endian, with carry) and
 * start the next file's. */
static void flush_file(struct pid *p)
{
	unsigned char h[SHA1_LEN];
	gsize n = sizeof(h);
	unsigned carry = 0;
	size_t i;

	g_checksum_get_digest(p->ctx, h, &n);
	g_checksum_reset(p->ctx);
	for (i = 0; i < SHA1_LEN; i++) {
		carry += (unsigned)p->sum[i] + h[i];
		p->sum[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/* Hash a line with every white-space byte removed. */
static void hash_line(struct pid *p, const char *s, size_t len)
{
	char buf[256];
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)s[i]))
			continue;
		buf[n++] = s[i];
		if (n == sizeof(buf)) {
			g_checksum_update(p->ctx, (const guchar *)buf, (gssize)n);
			p->hashed += n;
			n = 0;
		}
	}
	g_checksum_update(p->ctx, (const guchar *)buf, (gssize)n);
	p->hashed += n;
}

/* The old and new line counts of "@@ -a,b +c,d @@" (a count left out is 1). */
static int hunk_counts(const char *s, const char *end, long *before, long *after)
{
	const char *p = s + 4;

	*before = *after = 1;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (p < end && *p == ',') {
		*before = 0;
		for (p++; p < end && isdigit((unsigned char)*p); p++)
			*before = *before * 10 + (*p - '0');
	}
	if (p + 1 >= end || p[0] != ' ' || p[1] != '+')
		return -1;
	for (p += 2; p < end && isdigit((unsigned char)*p); p++)
		;
	if (p < end && *p == ',') {
		*after = 0;
		for (p++; p < end && isdigit((unsigned char)*p); p++)
			*after = *after * 10 + (*p - '0');
	}
	return 0;
}

static int starts(const char *s, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - s) >= n && !memcmp(s, prefix, n);
}

int ss_patch_id_text(char out[41], const char *text, size_t len)
{
	const char *s, *next, *end = text + len;
	long before = -1, after = -1;
	struct pid p;
	int started = 0;
	size_t i;

	memset(&p, 0, sizeof(p));
	if (!(p.ctx = g_checksum_new(G_CHECKSUM_SHA1)))
		return ss_error_code(SS_ENOMEM, "out of memory");
	for (s = text; s < end; s = next) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;

		next = nl ? nl + 1 : end;
		/* git leaves out "\ No newline at end of file" */
		if (starts(s, le, "\\ ") && le - s > 12)
			continue;
		if (!started) {
			if (!starts(s, le, "diff "))
				continue;
			started = 1;
		}
		if (before == -1) {
			if (starts(s, le, "GIT binary patch") || starts(s, le, "Binary files"))
				goto no_id; /* git hashes the blob ids, which are not kept */
			if (starts(s, le, "index "))
				continue;
			if (starts(s, le, "--- "))
				before = after = 1;
			else if (!isalpha((unsigned char)*s))
				break;
		}
		if (before == 0 && after == 0) {
			if (starts(s, le, "@@ -")) {
				if (hunk_counts(s, le, &before, &after))
					break;
				continue;
			}
			if (!starts(s, le, "diff "))
				break; /* the end of the patch */
			flush_file(&p);
			before = after = -1;
		}
		if (*s == '-' || *s == ' ')
			before--;
		if (*s == '+' || *s == ' ')
			after--;
		hash_line(&p, s, (size_t)(le - s));
	}
	if (!p.hashed)
		goto no_id;
	flush_file(&p);
	g_checksum_free(p.ctx);
	for (i = 0; i < SHA1_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", p.sum[i]);
	return 0;

no_id:
	g_checksum_free(p.ctx);
	return SS_ENOTFOUND;
}

int ss_commit_patch_id(char out[41], const ss_commit *c)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i;
	int rc;

	if (c->truncated || !c->nfiles)
		return SS_ENOTFOUND;
	for (i = 0; i < c->nfiles; i++)
		if (c->files[i].binary)
			return SS_ENOTFOUND;
	if ((rc = ss_patch_diff(&sb, c, 0, NULL)) == 0)
		rc = ss_patch_id_text(out, sb.buf ? sb.buf : "", sb.len);
	ss_strbuf_release(&sb);
	return rc;
}

uint64_t ss_commit_patch_key(const ss_commit *c)
{
	char pid[41];

	if (ss_commit_patch_id(pid, c))
		return 0;
	return ss_hexid_key(pid);
}

/* FNV-1a over the bytes of s that are not white space */
static uint64_t fnv_nospace(uint64_t h, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)s[i]))
			continue;
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t fnv_byte(uint64_t h, unsigned char b)
{
	return (h ^ b) * 0x100000001b3ULL;
}

uint64_t ss_commit_change_key(const ss_commit *c)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t f, k, l, changed = 0;
	const char *e = c->author.email;

	if (c->truncated || !c->nfiles)
		return 0;
	for (; *e; e++)
		h = fnv_byte(h, (unsigned char)tolower((unsigned char)*e));
	h = fnv_byte(h, 0);
	h = fnv_nospace(h, c->subject, strlen(c->subject));
	for (f = 0; f < c->nfiles; f++) {
		const ss_file *file = &c->files[f];
		const char *path = ss_file_path(file);

		if (file->binary)
			return 0;
		h = fnv_byte(h, 1);
		h = fnv_nospace(h, path, strlen(path));
		for (k = 0; k < file->nhunks; k++)
			for (l = 0; l < file->hunks[k].nlines; l++) {
				const ss_line *ln = &file->hunks[k].lines[l];

				if (ln->origin != '+' && ln->origin != '-')
					continue;
				changed++;
				h = fnv_byte(h, (unsigned char)ln->origin);
				h = fnv_nospace(h, ln->text, ln->len);
			}
	}
	return changed ? (h ? h : 1) : 0;
}

/* One line's hash under seed: FNV-1a over the seed, path, origin and
 * text without white space, then mixed (splitmix64's finaliser) so that
 * the seeds give independent orders. */
static uint32_t line_hash(uint64_t base, uint64_t seed)
{
	uint64_t z = base ^ (seed * 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

void ss_commit_near_sketch(ss_near_sketch *out, const ss_commit *c)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t f, k, l, s, changed = 0;
	const char *e = c->author.email;

	memset(out, 0, sizeof(*out));
	for (s = 0; s < SS_NEAR_HASHES; s++)
		out->min[s] = UINT32_MAX;
	if (c->truncated || !c->nfiles)
		return;
	for (f = 0; f < c->nfiles; f++) {
		const ss_file *file = &c->files[f];
		const char *path = ss_file_path(file);
		uint64_t ph;

		if (file->binary)
			return;
		ph = fnv_nospace(0xcbf29ce484222325ULL, path, strlen(path));
		for (k = 0; k < file->nhunks; k++)
			for (l = 0; l < file->hunks[k].nlines; l++) {
				const ss_line *ln = &file->hunks[k].lines[l];
				uint64_t lh;

				if (ln->origin != '+' && ln->origin != '-')
					continue;
				changed++;
				lh = fnv_nospace(fnv_byte(ph, (unsigned char)ln->origin), ln->text,
						 ln->len);
				for (s = 0; s < SS_NEAR_HASHES; s++) {
					uint32_t v = line_hash(lh, s + 1);

					if (v < out->min[s])
						out->min[s] = v;
				}
			}
	}
	if (!changed)
		return;
	for (; *e; e++)
		h = fnv_byte(h, (unsigned char)tolower((unsigned char)*e));
	h = fnv_byte(h, 0);
	h = fnv_nospace(h, c->subject, strlen(c->subject));
	out->author = h ? h : 1;
}

int ss_near_agree(const ss_near_sketch *a, const ss_near_sketch *b)
{
	int s, n = 0;

	for (s = 0; s < SS_NEAR_HASHES; s++)
		n += a->min[s] == b->min[s];
	return n;
}
