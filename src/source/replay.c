/*
 * replay.c - commits kept compressed in memory (see replay.h).
 *
 * Each commit is serialized into a staging buffer as one record: its size
 * (u64), then its fields in struct order, numbers as native u64/u32 (the
 * bytes never leave the process), strings as a u32 length (UINT32_MAX for
 * NULL), the bytes and a NUL.  When the staging buffer holds a chunk's
 * worth it is compressed as one zstd frame; records never span frames.
 * Reading decompresses a frame at a time, copies each record into the new
 * commit's arena and points the strings into that copy, so a commit costs
 * one copy and a walk over its record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "source/replay.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

#define REPLAY_CHUNK (4u << 20)  /* serialized bytes per zstd frame */
#define REPLAY_LEVEL 1           /* zstd level: fast, ~5x on DPDK's commits */
#define REPLAY_NULL UINT32_MAX   /* length of a NULL string */

struct frame {
	void *data;
	size_t size;     /* compressed */
	size_t raw;      /* decompressed */
};

struct ss_replay {
	size_t cap;
	ss_strbuf stage;       /* records not yet compressed */
	struct frame *frames;
	size_t nframes, frames_cap;
	size_t count, raw, bytes;
	int dropped, reading;
	/* reading */
	size_t next_frame;
	char *buf;             /* the decompressed frame */
	size_t buf_len, buf_cap, pos;
};

int ss_replay_new(ss_replay **out, size_t cap)
{
	ss_replay *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r) {
		ss_error_set("out of memory");
		return SS_ENOMEM;
	}
	r->cap = cap;
	r->stage = (ss_strbuf)SS_STRBUF_INIT;
	*out = r;
	return 0;
}

static void drop_frames(ss_replay *r)
{
	size_t i;

	for (i = 0; i < r->nframes; i++)
		free(r->frames[i].data);
	free(r->frames);
	r->frames = NULL;
	r->nframes = r->frames_cap = 0;
	ss_strbuf_release(&r->stage);
	free(r->buf);
	r->buf = NULL;
	r->buf_len = r->buf_cap = r->pos = 0;
}

void ss_replay_free(ss_replay *r)
{
	if (!r)
		return;
	drop_frames(r);
	free(r);
}

int ss_replay_dropped(const ss_replay *r)
{
	return r->dropped;
}

size_t ss_replay_count(const ss_replay *r)
{
	return r->count;
}

size_t ss_replay_raw_bytes(const ss_replay *r)
{
	return r->raw;
}

size_t ss_replay_bytes(const ss_replay *r)
{
	return r->bytes + r->stage.len;
}

static int put(ss_strbuf *sb, const void *p, size_t n)
{
	return ss_strbuf_add(sb, p, n);
}

static int put64(ss_strbuf *sb, uint64_t v)
{
	return put(sb, &v, sizeof(v));
}

static int put32(ss_strbuf *sb, uint32_t v)
{
	return put(sb, &v, sizeof(v));
}

static int putmem(ss_strbuf *sb, const char *s, size_t len)
{
	if (!s)
		return put32(sb, REPLAY_NULL);
	if (len >= REPLAY_NULL)
		return SS_EINVALID;
	return put32(sb, (uint32_t)len) || put(sb, s, len) || ss_strbuf_addch(sb, '\0');
}

static int putstr(ss_strbuf *sb, const char *s)
{
	return putmem(sb, s, s ? strlen(s) : 0);
}

static int put_person(ss_strbuf *sb, const ss_person *p)
{
	return putstr(sb, p->name) || putstr(sb, p->email) || put64(sb, (uint64_t)p->time) ||
	       put32(sb, (uint32_t)p->tz);
}

static int put_hunk(ss_strbuf *sb, const ss_hunk *h)
{
	size_t i;

	if (put32(sb, h->old_start) || put32(sb, h->old_lines) || put32(sb, h->new_start) ||
	    put32(sb, h->new_lines) || putstr(sb, h->func) || put64(sb, h->nlines) ||
	    put64(sb, h->added) || put64(sb, h->removed))
		return -1;
	for (i = 0; i < h->nlines; i++) {
		const ss_line *l = &h->lines[i];

		if (put(sb, &l->origin, 1) || put(sb, &l->no_eol, 1) || putmem(sb, l->text, l->len))
			return -1;
	}
	return 0;
}

static int put_file(ss_strbuf *sb, const ss_file *f)
{
	size_t i;

	if (putstr(sb, f->old_path) || putstr(sb, f->new_path) || put32(sb, (uint32_t)f->status) ||
	    put32(sb, (uint32_t)f->binary) || put32(sb, f->old_mode) || put32(sb, f->new_mode) ||
	    put64(sb, f->nhunks) || put64(sb, f->added) || put64(sb, f->removed))
		return -1;
	for (i = 0; i < f->nhunks; i++)
		if (put_hunk(sb, &f->hunks[i]))
			return -1;
	return 0;
}

static int put_commit(ss_strbuf *sb, const ss_commit *c)
{
	size_t i;

	if (put(sb, c->id, sizeof(c->id)) || put_person(sb, &c->author) ||
	    put_person(sb, &c->committer) || putstr(sb, c->subject) || putstr(sb, c->message) ||
	    putstr(sb, c->body) || put64(sb, c->ntrailers))
		return -1;
	for (i = 0; i < c->ntrailers; i++)
		if (putstr(sb, c->trailers[i].key) || putstr(sb, c->trailers[i].value))
			return -1;
	if (put64(sb, c->nfiles))
		return -1;
	for (i = 0; i < c->nfiles; i++)
		if (put_file(sb, &c->files[i]))
			return -1;
	return put64(sb, c->added) || put64(sb, c->removed) || put32(sb, (uint32_t)c->truncated) ||
	       put32(sb, (uint32_t)c->masked) || putstr(sb, c->source) || put32(sb, c->patch_n) ||
	       put32(sb, c->patch_total) || putstr(sb, c->mail_thread) || put32(sb, c->mail_n) ||
	       put32(sb, c->mail_total) || put64(sb, c->index) || putstr(sb, c->merge_message) ||
	       put64(sb, c->merge_commits);
}

/* Compress the staging buffer into a frame; 0 or SS_ENOMEM. */
static int seal(ss_replay *r)
{
	struct frame *f;
	size_t bound, n;
	void *data;

	if (!r->stage.len)
		return 0;
	bound = ZSTD_compressBound(r->stage.len);
	if (!(data = malloc(bound)) || SS_GROW(r->frames, r->nframes + 1, r->frames_cap)) {
		free(data);
		ss_error_set("out of memory");
		return SS_ENOMEM;
	}
	n = ZSTD_compress(data, bound, r->stage.buf, r->stage.len, REPLAY_LEVEL);
	if (ZSTD_isError(n)) {
		free(data);
		ss_error_set("cannot compress kept commits: %s", ZSTD_getErrorName(n));
		return SS_ERROR;
	}
	f = &r->frames[r->nframes++];
	/* the bound is far above what zstd wrote on diffs */
	f->data = realloc(data, n);
	if (!f->data)
		f->data = data;
	f->size = n;
	f->raw = r->stage.len;
	r->bytes += n;
	ss_strbuf_reset(&r->stage);
	return 0;
}

int ss_replay_add(ss_replay *r, const ss_commit *c)
{
	size_t start = r->stage.len;
	uint64_t len;
	int rc;

	if (r->reading) {
		ss_error_set("commits added to a replay that is being read");
		return SS_EINVALID;
	}
	if (r->dropped)
		return 0;
	if (put64(&r->stage, 0) || put_commit(&r->stage, c)) {
		r->stage.len = start;
		ss_error_set("cannot keep commit %s: out of memory or a string over 4 GiB", c->id);
		return SS_ENOMEM;
	}
	len = r->stage.len - start - sizeof(len);
	memcpy(r->stage.buf + start, &len, sizeof(len));
	r->count++;
	r->raw += r->stage.len - start;
	if (r->stage.len >= REPLAY_CHUNK && (rc = seal(r)))
		return rc;
	if (r->cap && ss_replay_bytes(r) > r->cap) {
		drop_frames(r);
		r->dropped = 1;
	}
	return 0;
}

/* The record being parsed: the copy in the commit's arena. */
struct rd {
	char *p, *end;
	int bad;
};

static void get(struct rd *d, void *out, size_t n)
{
	if (d->bad || (size_t)(d->end - d->p) < n) {
		d->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, d->p, n);
	d->p += n;
}

static uint64_t get64(struct rd *d)
{
	uint64_t v;

	get(d, &v, sizeof(v));
	return v;
}

static uint32_t get32(struct rd *d)
{
	uint32_t v;

	get(d, &v, sizeof(v));
	return v;
}

static const char *getmem(struct rd *d, uint32_t *len)
{
	uint32_t n = get32(d);
	const char *s;

	*len = 0;
	if (d->bad || n == REPLAY_NULL)
		return NULL;
	if ((size_t)(d->end - d->p) < (size_t)n + 1 || d->p[n] != '\0') {
		d->bad = 1;
		return NULL;
	}
	s = d->p;
	d->p += (size_t)n + 1;
	*len = n;
	return s;
}

static const char *getstr(struct rd *d)
{
	uint32_t len;

	return getmem(d, &len);
}

/* A string that is never NULL in a commit ("" when damaged). */
static const char *getstr0(struct rd *d)
{
	const char *s = getstr(d);

	return s ? s : "";
}

/* n items of size for an array read from d: NULL (and d->bad) when the
 * count cannot fit in what is left of the record. */
static void *get_array(struct rd *d, ss_arena *a, uint64_t n, size_t size, size_t least)
{
	void *p;

	if (d->bad || !n)
		return NULL;
	if (n > (uint64_t)(d->end - d->p) / least) {
		d->bad = 1;
		return NULL;
	}
	if (!(p = ss_arena_calloc(a, (size_t)n, size)))
		d->bad = 1;
	return p;
}

static void get_person(struct rd *d, ss_person *p)
{
	p->name = getstr0(d);
	p->email = getstr0(d);
	p->time = (int64_t)get64(d);
	p->tz = (int)get32(d);
}

static void get_hunk(struct rd *d, ss_arena *a, ss_hunk *h)
{
	size_t i;

	h->old_start = get32(d);
	h->old_lines = get32(d);
	h->new_start = get32(d);
	h->new_lines = get32(d);
	h->func = getstr0(d);
	h->nlines = (size_t)get64(d);
	h->added = (size_t)get64(d);
	h->removed = (size_t)get64(d);
	h->lines = get_array(d, a, h->nlines, sizeof(*h->lines), 6);
	for (i = 0; i < h->nlines && !d->bad; i++) {
		ss_line *l = &h->lines[i];

		get(d, &l->origin, 1);
		get(d, &l->no_eol, 1);
		l->text = getmem(d, &l->len);
		if (!l->text)
			l->text = "";
	}
	if (d->bad)
		h->nlines = 0;
}

static void get_file(struct rd *d, ss_arena *a, ss_file *f)
{
	size_t i;

	f->old_path = getstr(d);
	f->new_path = getstr(d);
	f->status = (ss_file_status)get32(d);
	f->binary = (int)get32(d);
	f->old_mode = get32(d);
	f->new_mode = get32(d);
	f->nhunks = (size_t)get64(d);
	f->added = (size_t)get64(d);
	f->removed = (size_t)get64(d);
	f->hunks = get_array(d, a, f->nhunks, sizeof(*f->hunks), 44);
	for (i = 0; i < f->nhunks && !d->bad; i++)
		get_hunk(d, a, &f->hunks[i]);
	if (d->bad)
		f->nhunks = 0;
}

static int get_commit(ss_commit *c, struct rd *d)
{
	size_t i;

	get(d, c->id, sizeof(c->id));
	c->id[sizeof(c->id) - 1] = '\0';
	get_person(d, &c->author);
	get_person(d, &c->committer);
	c->subject = getstr0(d);
	c->message = getstr0(d);
	c->body = getstr0(d);
	c->ntrailers = (size_t)get64(d);
	c->trailers = get_array(d, c->arena, c->ntrailers, sizeof(*c->trailers), 8);
	for (i = 0; i < c->ntrailers && !d->bad; i++) {
		c->trailers[i].key = getstr0(d);
		c->trailers[i].value = getstr0(d);
	}
	if (d->bad)
		c->ntrailers = 0;
	c->nfiles = (size_t)get64(d);
	c->files = get_array(d, c->arena, c->nfiles, sizeof(*c->files), 48);
	for (i = 0; i < c->nfiles && !d->bad; i++)
		get_file(d, c->arena, &c->files[i]);
	if (d->bad)
		c->nfiles = 0;
	c->files_cap = c->nfiles;
	c->added = (size_t)get64(d);
	c->removed = (size_t)get64(d);
	c->truncated = (int)get32(d);
	c->masked = (int)get32(d);
	c->source = getstr0(d);
	c->patch_n = get32(d);
	c->patch_total = get32(d);
	c->mail_thread = getstr(d);
	c->mail_n = get32(d);
	c->mail_total = get32(d);
	c->index = (size_t)get64(d);
	c->merge_message = getstr(d);
	c->merge_commits = (size_t)get64(d);
	return d->bad || d->p != d->end ? SS_EINVALID : 0;
}

/* Decompress the next frame into r->buf; 0, SS_ITEROVER or an error. */
static int load_frame(ss_replay *r)
{
	struct frame *f;
	size_t n;

	if (r->next_frame >= r->nframes)
		return SS_ITEROVER;
	f = &r->frames[r->next_frame++];
	if (SS_GROW(r->buf, f->raw, r->buf_cap)) {
		ss_error_set("out of memory");
		return SS_ENOMEM;
	}
	n = ZSTD_decompress(r->buf, f->raw, f->data, f->size);
	if (ZSTD_isError(n) || n != f->raw) {
		ss_error_set("kept commits are damaged: %s",
			     ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame");
		return SS_EINVALID;
	}
	/* the frame is read once: its memory goes back now */
	free(f->data);
	f->data = NULL;
	r->buf_len = n;
	r->pos = 0;
	return 0;
}

int ss_replay_next(ss_commit **out, ss_replay *r)
{
	struct rd d = { NULL, NULL, 0 };
	ss_commit *c;
	uint64_t len;
	char *copy;
	int rc;

	*out = NULL;
	if (r->dropped) {
		ss_error_set("the kept commits were dropped at their memory cap");
		return SS_EINVALID;
	}
	if (!r->reading) {
		r->reading = 1;
		if ((rc = seal(r)))
			return rc;
	}
	while (r->pos >= r->buf_len)
		if ((rc = load_frame(r)))
			return rc;
	if (r->buf_len - r->pos < sizeof(len)) {
		ss_error_set("kept commits are damaged: a cut record");
		return SS_EINVALID;
	}
	memcpy(&len, r->buf + r->pos, sizeof(len));
	r->pos += sizeof(len);
	if (len > r->buf_len - r->pos) {
		ss_error_set("kept commits are damaged: a cut record");
		return SS_EINVALID;
	}
	if (!(c = ss_commit_new()) || !(copy = ss_arena_alloc(c->arena, len ? (size_t)len : 1))) {
		ss_commit_free(c);
		ss_error_set("out of memory");
		return SS_ENOMEM;
	}
	memcpy(copy, r->buf + r->pos, (size_t)len);
	r->pos += (size_t)len;
	d.p = copy;
	d.end = copy + len;
	if ((rc = get_commit(c, &d))) {
		ss_commit_free(c);
		ss_error_set("kept commits are damaged: a record does not parse");
		return rc;
	}
	*out = c;
	return 0;
}
