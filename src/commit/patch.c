/*
 * patch.c - unified diffs and mail headers rebuilt from parsed commits
 * (see patch.h).
 */
#include <string.h>
#include <time.h>

#include "commit/patch.h"
#include "util/error.h"

static int add_file_header(ss_strbuf *sb, const ss_file *f)
{
	const char *a = f->old_path ? f->old_path : f->new_path;
	const char *b = f->new_path ? f->new_path : f->old_path;
	int rc = 0;

	rc |= ss_strbuf_addf(sb, "diff --git a/%s b/%s\n", a, b);
	switch (f->status) {
	case SS_FILE_ADDED:
		rc |= ss_strbuf_addf(sb, "new file mode %06o\n", f->new_mode ? f->new_mode : 0100644);
		break;
	case SS_FILE_DELETED:
		rc |= ss_strbuf_addf(sb, "deleted file mode %06o\n", f->old_mode ? f->old_mode : 0100644);
		break;
	case SS_FILE_RENAMED:
	case SS_FILE_COPIED:
		if (f->old_mode && f->new_mode && f->old_mode != f->new_mode)
			rc |= ss_strbuf_addf(sb, "old mode %06o\nnew mode %06o\n", f->old_mode, f->new_mode);
		rc |= ss_strbuf_addf(sb, "%s from %s\n%s to %s\n",
				     f->status == SS_FILE_RENAMED ? "rename" : "copy", a,
				     f->status == SS_FILE_RENAMED ? "rename" : "copy", b);
		break;
	default:
		if (f->old_mode && f->new_mode && f->old_mode != f->new_mode)
			rc |= ss_strbuf_addf(sb, "old mode %06o\nnew mode %06o\n", f->old_mode, f->new_mode);
		break;
	}
	if (f->binary)
		return rc | ss_strbuf_addf(sb, "Binary files %s%s and %s%s differ%s\n",
					   f->old_path ? "a/" : "", f->old_path ? a : "/dev/null",
					   f->new_path ? "b/" : "", f->new_path ? b : "/dev/null",
					   f->binary == SS_FILE_UNREADABLE ?
					   " (unreadable: missing object)" : "");
	if (!f->nhunks)
		return rc;
	rc |= ss_strbuf_addf(sb, "--- %s%s\n", f->old_path ? "a/" : "", f->old_path ? a : "/dev/null");
	rc |= ss_strbuf_addf(sb, "+++ %s%s\n", f->new_path ? "b/" : "", f->new_path ? b : "/dev/null");
	return rc;
}

int ss_patch_diff(ss_strbuf *sb, const ss_commit *c, size_t max_lines, size_t *cut)
{
	size_t i, j, k, written = 0, left = 0;
	int rc = 0;

	for (i = 0; i < c->nfiles; i++) {
		const ss_file *f = &c->files[i];

		if (max_lines && written >= max_lines) {
			for (j = 0; j < f->nhunks; j++)
				left += f->hunks[j].nlines;
			continue;
		}
		rc |= add_file_header(sb, f);
		for (j = 0; j < f->nhunks && !f->binary; j++) {
			const ss_hunk *h = &f->hunks[j];

			if (max_lines && written >= max_lines) {
				left += h->nlines;
				continue;
			}
			rc |= ss_strbuf_addf(sb, "@@ -%u,%u +%u,%u @@%s%s\n", h->old_start, h->old_lines,
					     h->new_start, h->new_lines, *h->func ? " " : "", h->func);
			for (k = 0; k < h->nlines; k++) {
				const ss_line *l = &h->lines[k];

				if (max_lines && written >= max_lines) {
					left += h->nlines - k;
					break;
				}
				rc |= ss_strbuf_addch(sb, l->origin);
				rc |= ss_strbuf_add(sb, l->text, l->len);
				rc |= ss_strbuf_addch(sb, '\n');
				if (l->no_eol)
					rc |= ss_strbuf_adds(sb, "\\ No newline at end of file\n");
				written++;
			}
		}
		if (rc)
			return SS_ENOMEM;
	}
	if (cut)
		*cut = left;
	return rc ? SS_ENOMEM : 0;
}

int ss_patch_date(ss_strbuf *sb, int64_t t, int tz)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t local = (time_t)(t + (int64_t)tz * 60);
	int a = tz < 0 ? -tz : tz;
	struct tm tm;

	if (!gmtime_r(&local, &tm))
		return ss_strbuf_adds(sb, "Thu, 1 Jan 1970 00:00:00 +0000");
	return ss_strbuf_addf(sb, "%s, %d %s %d %02d:%02d:%02d %c%02d%02d", days[tm.tm_wday],
			      tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
			      tm.tm_sec, tz < 0 ? '-' : '+', a / 60, a % 60);
}

int ss_patch_header_value(ss_strbuf *sb, const char *s)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;
	size_t i, n = strlen(s);
	int plain = 1, rc = 0;

	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			plain = 0;
	if (plain)
		return ss_strbuf_adds(sb, s);
	/* one encoded word per 45 input bytes keeps lines short; a UTF-8
	 * sequence may span two words, which decoders join back */
	for (i = 0; i < n && !rc; i += 45) {
		size_t m = n - i < 45 ? n - i : 45, j;

		rc |= ss_strbuf_adds(sb, i ? "\n =?UTF-8?B?" : "=?UTF-8?B?");
		for (j = 0; j < m; j += 3) {
			unsigned v = (unsigned)p[i + j] << 16;

			if (j + 1 < m)
				v |= (unsigned)p[i + j + 1] << 8;
			if (j + 2 < m)
				v |= p[i + j + 2];
			rc |= ss_strbuf_addch(sb, b64[v >> 18 & 63]);
			rc |= ss_strbuf_addch(sb, b64[v >> 12 & 63]);
			rc |= ss_strbuf_addch(sb, j + 1 < m ? b64[v >> 6 & 63] : '=');
			rc |= ss_strbuf_addch(sb, j + 2 < m ? b64[v & 63] : '=');
		}
		rc |= ss_strbuf_adds(sb, "?=");
	}
	return rc ? SS_ENOMEM : 0;
}

const char *ss_patch_message_body(const char *message)
{
	const char *nl = strchr(message, '\n');

	if (!nl)
		return "";
	while (*nl == '\n')
		nl++;
	return nl;
}
