/*
 * diff.c - turn a libgit2 diff into files, hunks and lines (see diff.h).
 *
 * The same walk serves tree diffs of a repository and patches parsed from
 * mail with git_diff_from_buffer(), so both sources count lines exactly as
 * git does (git log --numstat).
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "source/diff.h"
#include "source/git.h"
#include "util/error.h"
#include "util/strbuf.h"

static ss_file_status map_status(git_delta_t s)
{
	switch (s) {
	case GIT_DELTA_ADDED: return SS_FILE_ADDED;
	case GIT_DELTA_DELETED: return SS_FILE_DELETED;
	case GIT_DELTA_RENAMED: return SS_FILE_RENAMED;
	case GIT_DELTA_COPIED: return SS_FILE_COPIED;
	case GIT_DELTA_TYPECHANGE: return SS_FILE_TYPECHANGE;
	default: return SS_FILE_MODIFIED;
	}
}

/* "@@ -1,2 +3,4 @@ int foo(void)\n" -> "int foo(void)" */
static const char *hunk_func(ss_arena *a, const char *header, size_t len)
{
	const char *p;
	size_t n;

	if (len < 4 || !(p = memmem(header + 2, len - 2, "@@", 2)))
		return "";
	p += 2;
	n = len - (size_t)(p - header);
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	return n ? ss_arena_strndup(a, p, n) : "";
}

static int add_patch(ss_commit *c, git_patch *patch, ss_file *f, size_t *budget)
{
	const git_diff_delta *d = git_patch_get_delta(patch);
	size_t h, nh = git_patch_num_hunks(patch);

	f->status = map_status(d->status);
	f->binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
	f->old_mode = d->old_file.mode;
	f->new_mode = d->new_file.mode;
	f->old_path = d->status == GIT_DELTA_ADDED ? NULL :
		ss_arena_strdup(c->arena, d->old_file.path);
	f->new_path = d->status == GIT_DELTA_DELETED ? NULL :
		ss_arena_strdup(c->arena, d->new_file.path);
	if ((d->status != GIT_DELTA_ADDED && !f->old_path) ||
	    (d->status != GIT_DELTA_DELETED && !f->new_path))
		return ss_error_code(SS_ENOMEM, "out of memory");
	if (f->binary || !nh)
		return 0;
	f->hunks = ss_arena_calloc(c->arena, nh, sizeof(*f->hunks));
	if (!f->hunks)
		return SS_ENOMEM;
	f->nhunks = nh;
	for (h = 0; h < nh; h++) {
		const git_diff_hunk *gh;
		ss_hunk *hk = &f->hunks[h];
		size_t l, nl, keep;

		if (git_patch_get_hunk(&gh, &nl, patch, h) < 0)
			return ss_error_set("cannot read hunk: %s", ss_git_error());
		hk->old_start = (uint32_t)gh->old_start;
		hk->old_lines = (uint32_t)gh->old_lines;
		hk->new_start = (uint32_t)gh->new_start;
		hk->new_lines = (uint32_t)gh->new_lines;
		hk->func = hunk_func(c->arena, gh->header, gh->header_len);
		if (!hk->func)
			return SS_ENOMEM;
		keep = nl;
		if (budget) {
			keep = nl < *budget ? nl : *budget;
			*budget -= keep;
			if (keep < nl)
				c->truncated = 1;
		}
		if (keep) {
			hk->lines = ss_arena_calloc(c->arena, keep, sizeof(*hk->lines));
			if (!hk->lines)
				return SS_ENOMEM;
		}
		for (l = 0; l < nl; l++) {
			const git_diff_line *gl;
			ss_line *ln;
			size_t len;

			if (git_patch_get_line_in_hunk(&gl, patch, h, l) < 0)
				return ss_error_set("cannot read diff line: %s",
						    ss_git_error());
			switch (gl->origin) {
			case GIT_DIFF_LINE_ADDITION:
				hk->added++;
				break;
			case GIT_DIFF_LINE_DELETION:
				hk->removed++;
				break;
			case GIT_DIFF_LINE_CONTEXT_EOFNL:
			case GIT_DIFF_LINE_ADD_EOFNL:
			case GIT_DIFF_LINE_DEL_EOFNL:
				/* "\ No newline at end of file" marks the previous line */
				if (hk->nlines)
					hk->lines[hk->nlines - 1].no_eol = 1;
				continue;
			default:
				break;
			}
			if (hk->nlines >= keep)
				continue;
			ln = &hk->lines[hk->nlines++];
			ln->origin = gl->origin == GIT_DIFF_LINE_ADDITION ? '+' :
				gl->origin == GIT_DIFF_LINE_DELETION ? '-' : ' ';
			/* a NUL inside a line: libgit2 copied only up to it */
			len = strnlen(gl->content, gl->content_len);
			if (len && gl->content[len - 1] == '\n')
				len--;
			ln->len = (uint32_t)len;
			ln->text = ss_arena_strndup(c->arena, gl->content, len);
			if (!ln->text)
				return SS_ENOMEM;
		}
		f->added += hk->added;
		f->removed += hk->removed;
	}
	return 0;
}

/*
 * Make room for n more files after c->nfiles, zeroed.  The array grows
 * geometrically: the per-file fallback adds files one at a time, and
 * growing by one (the arena cannot free) made memory quadratic in the
 * number of files.
 */
static int reserve_files(ss_commit *c, size_t n)
{
	size_t need = c->nfiles + n, cap;
	ss_file *files;

	if (need < c->nfiles)
		return SS_ENOMEM;
	if (need > c->files_cap) {
		cap = c->files_cap * 2 > need ? c->files_cap * 2 : need;
		if (cap < 8)
			cap = 8;
		files = ss_arena_grow(c->arena, c->files, c->nfiles, cap, sizeof(*files));
		if (!files)
			return SS_ENOMEM;
		c->files = files;
		c->files_cap = cap;
	}
	memset(c->files + c->nfiles, 0, n * sizeof(*c->files));
	return 0;
}

/* The file filled at c->files[c->nfiles] counts: in the list and, unless
 * binary, in the commit's line totals. */
static void file_done(ss_commit *c)
{
	const ss_file *f = &c->files[c->nfiles++];

	if (!f->binary) {
		c->added += f->added;
		c->removed += f->removed;
	}
}

int ss_commit_add_unreadable(ss_commit *c, const char *path, ss_file_status status,
			     uint32_t old_mode, uint32_t new_mode)
{
	ss_file *f;
	char *p;

	if (reserve_files(c, 1) || !(p = ss_arena_strdup(c->arena, path)))
		return SS_ENOMEM;
	f = &c->files[c->nfiles];
	f->status = status;
	f->binary = SS_FILE_UNREADABLE;
	f->old_mode = status == SS_FILE_ADDED ? 0 : old_mode;
	f->new_mode = status == SS_FILE_DELETED ? 0 : new_mode;
	f->old_path = status == SS_FILE_ADDED ? NULL : p;
	f->new_path = status == SS_FILE_DELETED ? NULL : p;
	file_done(c);
	return 0;
}

int ss_commit_add_blob_patch(ss_commit *c, git_patch *patch, ss_file_status status,
			     uint32_t old_mode, uint32_t new_mode, size_t *budget)
{
	ss_file *f;
	int rc;

	if (reserve_files(c, 1))
		return SS_ENOMEM;
	f = &c->files[c->nfiles];
	if ((rc = add_patch(c, patch, f, budget)))
		return rc;
	/* a blob patch knows no modes (libgit2 says 100644) and calls a
	 * pair of blobs "modified" or "unmodified" */
	f->status = status;
	f->old_mode = status == SS_FILE_ADDED ? 0 : old_mode;
	f->new_mode = status == SS_FILE_DELETED ? 0 : new_mode;
	if (status == SS_FILE_ADDED)
		f->old_path = NULL;
	if (status == SS_FILE_DELETED)
		f->new_path = NULL;
	file_done(c);
	return 0;
}

int ss_commit_add_diff(ss_commit *c, git_diff *diff, size_t max_lines)
{
	size_t i, n = git_diff_num_deltas(diff), budget = max_lines;

	if (!n)
		return 0;
	if (reserve_files(c, n))
		return SS_ENOMEM;
	for (i = 0; i < n; i++) {
		ss_file *f = &c->files[c->nfiles];
		git_patch *patch;
		int rc;

		if (git_patch_from_diff(&patch, diff, i) < 0)
			return ss_error_set("cannot diff: %s", ss_git_error());
		if (!patch) /* unmodified or ignored entries */
			continue;
		rc = add_patch(c, patch, f, max_lines ? &budget : NULL);
		git_patch_free(patch);
		if (rc)
			return rc;
		file_done(c);
	}
	return 0;
}

static int starts_with(const char *s, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - s) >= n && !memcmp(s, prefix, n);
}

/* Start of the line after p (or end). */
static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

/*
 * Does a file section repeat a "rename from/to" or "copy from/to" line?
 * libgit2 1.5 keeps the path of each such line and overwrites the
 * previous one without freeing it (patch_parse.c, parse_header_path): the
 * fuzzer found the leak.  Such a section goes to parse_header_only()
 * instead, where the last line wins.  The extra pass is cheap: under perf,
 * `stablesel log` over all of DPDK spends 0.66% of its CPU in
 * parse_buffer() itself (this scan inlined), 7.7% in libgit2.
 */
static int repeats_path_header(const char *text, size_t len)
{
	static const char *const keys[] = { "rename from ", "rename to ", "copy from ", "copy to " };
	const char *p = text, *end = text + len;
	unsigned seen = 0;

	for (; p < end; p = next_line(p, end)) {
		if (starts_with(p, end, "diff --git ")) {
			seen = 0;
			continue;
		}
		for (unsigned k = 0; k < 4; k++)
			if (starts_with(p, end, keys[k])) {
				if (seen & (1u << k))
					return 1;
				seen |= 1u << k;
			}
	}
	return 0;
}

static int parse_buffer(ss_commit *c, const char *text, size_t len, size_t max_lines)
{
	git_diff *diff;
	int rc;

	if (repeats_path_header(text, len) || git_diff_from_buffer(&diff, text, len) < 0)
		return SS_EINVALID;
	rc = ss_commit_add_diff(c, diff, max_lines);
	git_diff_free(diff);
	return rc;
}

/* Copy of a path from "diff --git a/X b/Y": the b/ side, or a/ side. */
static char *header_path(ss_commit *c, const char *line, const char *eol, int new_side)
{
	const char *p = line + strlen("diff --git ");
	const char *b = NULL, *q;

	/* paths without spaces are the common case; with spaces, the two
	 * halves are equal for a non-rename, so split in the middle */
	for (q = p; q + 3 < eol; q++)
		if (q[0] == ' ' && q[1] == 'b' && q[2] == '/') {
			b = q + 1;
			break;
		}
	if (!b || !starts_with(p, eol, "a/"))
		return NULL;
	if (new_side)
		return ss_arena_strndup(c->arena, b + 2, (size_t)(eol - b - 2));
	return ss_arena_strndup(c->arena, p + 2, (size_t)(b - 1 - p - 2));
}

/* An octal file mode in [p, end) (the text need not end in a NUL). */
static uint32_t read_mode(const char *p, const char *end)
{
	uint32_t v = 0;

	for (; p < end && *p >= '0' && *p <= '7' && v < 01000000; p++)
		v = v * 8 + (uint32_t)(*p - '0');
	return v;
}

/*
 * A header-only file section ("new file mode" with no ---/+++, pure
 * renames, mode changes) that git_diff_from_buffer rejected: read the
 * extended header lines by hand.
 */
static int parse_header_only(ss_commit *c, const char *s, const char *end)
{
	const char *eol = memchr(s, '\n', (size_t)(end - s));
	const char *p;
	ss_file *f;

	if (!eol)
		eol = end;
	if (reserve_files(c, 1))
		return SS_ENOMEM;
	f = &c->files[c->nfiles];
	f->status = SS_FILE_MODIFIED;
	f->old_path = header_path(c, s, eol, 0);
	f->new_path = header_path(c, s, eol, 1);
	if (!f->old_path || !f->new_path)
		return SS_EINVALID;
	for (p = next_line(s, end); p < end; p = next_line(p, end)) {
		const char *le = memchr(p, '\n', (size_t)(end - p));

		if (!le)
			le = end;
		if (starts_with(p, le, "new file mode ")) {
			f->status = SS_FILE_ADDED;
			f->new_mode = read_mode(p + 14, le);
			f->old_path = NULL;
		} else if (starts_with(p, le, "deleted file mode ")) {
			f->status = SS_FILE_DELETED;
			f->old_mode = read_mode(p + 18, le);
			f->new_path = NULL;
		} else if (starts_with(p, le, "old mode ")) {
			f->old_mode = read_mode(p + 9, le);
		} else if (starts_with(p, le, "new mode ")) {
			f->new_mode = read_mode(p + 9, le);
		} else if (starts_with(p, le, "rename from ")) {
			f->status = SS_FILE_RENAMED;
			f->old_path = ss_arena_strndup(c->arena, p + 12, (size_t)(le - p - 12));
		} else if (starts_with(p, le, "rename to ")) {
			f->new_path = ss_arena_strndup(c->arena, p + 10, (size_t)(le - p - 10));
		} else if (starts_with(p, le, "copy from ")) {
			f->status = SS_FILE_COPIED;
		} else if (starts_with(p, le, "Binary files ") || starts_with(p, le, "GIT binary patch")) {
			f->binary = 1;
		} else if (starts_with(p, le, "--- ") || starts_with(p, le, "@@ ")) {
			return SS_EINVALID; /* has content: not header-only */
		}
	}
	if (!f->old_path && !f->new_path) /* both "new file" and "deleted file" */
		return ss_error_code(SS_EINVALID, "file section is both new and deleted");
	c->nfiles++;
	return 0;
}

/* Start of the first "--- " or "@@ " line of a file section, or end. */
static const char *find_hunks(const char *s, const char *end)
{
	const char *p;

	for (p = next_line(s, end); p < end; p = next_line(p, end))
		if (starts_with(p, end, "--- ") || starts_with(p, end, "@@ "))
			return p;
	return end;
}

/*
 * Mail systems break lines longer than 998 bytes; the tip archive holds
 * such a patch, whose hunk then has more lines than its header says and
 * is refused.  Rewrite each "@@ -a,b +c,d @@" with the counts of the lines
 * actually present and parse again: the commit keeps its (damaged) lines
 * instead of being dropped.
 */
/* Read a decimal count at *pp, before end; at least one digit, saturating. */
static int read_count(const char **pp, const char *end, unsigned long *out)
{
	const char *p = *pp;
	unsigned long v = 0;

	if (p >= end || !isdigit((unsigned char)*p))
		return -1;
	for (; p < end && isdigit((unsigned char)*p); p++)
		v = v > (ULONG_MAX - 9) / 10 ? ULONG_MAX : v * 10 + (unsigned long)(*p - '0');
	*pp = p;
	*out = v;
	return 0;
}

static int parse_recounted(ss_commit *c, const char *s, const char *end, size_t max_lines)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	const char *p = s;
	int rc;

	while (p < end) {
		const char *le = next_line(p, end), *q;
		unsigned long a, cc, skip;
		size_t nold = 0, nnew = 0;
		const char *tail;

		if (!starts_with(p, end, "@@ -")) {
			ss_strbuf_add(&sb, p, (size_t)(le - p));
			p = le;
			continue;
		}
		/* "@@ -a[,b] +c[,d]": bounded by the line, which need not end
		 * in a NUL (so no strtoul) */
		q = p + 4;
		if (read_count(&q, le, &a) ||
		    (q < le && *q == ',' && (q++, read_count(&q, le, &skip))) ||
		    le - q < 2 || q[0] != ' ' || q[1] != '+' ||
		    (q += 2, read_count(&q, le, &cc)) ||
		    (q < le && *q == ',' && (q++, read_count(&q, le, &skip)))) {
			ss_strbuf_release(&sb);
			return SS_EINVALID;
		}
		tail = q;
		for (q = le; q < end && !starts_with(q, end, "@@ "); q = next_line(q, end)) {
			if (*q == '-')
				nold++;
			else if (*q == '+')
				nnew++;
			else if (*q != '\\') {
				nold++;
				nnew++;
			}
		}
		ss_strbuf_addf(&sb, "@@ -%lu,%zu +%lu,%zu", a, nold, cc, nnew);
		ss_strbuf_add(&sb, tail, (size_t)(le - tail));
		ss_strbuf_add(&sb, le, (size_t)(q - le));
		p = q;
	}
	rc = parse_buffer(c, sb.buf, sb.len, max_lines);
	ss_strbuf_release(&sb);
	return rc;
}

int ss_commit_parse_patch(ss_commit *c, const char *text, size_t len, size_t max_lines)
{
	const char *end = text + len, *start = NULL, *p, *s;
	size_t nfiles0 = c->nfiles, added0 = c->added, removed0 = c->removed;
	int rc;

	for (p = text; p < end; p = next_line(p, end))
		if (starts_with(p, end, "diff --git ")) {
			start = p;
			break;
		}
	if (!start)
		return 0; /* no diff: an empty commit */
	/* drop the format-patch signature ("-- \n2.34.1") and trailing blank
	 * lines: libgit2 1.5 rejects a last pure rename or mode change that a
	 * blank line follows */
	for (p = start; p < end; p = next_line(p, end))
		if (starts_with(p, end, "-- \n") && end - p < 64) {
			end = p;
			break;
		}
	while (end - start >= 2 && end[-1] == '\n' && end[-2] == '\n')
		end--;

	rc = parse_buffer(c, start, (size_t)(end - start), max_lines);
	if (rc != SS_EINVALID)
		return rc;

	/* the whole patch was refused: parse file by file, reading the files
	 * libgit2 rejects (a new empty file in the middle) by hand */
	c->nfiles = nfiles0;
	c->added = added0;
	c->removed = removed0;
	for (s = start; s < end;) {
		const char *e = next_line(s, end);

		while (e < end && !starts_with(e, end, "diff --git "))
			e = next_line(e, end);
		rc = parse_buffer(c, s, (size_t)(e - s), max_lines);
		if (rc == SS_EINVALID)
			rc = parse_header_only(c, s, e);
		if (rc == SS_EINVALID)
			rc = parse_recounted(c, s, e, max_lines);
		if (rc == SS_EINVALID) {
			/* keep the commit and the file's name; its lines are lost */
			rc = parse_header_only(c, s, find_hunks(s, e));
			c->truncated = 1;
		}
		if (rc == SS_EINVALID) {
			const char *eol = memchr(s, '\n', (size_t)(e - s));

			return ss_error_code(SS_EINVALID, "cannot parse diff of '%.*s': %s",
					     (int)((eol ? eol : e) - s - 11), s + 11,
					     ss_git_error());
		}
		if (rc)
			return rc;
		s = e;
	}
	return 0;
}
