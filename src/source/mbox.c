/*
 * mbox.c - commits from mail: format-patch output, lore/public-inbox
 * archives (mboxrd), tip-bot mails and plainly posted patches.
 *
 * GMime 3 does the mail work: mbox splitting (GMIME_FORMAT_MBOX),
 * quoted-printable and base64, RFC 2047 headers, charsets to UTF-8.  What
 * GMime does not do is done here: mboxrd's ">From " quoting is undone, the
 * tip-bot preamble is read for id, author and dates and then dropped, and
 * the commit message is cut from the diffstat and diff, which go to
 * libgit2 through ss_commit_parse_patch().
 *
 * No mail header ever reaches the commit: the Cc header of a tip mail
 * names stable@ when the commit is tagged, and the Subject carries the
 * tip branch, a near-label.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>
#include <gmime/gmime.h>

#include "commit/series.h"
#include "source/diff.h"
#include "source/impl.h"
#include "source/zstream.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/strbuf.h"

typedef struct {
	char *path;
	ss_zstream *z;
	GMimeStream *stream;
	GMimeParser *parser;
	ss_source_options opts;
	ss_source_stats *stats;
	int done;
	int reported;     /* the "not an mbox" error was returned */
	gint64 last_fail; /* parser offset at the last unparsable message, -1 none */
} mbox;

/* A line-oriented view of a decoded body. */
typedef struct {
	const char *s, *end;
} span;

static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

static size_t line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = (size_t)((nl ? nl : end) - p);

	if (n && p[n - 1] == '\r')
		n--;
	return n;
}

static int line_is(const char *p, const char *end, const char *what)
{
	size_t n = strlen(what);

	return line_len(p, end) == n && !memcmp(p, what, n);
}

static int line_starts(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

/* Remove leading "[PATCH 05000/25959]", "[tip: x86/urgent]", "Re:" ... */
static const char *strip_subject(const char *s)
{
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '[') {
			const char *e = strchr(s, ']');

			if (!e)
				return s;
			s = e + 1;
			continue;
		}
		return s;
	}
}

/* "[PATCH 046/130] ..." -> 46, 130 */
static void read_patch_number(ss_commit *c, const char *s)
{
	const char *p = strstr(s, "PATCH ");
	unsigned n, total;

	if (p && p < s + 64 && sscanf(p + 6, "%u/%u", &n, &total) == 2) {
		c->patch_n = n;
		c->patch_total = total;
	}
}

/* The first "<id>" of a header value, without the brackets, into out. */
static int first_msgid(char *out, size_t size, const char *value)
{
	const char *lt = value ? strchr(value, '<') : NULL, *gt;

	if (!lt || !(gt = strchr(lt + 1, '>')) || gt == lt + 1 || (size_t)(gt - lt - 1) >= size)
		return 0;
	memcpy(out, lt + 1, (size_t)(gt - lt - 1));
	out[gt - lt - 1] = '\0';
	return 1;
}

/*
 * The series facts of a "[PATCH vK n/m]" mail (commit/series.h): the
 * thread's root (the first id of References, else In-Reply-To, else the
 * mail's own Message-ID: patch 1 of a series sent without a cover
 * letter).  Transport, kept for verdicts and the queue only.
 */
static int read_thread(ss_commit *c, GMimeMessage *msg, const char *hsubject)
{
	unsigned n, total, version;
	const char *own = g_mime_message_get_message_id(msg);
	char root[200], key[220];

	if (!ss_series_subject(&n, &total, &version, hsubject))
		return 0;
	if (!first_msgid(root, sizeof(root), g_mime_object_get_header((GMimeObject *)msg, "References")) &&
	    !first_msgid(root, sizeof(root), g_mime_object_get_header((GMimeObject *)msg, "In-Reply-To"))) {
		if (!own || !*own || strlen(own) >= sizeof(root))
			return 0;
		snprintf(root, sizeof(root), "%s", own);
	}
	snprintf(key, sizeof(key), "%s v%u", root, version);
	if (!(c->mail_thread = ss_arena_strdup(c->arena, key)))
		return SS_ENOMEM;
	c->mail_n = n;
	c->mail_total = total;
	return 0;
}

static int is_reply_subject(const char *s)
{
	while (*s == ' ')
		s++;
	return !strncasecmp(s, "re:", 3) || !strncasecmp(s, "aw:", 3) ||
	       !strncasecmp(s, "fwd:", 4);
}

/* "[PATCH 0/7]", "[PATCH v2 00/12]", "[RFC PATCH 000/3]" */
static int is_cover_subject(const char *s)
{
	while (*s == ' ')
		s++;
	while (*s == '[') {
		const char *e = strchr(s, ']');
		const char *slash;

		if (!e)
			return 0;
		slash = memchr(s, '/', (size_t)(e - s));
		if (slash) {
			const char *d = slash;

			while (d > s && isdigit((unsigned char)d[-1]))
				d--;
			if (d < slash) {
				const char *q = d;

				while (q < slash && *q == '0')
					q++;
				if (q == slash)
					return 1;
			}
		}
		s = e + 1;
		while (*s == ' ')
			s++;
	}
	return 0;
}

/* "Name <email>" -> name, email (arena copies); bare "email" works too. */
static int parse_ident(ss_commit *c, ss_person *who, const char *s, size_t len)
{
	const char *lt = memchr(s, '<', len), *gt;
	size_t nlen;

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!lt || !(gt = memchr(lt, '>', len - (size_t)(lt - s)))) {
		who->name = "";
		who->email = ss_arena_strndup(c->arena, s, len);
		return who->email ? 0 : SS_ENOMEM;
	}
	nlen = (size_t)(lt - s);
	while (nlen && isspace((unsigned char)s[nlen - 1]))
		nlen--;
	if (nlen >= 2 && s[0] == '"' && s[nlen - 1] == '"') {
		s++;
		nlen -= 2;
	}
	who->name = ss_arena_strndup(c->arena, s, nlen);
	who->email = ss_arena_strndup(c->arena, lt + 1, (size_t)(gt - lt - 1));
	return who->name && who->email ? 0 : SS_ENOMEM;
}

/*
 * An RFC 2822 date as mails and the tip preamble write it.  The tip bot
 * writes offsets as "+02:00" and sometimes none at all (then UTC).
 */
static int parse_date(ss_person *who, const char *s, size_t len)
{
	char buf[128];
	GDateTime *dt;
	size_t n;

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len >= sizeof(buf) - 8 || !len)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	n = len;
	/* "+02:00" -> "+0200" */
	if (n >= 6 && (buf[n - 6] == '+' || buf[n - 6] == '-') && buf[n - 3] == ':') {
		buf[n - 3] = buf[n - 2];
		buf[n - 2] = buf[n - 1];
		buf[n - 1] = '\0';
	}
	dt = g_mime_utils_header_decode_date(buf);
	if (!dt)
		return -1;
	who->time = g_date_time_to_unix(dt);
	who->tz = (int)(g_date_time_get_utc_offset(dt) / G_TIME_SPAN_MINUTE);
	g_date_time_unref(dt);
	return 0;
}

/*
 * Append a text part's content, transfer-decoded and converted to UTF-8.
 * Written by hand over the stream API rather than with
 * g_mime_text_part_get_text() because that returns a C string: a NUL byte
 * in a mail body would silently cut the text (and the diff) there.  NULs
 * are dropped here; everything after them is kept.
 */
static void append_text(ss_strbuf *sb, GMimePart *part)
{
	GMimeDataWrapper *content = g_mime_part_get_content(part);
	const char *charset;
	GMimeStream *mem, *filtered;
	GByteArray *bytes;
	size_t i;

	if (!content)
		return;
	mem = g_mime_stream_mem_new();
	filtered = g_mime_stream_filter_new(mem);
	charset = g_mime_object_get_content_type_parameter((GMimeObject *)part, "charset");
	if (charset && g_ascii_strcasecmp(charset, "utf-8") && g_ascii_strcasecmp(charset, "us-ascii")) {
		GMimeFilter *f = g_mime_filter_charset_new(charset, "utf-8");

		if (f) {
			g_mime_stream_filter_add((GMimeStreamFilter *)filtered, f);
			g_object_unref(f);
		}
	}
	g_mime_data_wrapper_write_to_stream(content, filtered);
	g_mime_stream_flush(filtered);
	g_object_unref(filtered);
	bytes = g_mime_stream_mem_get_byte_array((GMimeStreamMem *)mem);
	if (bytes && bytes->len) {
		if (sb->len && sb->buf[sb->len - 1] != '\n')
			ss_strbuf_addch(sb, '\n');
		for (i = 0; i < bytes->len;) {
			const char *p = (const char *)bytes->data + i;
			const char *nul = memchr(p, '\0', bytes->len - i);
			size_t n = nul ? (size_t)(nul - p) : bytes->len - i;

			ss_strbuf_add(sb, p, n);
			i += n + (nul != NULL);
		}
	}
	g_object_unref(mem);
}

/* Concatenate the text parts of a message, decoded to UTF-8. */
static void collect_text(ss_strbuf *sb, GMimeObject *obj)
{
	if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = (GMimeMultipart *)obj;
		int i, n = g_mime_multipart_get_count(mp);

		for (i = 0; i < n; i++)
			collect_text(sb, g_mime_multipart_get_part(mp, i));
	} else if (GMIME_IS_TEXT_PART(obj)) {
		GMimeContentType *ct = g_mime_object_get_content_type(obj);
		const char *sub = ct ? g_mime_content_type_get_media_subtype(ct) : "plain";

		if (sub && strcasecmp(sub, "plain") && strcasecmp(sub, "x-patch") &&
		    strcasecmp(sub, "x-diff") && strcasecmp(sub, "x-csrc"))
			return;
		append_text(sb, (GMimePart *)obj);
	}
}

/* mboxrd: ">From " -> "From ", ">>From " -> ">From " (in place). */
static void unquote_mboxrd(ss_strbuf *sb)
{
	char *r = sb->buf, *w = sb->buf, *end = sb->buf + sb->len;
	int bol = 1;

	while (r < end) {
		if (bol && *r == '>') {
			char *q = r;

			while (q < end && *q == '>')
				q++;
			if (end - q >= 5 && !memcmp(q, "From ", 5))
				r++;
		}
		bol = *r == '\n';
		*w++ = *r++;
	}
	sb->len = (size_t)(w - sb->buf);
	*w = '\0';
}

/* Where the diff starts ("diff --git" at a line start) or end. */
static const char *find_diff(const char *p, const char *end)
{
	for (; p < end; p = next_line(p, end))
		if (line_starts(p, end, "diff --git "))
			return p;
	return end;
}

/* End of the commit message: the last "---" line before the diff, or the
 * diff itself, or the "-- " signature of format-patch. */
static const char *message_end(const char *p, const char *diff, const char *end)
{
	const char *q, *cut = NULL, *sig = NULL;

	for (q = p; q < diff; q = next_line(q, diff)) {
		if (line_is(q, diff, "---"))
			cut = q;
		else if (diff == end && !sig && line_is(q, diff, "-- "))
			sig = q;
	}
	if (cut)
		return cut;
	if (sig)
		return sig;
	return diff;
}

enum kind { MAIL_PLAIN, MAIL_FORMAT_PATCH, MAIL_TIP };

/*
 * Read the tip-bot preamble at *pp: the optional "The following commit has
 * been merged into the <branch> branch of tip:" line and the Commit-ID,
 * Author, AuthorDate, Committer and CommitterDate lines.  Everything of it
 * is transport and is consumed; *pp moves past it.
 */
static int read_tip_preamble(ss_commit *c, const char **pp, const char *end, int *have_id)
{
	const char *p = *pp;
	int rc = 0;

	while (p < end && line_len(p, end) == 0)
		p = next_line(p, end);
	if (line_starts(p, end, "The following commit has been merged")) {
		p = next_line(p, end);
		while (p < end && line_len(p, end) == 0)
			p = next_line(p, end);
		/* the tip bot always goes on with the Commit-ID: a cut mail */
		if (!line_starts(p, end, "Commit-ID:"))
			return ss_error_code(SS_ESKIP, "tip mail without its Commit-ID line");
	}
	if (!line_starts(p, end, "Commit-ID:"))
		return 0;
	for (; p < end && line_len(p, end); p = next_line(p, end)) {
		size_t n = line_len(p, end);
		const char *colon = memchr(p, ':', n), *v;
		size_t klen, vlen;

		if (!colon)
			continue;
		klen = (size_t)(colon - p);
		v = colon + 1;
		while (v < p + n && (*v == ' ' || *v == '\t'))
			v++;
		vlen = (size_t)(p + n - v);
		if (klen == 9 && !memcmp(p, "Commit-ID", 9)) {
			if (vlen >= 40) {
				memcpy(c->id, v, 40);
				c->id[40] = '\0';
				*have_id = 1;
			}
		} else if (klen == 6 && !memcmp(p, "Author", 6)) {
			rc = parse_ident(c, &c->author, v, vlen);
		} else if (klen == 10 && !memcmp(p, "AuthorDate", 10)) {
			if (parse_date(&c->author, v, vlen))
				return ss_error_code(SS_ESKIP, "bad AuthorDate '%.*s'", (int)vlen, v);
		} else if (klen == 9 && !memcmp(p, "Committer", 9)) {
			rc = parse_ident(c, &c->committer, v, vlen);
		} else if ((klen == 13 && !memcmp(p, "CommitterDate", 13)) ||
			   (klen == 10 && !memcmp(p, "CommitDate", 10))) {
			if (parse_date(&c->committer, v, vlen))
				return ss_error_code(SS_ESKIP, "bad CommitterDate '%.*s'", (int)vlen, v);
		}
		if (rc)
			return rc;
	}
	*pp = p;
	return 0;
}

/* In-body "From:", "Date:", "Subject:" lines of a posted patch (as git
 * mailinfo reads them) override the mail's headers. */
static int read_inbody_headers(ss_commit *c, const char **pp, const char *end,
			       ss_strbuf *subject)
{
	const char *p = *pp;
	int seen = 0, rc = 0;

	for (; p < end && line_len(p, end); p = next_line(p, end)) {
		size_t n = line_len(p, end);

		if (n > 5 && !strncasecmp(p, "From:", 5)) {
			rc = parse_ident(c, &c->author, p + 5, n - 5);
		} else if (n > 5 && !strncasecmp(p, "Date:", 5)) {
			if (parse_date(&c->author, p + 5, n - 5))
				break;
		} else if (n > 8 && !strncasecmp(p, "Subject:", 8)) {
			ss_strbuf_reset(subject);
			ss_strbuf_adds(subject, strip_subject(p + 8));
		} else {
			break;
		}
		if (rc)
			return rc;
		seen = 1;
	}
	if (seen && p < end && !line_len(p, end))
		*pp = next_line(p, end);
	return 0;
}

static int derive_id(ss_commit *c, const char *message_id, const char *fallback)
{
	git_oid oid;
	const char *s = message_id && *message_id ? message_id : fallback;

	if (git_odb_hash(&oid, s, strlen(s), GIT_OBJECT_BLOB) < 0)
		return ss_error_set("cannot hash message id: %s", ss_git_error());
	git_oid_tostr(c->id, sizeof(c->id), &oid);
	return 0;
}

/* "<40 hex digits>" then a space or the end: a format-patch "From " id. */
static int is_hex40(const char *s)
{
	return ss_hexid_span(s, 40) == 40 && (s[40] == ' ' || s[40] == '\0');
}

/* "@@ -a[,b] +c[,d] @@": the old and new line counts (1 when omitted). */
static int hunk_counts(const char *p, const char *end, unsigned long *old, unsigned long *new)
{
	char buf[96];
	size_t n = line_len(p, end);
	unsigned long a, b = 1, c, d = 1;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (sscanf(buf, "@@ -%lu,%lu +%lu,%lu", &a, &b, &c, &d) == 4 ||
	    (b = 1, sscanf(buf, "@@ -%lu +%lu,%lu", &a, &c, &d) == 3) ||
	    (d = 1, sscanf(buf, "@@ -%lu,%lu +%lu", &a, &b, &c) == 3) ||
	    (b = 1, sscanf(buf, "@@ -%lu +%lu", &a, &c) == 2)) {
		*old = b;
		*new = d;
		return 0;
	}
	return -1;
}

/* What a diff holds, or its diffstat summary says it holds. */
typedef struct {
	unsigned long files, added, removed;
} diff_count;

/*
 * Count the files and the '+'/'-' lines of the diff at p..end, and return
 * the lines its last hunk still lacks by its header's counts.  A line that
 * a mail system broke at 998 bytes adds a line (its second half may even
 * look like context); that errs on the side of a message being whole.
 * Missing lines mean the text was cut.
 */
static unsigned long count_diff(diff_count *out, const char *p, const char *end)
{
	unsigned long old = 0, new = 0;
	int in_hunks = 0;

	memset(out, 0, sizeof(*out));
	for (; p < end; p = next_line(p, end)) {
		if (line_starts(p, end, "diff --git ")) {
			out->files++;
			in_hunks = 0;
			old = new = 0;
			continue;
		}
		if (line_starts(p, end, "@@ -")) {
			if (hunk_counts(p, end, &old, &new))
				old = new = 0;
			in_hunks = 1;
			continue;
		}
		if (!in_hunks)
			continue;
		if (*p == '-' && !(line_is(p, end, "-- ") && end - p < 64)) {
			out->removed++;
			if (old)
				old--;
		} else if (*p == '+') {
			out->added++;
			if (new)
				new--;
		} else if (*p == ' ' || *p == '\n' || *p == '\r') {
			if (old)
				old--;
			if (new)
				new--;
		}
	}
	return old > new ? old : new;
}

/* An "index A..B" blob id of no content: absent (0000000) or empty (e69de29). */
static int blob_is_empty(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && isxdigit((unsigned char)p[n]))
		n++;
	if (n < 7)
		return 0;
	return !memcmp(p, "e69de29", 7) || strspn(p, "0") >= n;
}

/*
 * Is the last file section of a diff (from its "diff --git" line to end)
 * whole?  One with hunks is judged by their counts; a binary one is taken
 * as it is.  Without either, only a rename, copy or mode change, or a new
 * or deleted empty file, is whole: an index line of a content change (or
 * "---"/"+++" lines without an index line) promise hunks that are not
 * there.
 */
static int section_cut(const char *p, const char *end)
{
	int index = 0, index_change = 0, files = 0, rename = 0, copy = 0, mode = 0, other = 0;

	for (p = next_line(p, end); p < end; p = next_line(p, end)) {
		if (line_starts(p, end, "@@ ") || line_starts(p, end, "Binary files ") ||
		    line_starts(p, end, "GIT binary patch"))
			return 0;
		if (line_starts(p, end, "--- ") || line_starts(p, end, "+++ ")) {
			files = 1;
		} else if (line_starts(p, end, "index ")) {
			const char *dots = memchr(p, '.', line_len(p, end));

			index = 1;
			index_change = !dots || dots[1] != '.' || !blob_is_empty(p + 6, dots) ||
				       !blob_is_empty(dots + 2, end);
		} else if (line_starts(p, end, "rename from ")) {
			rename = 1;
		} else if (line_starts(p, end, "rename to ")) {
			rename = 2;
		} else if (line_starts(p, end, "copy from ")) {
			copy = 1;
		} else if (line_starts(p, end, "copy to ")) {
			copy = 2;
		} else if (line_starts(p, end, "old mode ")) {
			mode = 1;
		} else if (line_starts(p, end, "new mode ")) {
			mode = 2;
		} else if (line_starts(p, end, "new file mode ") ||
			   line_starts(p, end, "deleted file mode ")) {
			other = 1;
		}
	}
	/* old gits write "---"/"+++" for a deleted empty file too */
	if ((files && !index) || index_change || rename == 1 || copy == 1 || mode == 1)
		return 1;
	return !(rename || copy || mode || other);
}

/* Read "<n> <word>" at *pp (after spaces and commas) and move past the
 * word: n, or 0 (and *pp unmoved) when something else is there. */
static unsigned long stat_count(const char **pp, const char *end, const char *word)
{
	const char *q = *pp;
	unsigned long v = 0;

	while (q < end && (*q == ' ' || *q == ','))
		q++;
	if (q >= end || !isdigit((unsigned char)*q))
		return 0;
	while (q < end && isdigit((unsigned char)*q))
		v = v * 10 + (unsigned long)(*q++ - '0');
	if (!line_starts(q, end, word))
		return 0;
	*pp = q + strlen(word);
	return v;
}

/* " 3 files changed, 10 insertions(+), 2 deletions(-)" in the message
 * part; 0 when there is none. */
static int read_diffstat(diff_count *out, const char *p, const char *end)
{
	int found = 0;

	memset(out, 0, sizeof(*out));
	for (; p < end; p = next_line(p, end)) {
		const char *q = p;
		unsigned long n;

		if (*p != ' ')
			continue;
		n = stat_count(&q, end, " file changed");
		if (!n)
			n = stat_count(&q, end, " files changed");
		if (!n)
			continue;
		out->files = n;
		out->added = stat_count(&q, end, " insertion");
		if (out->added)
			q += 4 + (*q == 's'); /* "(+)" or "s(+)" */
		out->removed = stat_count(&q, end, " deletion");
		found = 1;
	}
	return found;
}

/*
 * Is the raw (transfer-encoded) content of a text part complete?  A base64
 * part holds whole 4-character groups; a quoted-printable part does not
 * end in a soft line break or half an "=XX" escape.  NULL or the problem.
 */
static const char *part_cut(GMimeObject *obj)
{
	if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = (GMimeMultipart *)obj;
		int i, n = g_mime_multipart_get_count(mp);
		const char *why = NULL;

		for (i = 0; i < n && !why; i++)
			why = part_cut(g_mime_multipart_get_part(mp, i));
		return why;
	}
	if (GMIME_IS_PART(obj)) {
		GMimeDataWrapper *content = g_mime_part_get_content((GMimePart *)obj);
		GMimeContentEncoding enc = g_mime_part_get_content_encoding((GMimePart *)obj);
		GMimeStream *raw, *mem;
		GByteArray *bytes;
		const char *why = NULL;
		size_t i, n = 0, len;

		if (!content || (enc != GMIME_CONTENT_ENCODING_BASE64 &&
				 enc != GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE))
			return NULL;
		raw = g_mime_data_wrapper_get_stream(content);
		if (!raw)
			return NULL;
		mem = g_mime_stream_mem_new();
		g_mime_stream_reset(raw);
		g_mime_stream_write_to_stream(raw, mem);
		bytes = g_mime_stream_mem_get_byte_array((GMimeStreamMem *)mem);
		len = bytes ? bytes->len : 0;
		if (enc == GMIME_CONTENT_ENCODING_BASE64) {
			for (i = 0; i < len; i++)
				n += !isspace(bytes->data[i]);
			if (n % 4)
				why = "its base64 part ends mid-group";
		} else {
			const unsigned char *d = bytes ? bytes->data : NULL;

			while (len && isspace(d[len - 1]))
				len--;
			if ((len >= 1 && d[len - 1] == '=') || (len >= 2 && d[len - 2] == '='))
				why = "its quoted-printable part ends mid-line";
		}
		g_object_unref(mem);
		return why;
	}
	return NULL;
}

/*
 * How the input ended, for its last message, whatever kind of mail it is:
 * mid-line, or (when the message has no text) within its header, which a
 * blank line would have closed.  NULL or the problem.
 */
static const char *tail_cut(mbox *m, int no_text)
{
	unsigned long long total;
	char tail[2];

	if (!m->z)
		return NULL;
	total = ss_zstream_tail(m->z, tail);
	if (total && tail[1] != '\n')
		return "it ends mid-line";
	if (no_text && total >= 2 && tail[0] != '\n')
		return "it ends in its header";
	return NULL;
}

/* The "-- \n2.34.1" signature git format-patch ends a mail with. */
static int has_signature(const char *p, const char *end)
{
	const char *q;

	for (q = p; q < end; q = next_line(q, end))
		if (line_is(q, end, "-- ") && end - q < 64)
			return 1;
	return 0;
}

/*
 * The last message of a file has no separator after it to prove it
 * complete, and a file cut short (a partial copy or download) ends in one.
 * Its end must be there: a last line with its newline, whole
 * transfer-encoded parts, the files and lines its diffstat counts and the
 * lines its last hunk promises.  Without a diff, a format-patch mail must end
 * in its "-- " signature and a tip mail is cut (its merges were skipped
 * before).  NULL or the problem.
 */
static const char *last_message_cut(mbox *m, GMimeMessage *msg, enum kind kind,
				    const char *p, const char *diff, const char *end)
{
	diff_count want, have;
	const char *why;

	/* how the input ended (tail_cut) was checked before the message was
	 * parsed further */
	if (!m->z)
		return NULL;
	why = part_cut(g_mime_message_get_mime_part(msg));
	if (why)
		return why;
	/* a base64 part cut after a whole group still ends mid-line */
	if (end > p && end[-1] != '\n')
		return "its text ends mid-line";
	if (diff < end) {
		const char *q, *last_file = diff;

		if (count_diff(&have, diff, end))
			return "its last hunk is shorter than its header says";
		for (q = diff; q < end; q = next_line(q, end))
			if (line_starts(q, end, "diff --git "))
				last_file = q;
		if (section_cut(last_file, end))
			return "its last file has a header but not its changes";
		if (read_diffstat(&want, p, diff) &&
		    (want.files > have.files || want.added > have.added ||
		     want.removed > have.removed))
			return "its diff has fewer files or lines than its diffstat says";
	} else if (kind == MAIL_TIP) {
		return "it ends before its diff";
	} else if (kind == MAIL_FORMAT_PATCH && !has_signature(p, end)) {
		return "it ends before its diff or its '-- ' signature";
	}
	return NULL;
}

/*
 * Build a commit from one parsed mail.  Returns 0 (commit in *out), a
 * positive skip reason (1 reply, 2 cover letter, 3 merge, 4 other), or
 * < 0 (SS_ESKIP with message: malformed).
 */
static int mail_to_commit(ss_commit **out, mbox *m, GMimeMessage *msg, const char *marker,
			  int last)
{
	ss_strbuf text = SS_STRBUF_INIT, subject = SS_STRBUF_INIT, full = SS_STRBUF_INIT;
	const char *hsubject = g_mime_message_get_subject(msg);
	const char *p, *end, *diff, *mend, *subj_end;
	enum kind kind = MAIL_PLAIN;
	int have_id = 0, rc = 0;
	ss_commit *c;

	*out = NULL;
	c = ss_commit_new();
	if (!c)
		return SS_ENOMEM;
	c->source = m->path;
	if (!hsubject)
		hsubject = "";
	read_patch_number(c, hsubject);
	if (marker && !strncmp(marker, "From ", 5) && is_hex40(marker + 5)) {
		memcpy(c->id, marker + 5, 40);
		c->id[40] = '\0';
		have_id = 1;
		kind = MAIL_FORMAT_PATCH;
	}
	/* a format-patch export ("From <sha>") numbers a range of history,
	 * "[PATCH 05000/25959]": no posted series */
	if (kind != MAIL_FORMAT_PATCH && (rc = read_thread(c, msg, hsubject))) {
		ss_commit_free(c);
		return rc;
	}

	collect_text(&text, g_mime_message_get_mime_part(msg));
	/* every input reaches GMime mboxrd-quoted (zstream.c quotes mboxo) */
	unquote_mboxrd(&text);
	p = text.buf;
	end = text.buf + text.len;

	/* the people and date of the mail; the tip preamble overrides them */
	{
		InternetAddressList *from = g_mime_message_get_from(msg);
		InternetAddress *ia = from && internet_address_list_length(from) > 0 ?
			internet_address_list_get_address(from, 0) : NULL;
		GDateTime *dt = g_mime_message_get_date(msg);

		if (ia && INTERNET_ADDRESS_IS_MAILBOX(ia)) {
			const char *name = internet_address_get_name(ia);
			const char *addr = internet_address_mailbox_get_addr((InternetAddressMailbox *)ia);

			c->author.name = ss_arena_strdup(c->arena, name ? name : "");
			c->author.email = ss_arena_strdup(c->arena, addr ? addr : "");
		}
		if (dt) {
			c->author.time = g_date_time_to_unix(dt);
			c->author.tz = (int)(g_date_time_get_utc_offset(dt) / G_TIME_SPAN_MINUTE);
		}
	}

	/* a cut last mail is reported even when it would be skipped */
	if (last) {
		const char *why = tail_cut(m, !text.len);

		if (why) {
			rc = ss_error_code(SS_ESKIP, "the last message is cut short: %s", why);
			goto fail;
		}
	}

	rc = read_tip_preamble(c, &p, end, &have_id);
	if (rc)
		goto fail;
	if (have_id && kind == MAIL_PLAIN)
		kind = MAIL_TIP;

	if (kind == MAIL_TIP) {
		/* the subject is the first paragraph after the preamble */
		while (p < end && !line_len(p, end))
			p = next_line(p, end);
	} else {
		ss_strbuf_adds(&subject, strip_subject(hsubject));
		if (kind == MAIL_PLAIN) {
			if (is_reply_subject(hsubject)) {
				rc = 1;
				goto skip;
			}
			if (is_cover_subject(hsubject)) {
				rc = 2;
				goto skip;
			}
			rc = read_inbody_headers(c, &p, end, &subject);
			if (rc)
				goto fail;
		}
	}

	diff = find_diff(p, end);
	mend = message_end(p, diff, end);
	if (kind == MAIL_PLAIN && diff == end) {
		const char *irt = g_mime_object_get_header((GMimeObject *)msg, "In-Reply-To");

		rc = irt ? 1 : !strncasecmp(subject.buf, "Merge", 5) ||
			strstr(hsubject, "GIT PULL") ? 3 : 4;
		goto skip;
	}
	if (kind == MAIL_PLAIN) {
		rc = derive_id(c, g_mime_message_get_message_id(msg), hsubject);
		if (rc)
			goto fail;
	}

	if (kind == MAIL_TIP) {
		rc = ss_commit_set_message(c, p, (size_t)(mend - p));
		if (!rc && diff == end && !strncmp(c->subject, "Merge ", 6)) {
			rc = 3;
			goto skip;
		}
	} else {
		subj_end = subject.buf + subject.len;
		(void)subj_end;
		if (ss_strbuf_add(&full, subject.buf, subject.len) ||
		    ss_strbuf_adds(&full, "\n\n") ||
		    ss_strbuf_add(&full, p, (size_t)(mend - p)))
			rc = SS_ENOMEM;
		else
			rc = ss_commit_set_message(c, full.buf, full.len);
	}
	if (rc)
		goto fail;
	if (last) {
		const char *why = last_message_cut(m, msg, kind, p, diff, end);

		if (why) {
			rc = ss_error_code(SS_ESKIP, "the last message is cut short: %s", why);
			goto fail;
		}
	}
	if (!c->subject || !c->subject[0]) {
		rc = ss_error_code(SS_ESKIP, "no subject");
		goto fail;
	}
	if (!c->id[0]) {
		rc = ss_error_code(SS_ESKIP, "no commit id");
		goto fail;
	}
	if (!c->author.time) {
		rc = ss_error_code(SS_ESKIP, "no author date");
		goto fail;
	}
	if (m->opts.with_diff && diff < end) {
		rc = ss_commit_parse_patch(c, diff, (size_t)(end - diff), m->opts.max_lines);
		if (rc)
			goto fail;
	}
	*out = c;
	c = NULL;
	goto release;

skip:
	if (rc < 0)
		goto fail;
	goto release;
fail:
	if (rc != SS_ENOMEM)
		rc = SS_ESKIP;
release:
	ss_commit_free(c);
	ss_strbuf_release(&text);
	ss_strbuf_release(&subject);
	ss_strbuf_release(&full);
	return rc;
}

/*
 * A source that holds no mail at all is a mistake (a label file, a model,
 * a wrong path), not an empty mbox: say what it looks like.
 */
static int not_an_mbox(mbox *m)
{
	const char *head, *what;
	size_t n = ss_zstream_head(m->z, &head), i, ctrl = 0, tabs = 0, lines = 0;
	char tail[2];

	if (!n)
		return ss_error_code(SS_EINVALID, "'%s' is not an mbox: it is empty", m->path);
	if (n >= 5 && !memcmp(head, "From ", 5))
		return ss_error_code(SS_EINVALID, "'%s' is cut short: it ends in the header of "
				     "its first message", m->path);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)head[i];

		if (ch == '\t')
			tabs++;
		else if (ch == '\n')
			lines++;
		else if (ch < 0x20 && ch != '\r' && ch != '\f')
			ctrl++;
	}
	if (ctrl || memchr(head, '\0', n))
		what = "it looks like binary data";
	else if (tabs && tabs >= lines)
		what = "it looks like a TSV file";
	else
		what = "it looks like text that is not mail";
	return ss_error_code(SS_EINVALID, "'%s' is not an mbox: no 'From ' line in its %llu bytes; %s",
			     m->path, ss_zstream_tail(m->z, tail), what);
}

static int mbox_next(ss_commit **out, void *impl)
{
	mbox *m = impl;

	*out = NULL;
	while (!m->done) {
		GMimeMessage *msg;
		char *marker;
		size_t nr;
		int rc, last;

		if (g_mime_parser_eos(m->parser)) {
			m->done = 1;
			break;
		}
		msg = g_mime_parser_construct_message(m->parser, NULL);
		m->stats->bytes = ss_zstream_bytes(m->z);
		if (!msg) {
			if (g_mime_parser_eos(m->parser)) {
				m->done = 1;
				/* a separator and no message after it: a file cut
				 * within the header of its last message */
				if (!m->stats->messages)
					break;
				m->stats->malformed++;
				return ss_error_code(SS_ESKIP, "mbox '%s': message %zu skipped: "
						     "the last message is cut short: it ends in its header",
						     m->path, m->stats->messages + 1);
			}
			/*
			 * GMime made no progress since the last failure: the rest
			 * cannot be read.  Stop quietly; that message was reported.
			 */
			if (m->last_fail >= 0 && g_mime_parser_tell(m->parser) == m->last_fail) {
				m->done = 1;
				break;
			}
			m->stats->malformed++;
			m->last_fail = g_mime_parser_tell(m->parser);
			return ss_error_code(SS_ESKIP, "mbox '%s': message %zu cannot be parsed",
					     m->path, m->stats->messages + 1);
		}
		nr = ++m->stats->messages;
		marker = g_mime_parser_get_mbox_marker(m->parser);
		/* the last message: wait for the reader, which knows how the
		 * input ended */
		last = g_mime_parser_eos(m->parser);
		if (last && m->z)
			ss_zstream_finish(m->z);
		rc = mail_to_commit(out, m, msg, marker, last);
		g_free(marker);
		g_object_unref(msg);
		if (rc == 0)
			return 0;
		if (rc == 1)
			m->stats->skipped_replies++;
		else if (rc == 2)
			m->stats->skipped_covers++;
		else if (rc == 3)
			m->stats->skipped_merges++;
		else if (rc == 4)
			m->stats->skipped_other++;
		else if (rc == SS_ENOMEM)
			return ss_error_code(SS_ENOMEM, "out of memory reading '%s'", m->path);
		else {
			char what[1024];

			m->stats->malformed++;
			snprintf(what, sizeof(what), "%s", ss_error_last());
			return ss_error_code(SS_ESKIP, "mbox '%s': message %zu skipped: %s",
					     m->path, nr, what);
		}
	}
	/* end of input: was it complete? */
	if (m->z) {
		int rc = ss_zstream_finish(m->z);
		char tail[2];

		if (rc)
			return rc;
		if (m->opts.resume) {
			m->stats->decoded = ss_zstream_tail(m->z, tail);
			m->stats->decoded_crc = ss_zstream_crc(m->z);
			m->stats->resumed = ss_zstream_resumed(m->z);
		}
	}
	/* nothing new after what was passed over is no error */
	if (!m->stats->messages && !m->stats->malformed && !m->reported &&
	    !(m->z && ss_zstream_resumed(m->z))) {
		m->reported = 1;
		return not_an_mbox(m);
	}
	return SS_ITEROVER;
}

static void mbox_free(void *impl)
{
	mbox *m = impl;

	if (!m)
		return;
	if (m->parser)
		g_object_unref(m->parser);
	if (m->stream)
		g_object_unref(m->stream); /* closes the pipe's read end */
	ss_zstream_free(m->z);
	free(m->path);
	free(m);
}

int ss_mbox_open(void **out, ss_source_ops *ops, const char *path,
		 const ss_source_options *opts, ss_source_stats *stats)
{
	mbox *m;
	int rc;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return SS_ENOMEM;
	m->last_fail = -1;
	m->path = strdup(path);
	m->opts = *opts;
	m->stats = stats;
	if (!m->path) {
		free(m);
		return SS_ENOMEM;
	}
	rc = ss_zstream_open_at(&m->z, path, 1, opts->resume, opts->resume ? opts->resume_at : 0,
				opts->resume_crc);
	if (rc) {
		mbox_free(m);
		return rc;
	}
	m->stream = g_mime_stream_pipe_new(ss_zstream_fd(m->z));
	g_mime_stream_pipe_set_owner((GMimeStreamPipe *)m->stream, TRUE);
	m->parser = g_mime_parser_new_with_stream(m->stream);
	g_mime_parser_set_format(m->parser, GMIME_FORMAT_MBOX);
	g_mime_parser_set_respect_content_length(m->parser, FALSE);
	ops->next = mbox_next;
	ops->free = mbox_free;
	ops->repo = NULL;
	*out = m;
	return 0;
}
