/*
 * check_apply.c - a commit's hunks placed on a stable branch's blobs as
 * git apply places them (see check.h), one commit at a time or a series
 * applied in memory one after another.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "check/check_impl.h"
#include "source/git.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

const char *ss_apply_status_name(ss_apply_status s)
{
	switch (s) {
	case SS_APPLY_CLEAN:
		return "applies";
	case SS_APPLY_CONFLICT:
		return "conflict";
	case SS_APPLY_MISSING:
		return "missing";
	case SS_APPLY_EXISTS:
		return "exists";
	case SS_APPLY_UNKNOWN:
		break;
	}
	return "unknown";
}

/* Is path a blob in the branch's tree? */
int ss_check_has_path(ss_check *ck, const char *path)
{
	git_tree_entry *e = NULL;
	int found = git_tree_entry_bypath(&e, ck->tree, path) == 0;

	git_tree_entry_free(e);
	return found;
}

/* A blob's lines: starts and lengths without the newline. */
struct lines {
	const char **p;
	size_t *len;
	size_t n;
};

static int split_lines(struct lines *l, const char *buf, size_t size)
{
	size_t cap = 1;

	for (size_t i = 0; i < size; i++)
		cap += buf[i] == '\n';
	l->p = malloc(cap * sizeof(*l->p));
	l->len = malloc(cap * sizeof(*l->len));
	l->n = 0;
	if (!l->p || !l->len)
		return SS_ENOMEM;
	for (size_t i = 0; i < size;) {
		const char *nl = memchr(buf + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - buf) : size;

		l->p[l->n] = buf + i;
		l->len[l->n++] = end - i;
		i = end + 1;
	}
	return 0;
}

/* Do the preimage lines of h (context and removed) stand at line at? */
static int hunk_fits(const struct lines *l, const ss_hunk *h, size_t at)
{
	size_t k = at;

	for (size_t i = 0; i < h->nlines; i++) {
		const ss_line *ln = &h->lines[i];

		if (ln->origin == '+')
			continue;
		if (k >= l->n || l->len[k] != ln->len || memcmp(l->p[k], ln->text, ln->len))
			return 0;
		k++;
	}
	return 1;
}

/*
 * Apply f's hunks to lines as "git apply --check" does (git's apply.c,
 * apply_one_fragment and find_pos, without fuzz or whitespace options):
 * each hunk's preimage must match exactly, at its line shifted by the
 * offset the hunks before it needed, or at the nearest position after the
 * previous hunk where it matches (lines added or removed earlier in the
 * file by other commits only move a hunk), forward first; a hunk starting
 * at line 1 must match at the start of the file, and one without trailing
 * context at its end.  0 when all fit, else the 1-based number of the
 * first hunk that does not.
 */
static int fit_hunks(const struct lines *l, const ss_file *f, size_t *pos)
{
	size_t from = 0;
	long offset = 0;

	for (size_t i = 0; i < f->nhunks; i++) {
		const ss_hunk *h = &f->hunks[i];
		size_t pre = 0, want;
		long best = -1;

		size_t trailing = 0;
		int at_start, at_end;

		for (size_t k = 0; k < h->nlines; k++)
			pre += h->lines[k].origin != '+';
		while (trailing < h->nlines && h->lines[h->nlines - 1 - trailing].origin == ' ')
			trailing++;
		/* as git apply: a hunk from line 1 must match at the start, one
		 * without trailing context at the end of the file */
		at_start = h->old_start <= 1;
		at_end = trailing == 0;
		/* old_start is the line before the hunk when it removes nothing
		 * and has no context (old_lines 0) */
		want = h->old_lines ? h->old_start - 1 : h->old_start;
		want = (long)want + offset < (long)from ? from : (size_t)((long)want + offset);
		if (at_start || at_end) {
			size_t p = at_start ? 0 : l->n >= pre ? l->n - pre : 0;

			if (p >= from && p + pre <= l->n && (!at_end || p + pre == l->n) &&
			    (!pre || hunk_fits(l, h, p)))
				best = (long)p;
		} else if (pre == 0) {
			best = (long)(want <= l->n ? want : l->n);
		} else if (pre <= l->n) {
			size_t last = l->n - pre;   /* the last line a hunk can start at */

			/* nearest to want first, later lines before earlier ones */
			for (size_t d = 0; best < 0; d++) {
				int hi = want + d <= last;
				int lo_left = d <= want && want - d >= from;

				if (!hi && !lo_left)
					break;
				if (hi && hunk_fits(l, h, want + d))
					best = (long)(want + d);
				else if (d && lo_left && want - d <= last && hunk_fits(l, h, want - d))
					best = (long)(want - d);
			}
		}
		if (best < 0)
			return (int)i + 1;
		if (pos)
			pos[i] = (size_t)best;
		offset = best - (long)(h->old_lines ? h->old_start - 1 : h->old_start);
		from = (size_t)best + pre;
	}
	return 0;
}

/*
 * Does c's patch apply to the branch's tree?  libgit2's git_apply_to_tree
 * was tried first: it reads the whole tree into an index for every commit
 * (9 ms a commit on a 3,000-file tree) and, unlike git apply, does not
 * look for a hunk away from its line, so hunks that other commits had only
 * moved were reported as conflicts (37 of 40 sampled "conflicts" applied
 * with git apply --check).  Written by hand instead: only the blobs the
 * patch touches are read, and each hunk is placed as git apply places it.
 */
int ss_check_apply_tree(ss_check_result *out, ss_check *ck, const ss_commit *c)
{
	int rc = 0;

	out->apply = SS_APPLY_UNKNOWN;
	out->path[0] = '\0';
	out->hunk = 0;
	if (c->truncated || !c->nfiles)
		return 0;
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].binary) {
			snprintf(out->path, sizeof(out->path), "%s", ss_file_path(&c->files[i]));
			return 0;
		}
	for (size_t i = 0; i < c->nfiles && !rc; i++) {
		const ss_file *f = &c->files[i];
		git_tree_entry *e = NULL;
		git_blob *blob = NULL;
		struct lines l = { NULL, NULL, 0 };
		int bad;

		if (f->status == SS_FILE_ADDED) {
			if (!ss_check_has_path(ck, f->new_path))
				continue;
			out->apply = SS_APPLY_EXISTS;
			snprintf(out->path, sizeof(out->path), "%s", f->new_path);
			return 0;
		}
		if (git_tree_entry_bypath(&e, ck->tree, f->old_path) < 0 ||
		    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
			git_tree_entry_free(e);
			out->apply = SS_APPLY_MISSING;
			snprintf(out->path, sizeof(out->path), "%s", f->old_path);
			return 0;
		}
		if (git_blob_lookup(&blob, ck->repo, git_tree_entry_id(e)) < 0) {
			rc = ss_error_code(SS_EINVALID, "cannot read '%s' in the branch: %s",
					   f->old_path, ss_git_error());
		} else if (!(rc = split_lines(&l, git_blob_rawcontent(blob),
					      (size_t)git_blob_rawsize(blob)))) {
			if ((bad = fit_hunks(&l, f, NULL))) {
				out->apply = SS_APPLY_CONFLICT;
				out->hunk = bad;
				out->hunk_start = (int)f->hunks[bad - 1].old_start;
				out->hunk_lines = (int)f->hunks[bad - 1].old_lines;
				snprintf(out->path, sizeof(out->path), "%s", f->old_path);
			}
		} else {
			rc = ss_error_code(SS_ENOMEM, "out of memory for '%s'", f->old_path);
		}
		free(l.p);
		free(l.len);
		git_blob_free(blob);
		git_tree_entry_free(e);
		if (out->apply == SS_APPLY_CONFLICT) {
			/* a file the branch lacks (or has already) outweighs a
			 * conflict: what must come first cannot be one hunk's
			 * blame then */
			for (size_t j = i + 1; j < c->nfiles && !rc; j++) {
				const ss_file *g = &c->files[j];
				int there = ss_check_has_path(ck, g->status == SS_FILE_ADDED ? g->new_path : g->old_path);

				if (g->status == SS_FILE_ADDED ? there : !there) {
					out->apply = g->status == SS_FILE_ADDED ? SS_APPLY_EXISTS : SS_APPLY_MISSING;
					snprintf(out->path, sizeof(out->path), "%s",
						 g->status == SS_FILE_ADDED ? g->new_path : g->old_path);
					out->hunk = out->hunk_start = out->hunk_lines = 0;
					break;
				}
			}
			return rc;
		}
	}
	if (!rc)
		out->apply = SS_APPLY_CLEAN;
	return rc;
}


/* ------------------------------------------------------------------ */
/* A series applied in memory, one commit after another. */

struct overlay_file {
	char *path;
	char *buf;           /* the content after the series so far */
	size_t len;
	int present;         /* 0: deleted by the series */
};

struct ss_check_series {
	ss_check *ck;
	struct overlay_file *f;
	size_t n, cap;
};

int ss_check_series_new(ss_check_series **out, ss_check *ck)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return ss_error_code(SS_ENOMEM, "out of memory for a series");
	(*out)->ck = ck;
	return 0;
}

static void overlay_release(struct overlay_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].path);
		free(f[i].buf);
	}
}

void ss_check_series_free(ss_check_series *s)
{
	if (!s)
		return;
	overlay_release(s->f, s->n);
	free(s->f);
	free(s);
}

/* The content of path after the series so far: 1 and a malloc'd copy, 0
 * when it is not there, < 0 on error. */
static int series_read(ss_check_series *s, const char *path, char **buf, size_t *len)
{
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int rc;

	*buf = NULL;
	*len = 0;
	for (size_t i = s->n; i-- > 0;)
		if (!strcmp(s->f[i].path, path)) {
			if (!s->f[i].present)
				return 0;
			*buf = malloc(s->f[i].len + 1);
			if (!*buf)
				return SS_ENOMEM;
			memcpy(*buf, s->f[i].buf, s->f[i].len);
			*len = s->f[i].len;
			return 1;
		}
	if (git_tree_entry_bypath(&e, s->ck->tree, path) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		git_tree_entry_free(e);
		return 0;
	}
	rc = git_blob_lookup(&blob, s->ck->repo, git_tree_entry_id(e));
	git_tree_entry_free(e);
	if (rc < 0)
		return ss_error_code(SS_EINVALID, "cannot read '%s' in the branch: %s", path,
				     ss_git_error());
	*len = (size_t)git_blob_rawsize(blob);
	*buf = malloc(*len + 1);
	if (*buf)
		memcpy(*buf, git_blob_rawcontent(blob), *len);
	git_blob_free(blob);
	return *buf ? 1 : SS_ENOMEM;
}

/* The file after f's hunks, placed at pos: lines before, between and
 * after the hunks kept, each hunk's preimage replaced by its postimage. */
static int rebuild(ss_strbuf *sb, const struct lines *l, const char *buf, size_t size,
		   const ss_file *f, const size_t *pos)
{
	int eol_at_end = size && buf[size - 1] == '\n';
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < f->nhunks; i++) {
		const ss_hunk *h = &f->hunks[i];

		for (; k < pos[i] && k < l->n; k++) {
			rc |= ss_strbuf_add(sb, l->p[k], l->len[k]);
			if (k + 1 < l->n || eol_at_end)
				rc |= ss_strbuf_addch(sb, '\n');
		}
		for (size_t j = 0; j < h->nlines; j++) {
			const ss_line *ln = &h->lines[j];

			if (ln->origin != '+') {
				k++;
				if (ln->origin == '-')
					continue;
			}
			rc |= ss_strbuf_add(sb, ln->text, ln->len);
			if (!ln->no_eol)
				rc |= ss_strbuf_addch(sb, '\n');
		}
	}
	for (; k < l->n; k++) {
		rc |= ss_strbuf_add(sb, l->p[k], l->len[k]);
		if (k + 1 < l->n || eol_at_end)
			rc |= ss_strbuf_addch(sb, '\n');
	}
	return rc ? SS_ENOMEM : 0;
}

/* Record path's new content (NULL: deleted) among the pending changes. */
static int pend(struct overlay_file **p, size_t *n, size_t *cap, const char *path, ss_strbuf *sb)
{
	struct overlay_file *o;

	if (SS_GROW(*p, *n + 1, *cap))
		return SS_ENOMEM;
	o = &(*p)[*n];
	memset(o, 0, sizeof(*o));
	if (!(o->path = strdup(path)))
		return SS_ENOMEM;
	(*n)++;
	if (!sb)
		return 0;
	o->present = 1;
	o->len = sb->len;
	o->buf = malloc(sb->len + 1);
	if (!o->buf)
		return SS_ENOMEM;
	memcpy(o->buf, sb->buf, sb->len);
	return 0;
}

int ss_check_series_apply(ss_check_result *out, ss_check_series *s, const ss_commit *c)
{
	struct overlay_file *p = NULL;
	size_t np = 0, pcap = 0;
	ss_strbuf sb = SS_STRBUF_INIT;
	int rc = 0, failed = 0;

	memset(out, 0, sizeof(*out));
	out->apply = SS_APPLY_UNKNOWN;
	if (c->truncated || !c->nfiles)
		return 1;
	out->apply = SS_APPLY_CLEAN;
	for (size_t i = 0; i < c->nfiles && !rc && !failed; i++) {
		const ss_file *f = &c->files[i];
		const char *from = f->status == SS_FILE_ADDED ? f->new_path : f->old_path;
		struct lines l = { NULL, NULL, 0 };
		size_t *pos = NULL;
		char *buf = NULL;
		size_t len;
		int there, bad;

		snprintf(out->path, sizeof(out->path), "%s", from ? from : "");
		if (f->binary || !from) {
			out->apply = SS_APPLY_UNKNOWN;
			failed = 1;
			break;
		}
		if ((there = series_read(s, from, &buf, &len)) < 0) {
			rc = there;
			break;
		}
		if (f->status == SS_FILE_ADDED ? there : !there) {
			out->apply = f->status == SS_FILE_ADDED ? SS_APPLY_EXISTS : SS_APPLY_MISSING;
			failed = 1;
		} else if (f->status == SS_FILE_DELETED) {
			rc = pend(&p, &np, &pcap, from, NULL);
		} else if (!(pos = calloc(f->nhunks + 1, sizeof(*pos))) ||
			   split_lines(&l, buf ? buf : "", len)) {
			rc = SS_ENOMEM;
		} else if ((bad = fit_hunks(&l, f, pos))) {
			out->apply = SS_APPLY_CONFLICT;
			out->hunk = bad;
			failed = 1;
		} else {
			ss_strbuf_reset(&sb);
			rc = rebuild(&sb, &l, buf ? buf : "", len, f, pos);
			if (!rc && f->status == SS_FILE_RENAMED && strcmp(f->old_path, f->new_path))
				rc = pend(&p, &np, &pcap, f->old_path, NULL);
			if (!rc)
				rc = pend(&p, &np, &pcap, f->new_path ? f->new_path : from, &sb);
		}
		free(l.p);
		free(l.len);
		free(pos);
		free(buf);
	}
	ss_strbuf_release(&sb);
	if (!rc && !failed) {
		/* every file fits: the commit joins the series */
		if (np && SS_GROW(s->f, s->n + np, s->cap)) {
			rc = SS_ENOMEM;
		} else {
			if (np)
				memcpy(s->f + s->n, p, np * sizeof(*p));
			s->n += np;
			np = 0;
			out->path[0] = '\0';
		}
	}
	overlay_release(p, np);
	free(p);
	if (rc)
		return ss_error_code(rc, "out of memory applying %.12s in memory", c->id);
	return failed;
}

int ss_check_series_file(char **out, size_t *len, ss_check_series *s, const char *path)
{
	int rc = series_read(s, path, out, len);

	if (rc == 1)
		(*out)[*len] = '\0';
	return rc;
}
