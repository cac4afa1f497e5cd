/*
 * carried.c - what a stable branch carries (carried.h): two maps, upstream
 * sha and patch key to the branch commit, filled from the branch's own
 * commits or by a caller that knows them (a project index).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "commit/patchid.h"
#include "labels/carried.h"
#include "labels/upstream.h"
#include "source/git.h"
#include "source/git_repo.h"
#include "source/source.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"
#include "util/u64map.h"

/* An upstream commit a backport line names, and the branch commit. */
struct line {
	char sha[41];
	size_t id;            /* index into ids */
};

struct ss_carried {
	ss_upstream *up;
	ss_u64map by_sha;     /* first 64 bits of an upstream sha -> lines index */
	ss_u64map by_patch;   /* patch key -> ids index */
	char (*ids)[41];      /* branch commits, in the order recorded */
	struct line *lines;
	size_t nids, idcap, nlines, linecap;
	size_t style[SS_BACKPORT_CHERRY + 1];
};

int ss_carried_new(ss_carried **out)
{
	ss_carried *cr = calloc(1, sizeof(*cr));
	int rc;

	*out = NULL;
	if (!cr)
		return ss_error_code(SS_ENOMEM, "out of memory for a branch's backports");
	if ((rc = ss_upstream_new(&cr->up, NULL, 0))) {
		free(cr);
		return rc;
	}
	*out = cr;
	return 0;
}

void ss_carried_free(ss_carried *cr)
{
	if (!cr)
		return;
	ss_upstream_free(cr->up);
	ss_u64map_release(&cr->by_sha);
	ss_u64map_release(&cr->by_patch);
	free(cr->ids);
	free(cr->lines);
	free(cr);
}

/* The index of id in cr->ids, adding it when it is not the last one. */
static int id_index(ss_carried *cr, const char *id, size_t *out)
{
	if (cr->nids && !strcmp(cr->ids[cr->nids - 1], id)) {
		*out = cr->nids - 1;
		return 0;
	}
	if (SS_GROW(cr->ids, cr->nids + 1, cr->idcap))
		return SS_ENOMEM;
	snprintf(cr->ids[cr->nids], 41, "%s", id);
	*out = cr->nids++;
	return 0;
}

int ss_carried_add(ss_carried *cr, const char *upstream, uint64_t patch_key, const char *id)
{
	size_t idx, found;
	int rc;

	if ((rc = id_index(cr, id, &idx)))
		return rc;
	if (upstream && strlen(upstream) == 40) {
		/* the map keys the sha's first 64 bits; a collision of those
		 * keeps the first line (DPDK's history has none) */
		if (SS_GROW(cr->lines, cr->nlines + 1, cr->linecap))
			return SS_ENOMEM;
		rc = ss_u64map_find_or_put(&cr->by_sha, ss_hexid_key(upstream), cr->nlines, &found);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			struct line *l = &cr->lines[cr->nlines++];

			for (int i = 0; i < 40; i++)
				l->sha[i] = (char)tolower((unsigned char)upstream[i]);
			l->sha[40] = '\0';
			l->id = idx;
		}
	}
	if (patch_key && (rc = ss_u64map_find_or_put(&cr->by_patch, patch_key, idx, &found)) < 0)
		return rc;
	return 0;
}

/* Which style c's first backport line has, or -1. */
static int line_style(const char *msg)
{
	static const struct {
		const char *text;
		int style;
	} styles[] = {
		{ "[ upstream commit ", SS_BACKPORT_DPDK },
		{ "[ Upstream commit ", SS_BACKPORT_UPSTREAM },
		{ "(cherry picked from commit ", SS_BACKPORT_CHERRY },
	};
	const char *p;

	for (size_t i = 0; i < sizeof(styles) / sizeof(styles[0]); i++)
		if (strstr(msg, styles[i].text))
			return styles[i].style;
	/* "commit <sha> upstream." at the start of a line */
	for (p = msg; (p = strstr(p, "commit ")); p++)
		if ((p == msg || p[-1] == '\n') && strlen(p) > 47 && !strncmp(p + 47, " upstream", 9))
			return SS_BACKPORT_LINUX;
	return -1;
}

/* Count the style of msg's backport line, if it has one. */
static void learn_style(ss_carried *cr, const char *msg)
{
	int st;

	if (msg && (st = line_style(msg)) >= 0)
		cr->style[st]++;
}

int ss_carried_add_commit(ss_carried *cr, const ss_commit *c)
{
	char shas[16][41];
	size_t n = ss_upstream_find(cr->up, c->message ? c->message : "", shas, 16);
	uint64_t key = ss_commit_patch_key(c);
	int rc = 0;

	learn_style(cr, c->message);
	if (!n)
		return ss_carried_add(cr, NULL, key, c->id);
	for (size_t i = 0; i < n && !rc; i++)
		rc = ss_carried_add(cr, shas[i], i ? 0 : key, c->id);
	return rc;
}

/* A commit of the branch, with its diff / its message only. */
static int walk_commit(ss_commit *c, void *ud)
{
	int rc = ss_carried_add_commit(ud, c);

	ss_commit_free(c);
	return rc;
}

static int walk_style(ss_commit *c, void *ud)
{
	learn_style(ud, c->message);
	ss_commit_free(c);
	return 0;
}

/* Walk branch ^hide (with diffs or without), each commit to cr; a
 * commit that cannot be read is passed over. */
static int walk(ss_carried *cr, const char *repo, const char *branch, const char *hide,
		int with_diff)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char notrev[512];
	const char *revs[2];
	ss_source *src;
	int rc;

	snprintf(notrev, sizeof(notrev), "^%s", hide ? hide : "HEAD");
	revs[0] = branch;
	revs[1] = notrev;
	so.repo = repo;
	so.revs = revs;
	so.nrevs = 2;
	so.with_diff = with_diff;
	if ((rc = ss_source_open(&src, repo, &so)))
		return rc;
	rc = ss_source_each(src, with_diff ? walk_commit : walk_style, NULL, cr);
	ss_source_free(src);
	return rc;
}

int ss_carried_read(ss_carried *cr, const char *repo, const char *branch, const char *hide)
{
	return walk(cr, repo, branch, hide, 1);
}

int ss_carried_read_style(ss_carried *cr, const char *repo, const char *branch, const char *hide)
{
	return walk(cr, repo, branch, hide, 0);
}

int ss_carried_learn_style(ss_carried *cr, git_repository *repo)
{
	int style[SS_BACKPORT_CHERRY + 1] = { 0 };
	int rc = 0;

	/* a whole branch's commits: none stays in the object cache of a
	 * handle shared as long as the run lasts */
	ss_git_object_cache_hold(1);
	for (size_t i = 0; i < cr->nids && !rc; i++) {
		git_commit *c = NULL;
		git_oid oid;
		int st;

		if (git_oid_fromstr(&oid, cr->ids[i]) < 0 || git_commit_lookup(&c, repo, &oid) < 0) {
			rc = ss_error_set("cannot read branch commit %.12s: %s", cr->ids[i],
					  ss_git_error());
			break;
		}
		if ((st = line_style(git_commit_message(c))) >= 0)
			style[st]++;
		git_commit_free(c);
	}
	ss_git_object_cache_hold(0);
	/* all or nothing: a failed read leaves the walk to learn them */
	if (!rc)
		for (int s = 0; s <= SS_BACKPORT_CHERRY; s++)
			cr->style[s] += style[s];
	return rc;
}

ss_carried_how ss_carried_find(const char **id, const ss_carried *cr, const char *sha,
			       uint64_t patch_key)
{
	size_t found;

	if (id)
		*id = NULL;
	if (sha && strlen(sha) == 40 && ss_u64map_get(&cr->by_sha, ss_hexid_key(sha), &found) &&
	    !strncasecmp(cr->lines[found].sha, sha, 40)) {
		if (id)
			*id = cr->ids[cr->lines[found].id];
		return SS_CARRIED_LINE;
	}
	if (patch_key && ss_u64map_get(&cr->by_patch, patch_key, &found)) {
		if (id)
			*id = cr->ids[found];
		return SS_CARRIED_PATCH;
	}
	return SS_CARRIED_NONE;
}

size_t ss_carried_commits(const ss_carried *cr)
{
	/* one id a commit: ss_carried_add() is called for each in turn */
	return cr->nids;
}

size_t ss_carried_lines(const ss_carried *cr)
{
	return cr->nlines;
}

ss_backport_style ss_carried_style(const ss_carried *cr)
{
	int best = SS_BACKPORT_DPDK;

	for (int s = 0; s <= SS_BACKPORT_CHERRY; s++)
		if (cr->style[s] > cr->style[best])
			best = s;
	return (ss_backport_style)best;
}

void ss_backport_line(char *out, size_t size, ss_backport_style s, const char *sha)
{
	switch (s) {
	case SS_BACKPORT_UPSTREAM:
		snprintf(out, size, "[ Upstream commit %s ]", sha);
		break;
	case SS_BACKPORT_LINUX:
		snprintf(out, size, "commit %s upstream.", sha);
		break;
	case SS_BACKPORT_CHERRY:
		snprintf(out, size, "(cherry picked from commit %s)", sha);
		break;
	case SS_BACKPORT_DPDK:
	default:
		snprintf(out, size, "[ upstream commit %s ]", sha);
		break;
	}
}
