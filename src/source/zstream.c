/* zstream.c - decompressing reader thread feeding a pipe (see zstream.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "source/zstream.h"
#include "util/error.h"
#include "util/grow.h"

#define CHUNK (128 * 1024)

struct ss_zstream {
	int in_fd, out_fd, read_fd;
	char *path;
	pthread_t thread;
	int started, joined;
	atomic_ullong bytes;
	/* mboxrd quoting of the output (see zstream.h) */
	int quote, passthrough, first_line, prev_blank;
	char *line;            /* an incomplete line carried between chunks */
	size_t line_len, line_cap;
	char *obuf;            /* output batched into pipe-sized writes */
	size_t olen;
	int broken;            /* the reader went away */
	int crlf;              /* the first line ends in CRLF: lines end in LF */
	char head[SS_ZSTREAM_HEAD]; /* the first decoded bytes */
	size_t head_len;
	char tail[2];          /* the last two decoded bytes */
	unsigned long long total; /* decoded bytes */
	/* resuming (ss_zstream_open_at): a running crc32 of the decoded
	 * bytes; the first skip of them are passed over (discard) and must
	 * have skip_crc and end a line */
	int track, discard, skipping, resumed;
	unsigned long long skip;
	unsigned long crc, skip_crc;
	char err[512]; /* set by the thread; read after join */
};

/* Write all of buf to the pipe; -1 when the reader went away. */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

#define OBUF (64 * 1024)

static int flush_out(struct ss_zstream *z)
{
	if (z->discard)
		return 0;
	if (z->olen && !z->broken && write_all(z->out_fd, z->obuf, z->olen))
		z->broken = 1;
	z->olen = 0;
	return z->broken ? -1 : 0;
}

static int put(struct ss_zstream *z, const char *p, size_t len)
{
	if (z->discard)
		return 0;
	if (z->olen + len > OBUF && flush_out(z))
		return -1;
	if (len > OBUF)
		return write_all(z->out_fd, p, len) ? (z->broken = 1, -1) : 0;
	memcpy(z->obuf + z->olen, p, len);
	z->olen += len;
	return 0;
}

/*
 * A real mbox separator, after git's mailsplit: "From <addr> <date>" where
 * the date has a hh:mm:ss time and a year after it.
 */
static int is_separator(const char *p, size_t len)
{
	const char *colon = NULL;
	size_t i;

	if (len < 20 || memcmp(p, "From ", 5))
		return 0;
	for (i = len - 1; i > 5; i--)
		if (p[i] == ':') {
			colon = p + i;
			break;
		}
	if (!colon || colon - p < 8 || (size_t)(colon - p) + 4 > len)
		return 0;
	/* "hh:mm:ss yyyy": colon is the second ':' */
	return isdigit((unsigned char)colon[-1]) && isdigit((unsigned char)colon[-2]) &&
	       colon[-3] == ':' && isdigit((unsigned char)colon[1]) &&
	       isdigit((unsigned char)colon[2]);
}

static int put_line(struct ss_zstream *z, const char *p, size_t len)
{
	char lf = '\n';
	int blank, quote = 0;

	if (z->first_line) {
		z->first_line = 0;
		if (len >= 13 && !memcmp(p, "From mboxrd@z", 13))
			z->passthrough = 1;
		z->crlf = len >= 2 && p[len - 2] == '\r' && p[len - 1] == '\n';
		z->prev_blank = 1;
	}
	/* a CRLF mbox reads as its LF twin: one '\r' goes from each line end
	 * (a CRLF file inside a patch keeps its own '\r') */
	if (z->crlf && len >= 2 && p[len - 2] == '\r' && p[len - 1] == '\n') {
		if (put_line(z, p, len - 2))
			return -1;
		return put(z, &lf, 1);
	}
	blank = len == 1 || (len == 2 && p[0] == '\r');
	if (!z->passthrough) {
		if (len >= 5 && !memcmp(p, "From ", 5)) {
			quote = !is_separator(p, len);
		} else if (len && p[0] == '>') {
			size_t i = 0;

			while (i < len && p[i] == '>')
				i++;
			quote = len - i >= 5 && !memcmp(p + i, "From ", 5);
		}
	}
	z->prev_blank = blank;
	if (quote && put(z, ">", 1))
		return -1;
	return put(z, p, len);
}

static int emit_lines(struct ss_zstream *z, const void *buf, size_t len);

/* Count decoded bytes: the head, the tail, the total, the crc. */
static void account(struct ss_zstream *z, const char *p, size_t len)
{
	size_t h = len < sizeof(z->head) - z->head_len ? len : sizeof(z->head) - z->head_len;

	if (!len)
		return;
	memcpy(z->head + z->head_len, p, h);
	z->head_len += h;
	if (len >= 2)
		memcpy(z->tail, p + len - 2, 2);
	else {
		z->tail[0] = z->tail[1];
		z->tail[1] = p[0];
	}
	z->total += len;
	if (z->track)
		z->crc = crc32(z->crc, (const Bytef *)p, (uInt)len);
}

/*
 * Pass over the first z->skip decoded bytes: counted, and seen line by
 * line only while the first line is open (it decides CRLF and mboxrd
 * handling for the rest), never written.  At the end of them, go on when
 * they are what the caller read before (crc, a whole last line); else
 * stop the stream with z->resumed -1.  The number of bytes used.
 */
static size_t pass_over(struct ss_zstream *z, const char *p, size_t len)
{
	unsigned long long left = z->skip - z->total;
	size_t n = len < left ? len : (size_t)left;

	account(z, p, n);
	if (z->first_line || z->line_len) {
		z->discard = 1;
		emit_lines(z, p, n);
		z->discard = 0;
	}
	if (z->total < z->skip)
		return n;
	z->skipping = 0;
	if (z->crc != z->skip_crc || z->tail[1] != '\n' || z->line_len) {
		z->resumed = -1;
		z->broken = 1;
	} else {
		z->resumed = 1;
	}
	return n;
}

/* Hand decompressed bytes on, quoting line by line when asked. */
static int emit(struct ss_zstream *z, const void *buf, size_t len)
{
	const char *p = buf;

	if (z->broken)
		return -1;
	if (z->skipping) {
		size_t n = pass_over(z, p, len);

		if (z->broken)
			return -1;
		p += n;
		len -= n;
	}
	account(z, p, len);
	return emit_lines(z, p, len);
}

static int emit_lines(struct ss_zstream *z, const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;

	if (!z->quote || (z->passthrough && !z->crlf)) {
		if (z->discard)
			return 0;
		return write_all(z->out_fd, buf, len) ? (z->broken = 1, -1) : 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (z->line_len || !nl) {
			if (SS_GROW(z->line, z->line_len + n, z->line_cap)) {
				snprintf(z->err, sizeof(z->err), "cannot read '%s': out of memory", z->path);
				z->broken = 1;
				return -1;
			}
			memcpy(z->line + z->line_len, p, n);
			z->line_len += n;
			if (nl) {
				if (put_line(z, z->line, z->line_len))
					return -1;
				z->line_len = 0;
			}
		} else if (put_line(z, p, n)) {
			return -1;
		}
		if (z->passthrough && !z->crlf) {
			p += n;
			if (flush_out(z))
				return -1;
			return p < end ? emit_lines(z, p, (size_t)(end - p)) : 0;
		}
		p += n;
	}
	return 0;
}

/* The end of input: the last line may lack its newline. */
static void emit_end(struct ss_zstream *z)
{
	if (z->line_len && !z->broken)
		put_line(z, z->line, z->line_len);
	z->line_len = 0;
	flush_out(z);
}

/* Read up to len bytes, retrying on EINTR; -1 on error. */
static ssize_t read_some(struct ss_zstream *z, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(z->in_fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		z->bytes += (unsigned long long)n;
	else if (n < 0)
		snprintf(z->err, sizeof(z->err), "cannot read '%s': %s", z->path, strerror(errno));
	return n;
}

static void copy_plain(struct ss_zstream *z, unsigned char *in, size_t have)
{
	ssize_t n;

	do {
		if (emit(z, in, have))
			return;
		n = read_some(z, in, CHUNK);
		have = n > 0 ? (size_t)n : 0;
	} while (n > 0);
}

static void copy_zstd(struct ss_zstream *z, unsigned char *in, size_t have)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	size_t out_size = ZSTD_DStreamOutSize(), ret = 1;
	unsigned char *out = malloc(out_size);
	ssize_t n;

	if (!ds || !out) {
		snprintf(z->err, sizeof(z->err), "cannot decompress '%s': out of memory", z->path);
		goto free_ds;
	}
	ZSTD_initDStream(ds);
	for (;;) {
		ZSTD_inBuffer ib = { in, have, 0 };

		while (ib.pos < ib.size) {
			ZSTD_outBuffer ob = { out, out_size, 0 };

			ret = ZSTD_decompressStream(ds, &ob, &ib);
			if (ZSTD_isError(ret)) {
				snprintf(z->err, sizeof(z->err), "'%s' is corrupt: %s", z->path,
					 ZSTD_getErrorName(ret));
				goto free_ds;
			}
			if (ob.pos && emit(z, out, ob.pos))
				goto free_ds;
		}
		n = read_some(z, in, CHUNK);
		if (n <= 0)
			break;
		have = (size_t)n;
	}
	if (ret != 0 && !z->err[0])
		snprintf(z->err, sizeof(z->err), "'%s' is truncated (zstd frame incomplete)", z->path);
free_ds:
	free(out);
	ZSTD_freeDStream(ds);
}

static void copy_gzip(struct ss_zstream *z, unsigned char *in, size_t have)
{
	unsigned char *out = malloc(CHUNK);
	z_stream zs;
	int ret = Z_OK;
	ssize_t n;

	memset(&zs, 0, sizeof(zs));
	if (!out || inflateInit2(&zs, 15 + 32) != Z_OK) {
		snprintf(z->err, sizeof(z->err), "cannot decompress '%s': out of memory", z->path);
		free(out);
		return;
	}
	for (;;) {
		zs.next_in = in;
		zs.avail_in = (uInt)have;
		while (zs.avail_in) {
			zs.next_out = out;
			zs.avail_out = CHUNK;
			ret = inflate(&zs, Z_NO_FLUSH);
			if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
				snprintf(z->err, sizeof(z->err), "'%s' is corrupt: %s", z->path,
					 zs.msg ? zs.msg : "gzip error");
				goto end;
			}
			if (CHUNK - zs.avail_out &&
			    emit(z, out, CHUNK - zs.avail_out))
				goto end;
			if (ret == Z_STREAM_END) /* concatenated gzip members */
				inflateReset(&zs);
			else if (ret == Z_BUF_ERROR)
				break;
		}
		n = read_some(z, in, CHUNK);
		if (n <= 0)
			break;
		have = (size_t)n;
	}
	if (ret != Z_STREAM_END && !z->err[0] && zs.total_in)
		snprintf(z->err, sizeof(z->err), "'%s' is truncated (gzip stream incomplete)", z->path);
end:
	inflateEnd(&zs);
	free(out);
}

static void *run(void *arg)
{
	struct ss_zstream *z = arg;
	unsigned char *in = malloc(CHUNK);
	size_t have = 0;
	sigset_t set;
	ssize_t n;

	/* a reader that stops early closes the pipe: take EPIPE, not SIGPIPE */
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (!in) {
		snprintf(z->err, sizeof(z->err), "cannot read '%s': out of memory", z->path);
		goto close_out;
	}
	while (have < 4) {
		n = read_some(z, in + have, CHUNK - have);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	if (have >= 4 && in[0] == 0x28 && in[1] == 0xb5 && in[2] == 0x2f && in[3] == 0xfd)
		copy_zstd(z, in, have);
	else if (have >= 2 && in[0] == 0x1f && in[1] == 0x8b)
		copy_gzip(z, in, have);
	else if (have)
		copy_plain(z, in, have);
	emit_end(z);
	if (z->skipping) { /* shorter than what was read before */
		z->skipping = 0;
		z->resumed = -1;
	}
close_out:
	free(in);
	close(z->out_fd);
	z->out_fd = -1;
	return NULL;
}

int ss_zstream_open(ss_zstream **out, const char *path, int mbox_quote)
{
	return ss_zstream_open_at(out, path, mbox_quote, 0, 0, 0);
}

int ss_zstream_open_at(ss_zstream **out, const char *path, int mbox_quote, int track,
		       unsigned long long skip, unsigned long skip_crc)
{
	struct ss_zstream *z;
	int fds[2];

	*out = NULL;
	z = calloc(1, sizeof(*z));
	if (!z || !(z->path = strdup(path))) {
		free(z);
		return SS_ENOMEM;
	}
	z->read_fd = z->out_fd = -1;
	z->quote = mbox_quote;
	z->first_line = 1;
	z->track = track || skip;
	z->crc = crc32(0L, Z_NULL, 0);
	z->skip = skip;
	z->skip_crc = skip_crc;
	z->skipping = skip > 0;
	z->obuf = malloc(OBUF);
	if (!z->obuf) {
		ss_zstream_free(z);
		return SS_ENOMEM;
	}
	if (!strcmp(path, "-")) {
		z->in_fd = 0;
	} else {
		z->in_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (z->in_fd < 0) {
			int code = errno == ENOENT ? SS_ENOTFOUND : SS_ERROR;

			ss_error_code(code, "cannot open '%s': %s", path, strerror(errno));
			ss_zstream_free(z);
			return code;
		}
	}
	if (pipe2(fds, O_CLOEXEC)) {
		ss_error_set("cannot create pipe for '%s': %s", path, strerror(errno));
		ss_zstream_free(z);
		return SS_ERROR;
	}
	z->read_fd = fds[0];
	z->out_fd = fds[1];
	if (pthread_create(&z->thread, NULL, run, z)) {
		ss_error_set("cannot start reader thread for '%s'", path);
		ss_zstream_free(z);
		return SS_ERROR;
	}
	z->started = 1;
	*out = z;
	return 0;
}

int ss_zstream_fd(ss_zstream *z)
{
	int fd = z->read_fd;

	z->read_fd = -1;
	return fd;
}

int ss_zstream_finish(ss_zstream *z)
{
	if (z->started && !z->joined) {
		pthread_join(z->thread, NULL);
		z->joined = 1;
	}
	if (z->err[0])
		return ss_error_code(SS_EINVALID, "%s", z->err);
	return 0;
}

size_t ss_zstream_head(const ss_zstream *z, const char **out)
{
	*out = z->head;
	return z->head_len;
}

unsigned long long ss_zstream_tail(const ss_zstream *z, char out[2])
{
	memcpy(out, z->tail, 2);
	return z->total;
}

unsigned long ss_zstream_crc(const ss_zstream *z)
{
	return z->crc;
}

int ss_zstream_resumed(const ss_zstream *z)
{
	return z->resumed;
}

unsigned long long ss_zstream_bytes(const ss_zstream *z)
{
	return z ? atomic_load(&((struct ss_zstream *)z)->bytes) : 0;
}

void ss_zstream_free(ss_zstream *z)
{
	if (!z)
		return;
	if (z->read_fd >= 0)
		close(z->read_fd);
	if (z->started && !z->joined)
		pthread_join(z->thread, NULL);
	if (z->out_fd >= 0)
		close(z->out_fd);
	if (z->in_fd > 0)
		close(z->in_fd);
	free(z->line);
	free(z->obuf);
	free(z->path);
	free(z);
}
