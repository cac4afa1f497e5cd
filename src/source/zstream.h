/*
 * zstream.h - read a plain, gzip or zstd file as one plain byte stream.
 *
 * The compression is sniffed from the first bytes, not the file name, so
 * "-" (standard input) may be compressed too.  A thread decompresses into
 * a pipe whose read end the caller consumes (GMime reads it as a pipe
 * stream): decompression and parsing then run on both cores, and memory
 * stays bounded whatever the size of the input.
 */
#ifndef SS_ZSTREAM_H
#define SS_ZSTREAM_H

typedef struct ss_zstream ss_zstream;

/*
 * Open path ("-" for stdin) and start the thread.  0 or < 0 (message).
 *
 * With mbox_quote, an mbox is handed on mboxrd-quoted whatever it was:
 * "From " lines that are not message separators (git format-patch writes
 * bodies unquoted, as mboxo, and GMime would split a message at "From the
 * man page:") get one more '>', as do ">From " lines, so that the reader
 * undoes one level of quoting for every input.  An mboxrd input (lore's
 * "From mboxrd@z" separators) is already quoted and passes unchanged.
 */
int ss_zstream_open(ss_zstream **out, const char *path, int mbox_quote);

/*
 * The same, for reading again what grew at the end of an input read
 * before: the decoded bytes are counted with a crc32 when track is set
 * (ss_zstream_crc()), and the first skip decoded bytes (0: none) are
 * passed over without being handed on when their crc32 is skip_crc and
 * they end with a whole line; else nothing is handed on and
 * ss_zstream_resumed() says -1 (the input was rewritten: read it again
 * from the start).  Passing over still decodes (no parsing).
 */
int ss_zstream_open_at(ss_zstream **out, const char *path, int mbox_quote, int track,
		       unsigned long long skip, unsigned long skip_crc);

/* After ss_zstream_finish(): the crc32 of every decoded byte (with track
 * or skip), and whether the skip was made: 1 made, 0 none asked, -1 the
 * first bytes were not the ones expected. */
unsigned long ss_zstream_crc(const ss_zstream *z);
int ss_zstream_resumed(const ss_zstream *z);

/* The read end of the pipe.  The caller takes ownership of the fd and
 * must close it before ss_zstream_free(). */
int ss_zstream_fd(ss_zstream *z);

/* Wait for the thread; 0, or SS_EINVALID with the decompression error
 * ("'x.zst' is corrupt: ...") when the input could not be decoded. */
int ss_zstream_finish(ss_zstream *z);

/* How many first decoded bytes ss_zstream_head() keeps. */
#define SS_ZSTREAM_HEAD 4096

/* After ss_zstream_finish(): the first decoded bytes (at most
 * SS_ZSTREAM_HEAD; the input as read, before quoting or CRLF folding), for
 * saying what a file that holds no mail looks like.  Returns their count. */
size_t ss_zstream_head(const ss_zstream *z, const char **out);

/* After ss_zstream_finish(): the decoded length, and its last two bytes
 * in out (NUL bytes for what is not there), for telling a file that ends
 * mid-line or without its closing blank line. */
unsigned long long ss_zstream_tail(const ss_zstream *z, char out[2]);

/*
 * A CRLF mbox (its first line ends in "\r\n") is handed on as its LF twin:
 * one '\r' goes from every line that ends in "\r\n".
 */

/* Input bytes read so far (compressed size). */
unsigned long long ss_zstream_bytes(const ss_zstream *z);

void ss_zstream_free(ss_zstream *z); /* joins the thread; NULL is a no-op */

#endif
