/*
 * testcommit.h - hand-made commits for the feature and model tests, built
 * the way a source builds them (arena strings, one hunk per file), so that
 * a test names exactly the lines, paths and people it needs.
 */
#ifndef SS_TESTCOMMIT_H
#define SS_TESTCOMMIT_H

#include <stdio.h>
#include <string.h>

#include "commit/commit.h"
#include "util/arena.h"

typedef struct {
	const char *path;
	const char *func;           /* hunk function context, or NULL */
	const char *const *lines;   /* "+text", "-text", " text"; NULL-terminated */
	ss_file_status status;
} tc_file;

static ss_commit *tc_commit(const char *id, const char *author_email, long long time,
				   const char *msg, const tc_file *files, size_t nfiles)
{
	ss_commit *c = ss_commit_new();
	size_t i;

	if (!c)
		return NULL;
	snprintf(c->id, sizeof(c->id), "%s", id);
	c->author.name = "Author";
	c->author.email = ss_arena_strdup(c->arena, author_email);
	c->author.time = time;
	c->committer = c->author;
	c->committer.email = "maintainer@example.org";
	if (ss_commit_set_message(c, msg, strlen(msg))) {
		ss_commit_free(c);
		return NULL;
	}
	c->files = ss_arena_calloc(c->arena, nfiles ? nfiles : 1, sizeof(*c->files));
	c->nfiles = nfiles;
	for (i = 0; i < nfiles; i++) {
		ss_file *f = &c->files[i];
		ss_hunk *h;
		size_t n = 0, k;

		while (files[i].lines && files[i].lines[n])
			n++;
		f->status = files[i].status;
		f->old_path = f->status == SS_FILE_ADDED ? NULL : ss_arena_strdup(c->arena, files[i].path);
		f->new_path = f->status == SS_FILE_DELETED ? NULL : ss_arena_strdup(c->arena, files[i].path);
		f->hunks = h = ss_arena_calloc(c->arena, 1, sizeof(*h));
		f->nhunks = 1;
		h->func = files[i].func ? files[i].func : "";
		h->lines = ss_arena_calloc(c->arena, n ? n : 1, sizeof(*h->lines));
		h->nlines = n;
		for (k = 0; k < n; k++) {
			const char *t = files[i].lines[k];

			h->lines[k].origin = t[0];
			h->lines[k].text = t + 1;
			h->lines[k].len = (uint32_t)strlen(t + 1);
			if (t[0] == '+')
				h->added++;
			else if (t[0] == '-')
				h->removed++;
			/* the header's counts, as a parsed diff has them */
			h->old_lines += t[0] != '+';
			h->new_lines += t[0] != '-';
		}
		f->added = h->added;
		f->removed = h->removed;
		c->added += f->added;
		c->removed += f->removed;
	}
	return c;
}

#endif
