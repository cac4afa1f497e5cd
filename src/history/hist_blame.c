/*
 * hist_blame.c - the commits that introduced what a fix changes (SZZ).
 *
 * A fix without Fixes: still says where the bug was: the lines it removes
 * or rewrites were last touched by the commit that (probably) put the bug
 * there.  Each change block of the fix's diff is blamed at the fix's first
 * parent: its removed lines, or, for a block that only adds, the nearest
 * meaningful context line above and below (the code the addition guards;
 * weaker evidence, half weight).  Blank lines, lone braces and comment
 * lines say nothing about a bug and are skipped.  One git_blame_file() per
 * file, limited to the span of the lines asked for.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "history/impl.h"
#include "util/error.h"
#include "util/grow.h"

struct want {
	size_t line;       /* 1-based, in the parent's version of the file */
	double weight;
};

struct cand {
	git_oid id;
	size_t lines;
	double weight;
	int64_t time;
};

struct blame_state {
	struct want *want;
	size_t nwant, capwant;
	struct cand *cand;
	size_t ncand, capcand;
};

int hist_line_trivial(const ss_line *l)
{
	const char *p = l->text, *end = l->text + l->len;

	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p == end)
		return 1;
	if (!strncmp(p, "//", 2) || !strncmp(p, "/*", 2) || !strncmp(p, "*/", 2) ||
	    (*p == '*' && (end - p == 1 || p[1] == ' ')))
		return 1;
	for (; p < end; p++)
		if (isalnum((unsigned char)*p))
			return 0;
	return 1;
}

static int want_add(struct blame_state *s, size_t line, double weight)
{
	size_t i;

	for (i = 0; i < s->nwant; i++)
		if (s->want[i].line == line) {
			if (weight > s->want[i].weight)
				s->want[i].weight = weight;
			return 0;
		}
	if (SS_GROW(s->want, s->nwant + 1, s->capwant))
		return SS_ENOMEM;
	s->want[s->nwant].line = line;
	s->want[s->nwant].weight = weight;
	s->nwant++;
	return 0;
}

int hist_hunk_evidence(const ss_hunk *h, int (*fn)(void *ud, size_t j, double weight),
		       void *ud)
{
	size_t i = 0, j, k;
	int rc = 0;

	while (i < h->nlines && !rc) {
		size_t end;
		int removes = 0;

		if (h->lines[i].origin == ' ') {
			i++;
			continue;
		}
		for (end = i; end < h->nlines && h->lines[end].origin != ' '; end++)
			removes |= h->lines[end].origin == '-';
		if (removes) {
			for (j = i; j < end && !rc; j++)
				if (h->lines[j].origin == '-' && !hist_line_trivial(&h->lines[j]))
					rc = fn(ud, j, 1.0);
		} else {
			for (k = i; k-- > 0;)
				if (h->lines[k].origin == ' ' && !hist_line_trivial(&h->lines[k])) {
					rc = fn(ud, k, 0.5);
					break;
				}
			for (k = end; k < h->nlines && !rc; k++)
				if (h->lines[k].origin == ' ' && !hist_line_trivial(&h->lines[k])) {
					rc = fn(ud, k, 0.5);
					break;
				}
		}
		i = end;
	}
	return rc;
}

struct hunk_want {
	struct blame_state *s;
	const size_t *old;
};

static int want_line(void *ud, size_t j, double weight)
{
	struct hunk_want *hw = ud;

	return want_add(hw->s, hw->old[j], weight);
}

/* The lines of one hunk to blame (hist_hunk_evidence()), by their line
 * numbers in the parent. */
static int hunk_lines(struct blame_state *s, const ss_hunk *h)
{
	size_t *old = NULL, j, line = h->old_start;
	struct hunk_want hw;
	int rc;

	if (!h->nlines)
		return 0;
	old = malloc(h->nlines * sizeof(*old));
	if (!old)
		return ss_error_code(SS_ENOMEM, "out of memory");
	for (j = 0; j < h->nlines; j++)
		old[j] = h->lines[j].origin == '+' ? 0 : line++;
	hw.s = s;
	hw.old = old;
	rc = hist_hunk_evidence(h, want_line, &hw);
	free(old);
	return rc;
}

static int cand_add(struct blame_state *s, const git_oid *id, double weight)
{
	size_t i;

	for (i = 0; i < s->ncand; i++)
		if (git_oid_equal(&s->cand[i].id, id)) {
			s->cand[i].lines++;
			s->cand[i].weight += weight;
			return 0;
		}
	if (SS_GROW(s->cand, s->ncand + 1, s->capcand))
		return SS_ENOMEM;
	memset(&s->cand[s->ncand], 0, sizeof(s->cand[0]));
	git_oid_cpy(&s->cand[s->ncand].id, id);
	s->cand[s->ncand].lines = 1;
	s->cand[s->ncand].weight = weight;
	s->ncand++;
	return 0;
}

/* Blame the wanted lines of path at parent. */
static int blame_file(struct blame_state *s, git_repository *repo, const git_oid *parent,
		      const char *path)
{
	git_blame_options opts;
	git_blame *blame = NULL;
	size_t i, lo = SIZE_MAX, hi = 0;
	int err, rc = 0;

	for (i = 0; i < s->nwant; i++) {
		if (s->want[i].line < lo)
			lo = s->want[i].line;
		if (s->want[i].line > hi)
			hi = s->want[i].line;
	}
	if (!s->nwant || !lo)
		return 0;
	git_blame_options_init(&opts, GIT_BLAME_OPTIONS_VERSION);
	git_oid_cpy(&opts.newest_commit, parent);
	opts.min_line = lo;
	opts.max_line = hi;
	err = git_blame_file(&blame, repo, path, &opts);
	if (err == GIT_ENOTFOUND)
		return 0;  /* not at the parent under that name */
	if (err < 0)
		return ss_error_set("cannot blame '%s': %s", path, ss_git_error());
	for (i = 0; i < s->nwant && !rc; i++) {
		const git_blame_hunk *bh = git_blame_get_hunk_byline(blame, s->want[i].line);

		if (bh && !git_oid_is_zero(&bh->final_commit_id))
			rc = cand_add(s, &bh->final_commit_id, s->want[i].weight);
	}
	git_blame_free(blame);
	return rc;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return git_oid_cmp(&x->id, &y->id);
}

int ss_blame_introducers(ss_blame_candidate *out, size_t max, size_t *n, ss_histidx *h,
			 const ss_commit *fix)
{
	git_repository *repo = hist_repo(h);
	struct blame_state s;
	git_commit *commit = NULL, *c;
	git_oid oid, parent;
	double total = 0;
	size_t f, k, i;
	int rc = 0;

	*n = 0;
	memset(&s, 0, sizeof(s));
	if (!repo)
		return ss_error_code(SS_EINVALID, "blaming %s needs a repository", fix->id);
	if (git_oid_fromstr(&oid, fix->id) < 0 || git_commit_lookup(&commit, repo, &oid) < 0)
		return ss_error_code(SS_ENOTFOUND, "commit %s is not in the repository", fix->id);
	if (!git_commit_parentcount(commit))
		goto out_free;
	git_oid_cpy(&parent, git_commit_parent_id(commit, 0));
	for (f = 0; f < fix->nfiles && !rc; f++) {
		const ss_file *file = &fix->files[f];

		if (file->binary || !file->old_path || file->status == SS_FILE_ADDED)
			continue;
		s.nwant = 0;
		for (k = 0; k < file->nhunks && !rc; k++)
			rc = hunk_lines(&s, &file->hunks[k]);
		if (!rc)
			rc = blame_file(&s, repo, &parent, file->old_path);
	}
	if (rc)
		goto out_free;
	for (i = 0; i < s.ncand; i++) {
		if (git_commit_lookup(&c, repo, &s.cand[i].id) < 0) {
			rc = ss_error_set("cannot read commit %s: %s", git_oid_tostr_s(&s.cand[i].id),
					  ss_git_error());
			goto out_free;
		}
		s.cand[i].time = git_commit_time(c);
		git_commit_free(c);
		total += s.cand[i].weight;
	}
	if (s.ncand)
		qsort(s.cand, s.ncand, sizeof(*s.cand), cand_cmp);
	for (i = 0; i < s.ncand && i < max; i++) {
		git_oid_tostr(out[i].id, sizeof(out[i].id), &s.cand[i].id);
		out[i].time = s.cand[i].time;
		out[i].lines = s.cand[i].lines;
		out[i].weight = s.cand[i].weight;
		out[i].confidence = total > 0 ? s.cand[i].weight / total : 0;
	}
	*n = i;
out_free:
	git_commit_free(commit);
	free(s.want);
	free(s.cand);
	return rc;
}
