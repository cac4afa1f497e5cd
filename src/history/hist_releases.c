/*
 * hist_releases.c - releases: tags and dates from a TSV or a repository,
 * and, from the repository's graph, the first release of each commit.
 *
 * "Is commit X in release R" is "does R's commit descend from X".  Asking
 * git_graph_descendant_of() for every (target, tag) pair costs a merge-base
 * search each; instead the releases are walked once, oldest first, each
 * walk hiding every older release, so each commit is met exactly once,
 * under the oldest release that contains it.  The walks share one compact
 * graph (source/git_graph.h: libgit2's revwalk, each commit read once, some
 * 50 bytes a commit).  The map (binary id, release number) is sorted for
 * binary search.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "history/impl.h"
#include "source/git_graph.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"

struct rel_map {
	unsigned char id[GIT_OID_RAWSZ];
	uint32_t rel;
};

struct ss_releases {
	ss_release *v;
	size_t n, cap;
	ss_arena *arena;          /* tag names */
	struct rel_map *map;      /* sorted by id; NULL without a graph */
	size_t nmap;
	int graph;
	struct rel_map *adding;   /* ss_releases_graph_add() so far, unsorted */
	size_t nadding, capadding;
};

static int releases_new(ss_releases **out)
{
	ss_releases *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r || !(r->arena = ss_arena_new(4096))) {
		free(r);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	*out = r;
	return 0;
}

void ss_releases_free(ss_releases *r)
{
	if (!r)
		return;
	ss_arena_free(r->arena);
	free(r->map);
	free(r->adding);
	free(r->v);
	free(r);
}

size_t ss_releases_count(const ss_releases *r)
{
	return r ? r->n : 0;
}

const ss_release *ss_releases_get(const ss_releases *r, size_t i)
{
	return r && i < r->n ? &r->v[i] : NULL;
}

int ss_releases_has_graph(const ss_releases *r)
{
	return r && r->graph;
}

static int release_add(ss_releases *r, const char *tag, size_t taglen, const char *sha,
		       int64_t time)
{
	ss_release *rel;
	size_t i;

	if (SS_GROW(r->v, r->n + 1, r->cap))
		return SS_ENOMEM;
	rel = &r->v[r->n];
	rel->tag = ss_arena_strndup(r->arena, tag, taglen);
	if (!rel->tag)
		return ss_error_code(SS_ENOMEM, "out of memory");
	for (i = 0; i < 40 && sha[i]; i++)
		rel->sha[i] = (char)tolower((unsigned char)sha[i]);
	rel->sha[i] = '\0';
	rel->time = time;
	r->n++;
	return 0;
}

static int release_cmp(const void *a, const void *b)
{
	const ss_release *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->tag, y->tag);
}

/* A release's commit as the TSV gives it: 40 hex digits, or "-" when the
 * table knows only the tag and the date (the sha is left empty). */
static int tsv_sha(const char *s, size_t len)
{
	return ss_hexid_is_full(s, len) || (len == 1 && *s == '-');
}

/* The rows of a releases TSV read from f (named name in messages). */
static int load_tsv_stream(ss_releases **out, FILE *f, const char *name)
{
	ss_releases *r = NULL;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc;

	*out = NULL;
	if ((rc = releases_new(&r)))
		goto out_free;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *tab1, *tab2, *end;
		long long date;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (lineno == 1 || !len)
			continue;  /* the header, blank lines */
		tab1 = strchr(line, '\t');
		tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
		if (!tab2 || tab1 == line || !tsv_sha(tab1 + 1, (size_t)(tab2 - tab1 - 1))) {
			rc = ss_error_code(SS_EINVALID, "releases file '%s' line %zu: expected tag, sha and date",
					   name, lineno);
			goto out_free;
		}
		errno = 0;
		date = strtoll(tab2 + 1, &end, 10);
		if (errno || end == tab2 + 1 || (*end && *end != '\t')) {
			rc = ss_error_code(SS_EINVALID, "releases file '%s' line %zu: bad date '%s'",
					   name, lineno, tab2 + 1);
			goto out_free;
		}
		if (memmem(line, (size_t)(tab1 - line), "-rc", 3))
			continue;
		if ((rc = release_add(r, line, (size_t)(tab1 - line),
				      tab1[1] == '-' ? "" : tab1 + 1, date)))
			goto out_free;
	}
	if (ferror(f)) {
		rc = ss_error_code(SS_EINVALID, "cannot read releases file '%s'", name);
		goto out_free;
	}
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), release_cmp);
	*out = r;
	r = NULL;
	rc = 0;
out_free:
	ss_releases_free(r);
	free(line);
	return rc;
}

int ss_releases_load_tsv(ss_releases **out, const char *path)
{
	FILE *f;
	int rc;

	*out = NULL;
	f = fopen(path, "r");
	if (!f)
		return ss_error_code(SS_ENOTFOUND, "cannot open releases file '%s': %s", path,
				     strerror(errno));
	rc = load_tsv_stream(out, f, path);
	fclose(f);
	return rc;
}

int ss_releases_parse_tsv(ss_releases **out, const char *text, size_t len, const char *name)
{
	FILE *f;
	int rc;

	*out = NULL;
	if (!len)
		return releases_new(out);
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return ss_error_code(SS_ENOMEM, "out of memory");
	rc = load_tsv_stream(out, f, name);
	fclose(f);
	return rc;
}

int ss_releases_new(ss_releases **out)
{
	return releases_new(out);
}

int ss_releases_add(ss_releases *r, const char *tag, const char *sha, int64_t time)
{
	ss_release tmp;
	size_t i, k;
	int rc;

	if (r->graph)
		return ss_error_code(SS_EINVALID, "cannot add release '%s' to releases with a graph",
				     tag);
	if (*sha && !ss_hexid_is_full(sha, strlen(sha)))
		return ss_error_code(SS_EINVALID, "release '%s': '%s' is not a commit id", tag, sha);
	for (i = 0; i < r->n && *sha; i++)
		if (!strcasecmp(r->v[i].sha, sha))
			return 0;
	if ((rc = release_add(r, tag, strlen(tag), sha, time)))
		return rc;
	/* keep oldest first: releases mostly come in date order */
	for (k = r->n - 1; k > 0 && release_cmp(&r->v[k - 1], &r->v[k]) > 0; k--) {
		tmp = r->v[k];
		r->v[k] = r->v[k - 1];
		r->v[k - 1] = tmp;
	}
	return 0;
}

static int map_cmp(const void *a, const void *b)
{
	return memcmp(((const struct rel_map *)a)->id, ((const struct rel_map *)b)->id,
		      GIT_OID_RAWSZ);
}

/* The releases graph's object store: commits only, each read once */
#define GRAPH_STORE_CACHE ((size_t)8 << 20)

#ifndef GRAPH_MAPPED_LIMIT
#define GRAPH_MAPPED_LIMIT (32 << 20)
#endif

/* Walk the releases oldest first with repo open (see the file comment). */
static int index_graph(ss_releases *r, git_repository *repo, const char *path)
{
	struct rel_map *map = NULL;
	size_t nmap = 0, cap = 0, i, j, k, nids;
	git_oid *ids = NULL, *walked = NULL;
	ss_git_graph *walk = NULL;
	char *valid = NULL;
	int rc = 0, held = 0;
	size_t mapped = 0;

	ids = calloc(r->n ? r->n : 1, sizeof(*ids));
	valid = calloc(r->n ? r->n : 1, 1);
	if (!ids || !valid) {
		rc = ss_error_code(SS_ENOMEM, "out of memory");
		goto out_free;
	}
	for (i = 0; i < r->n; i++) {
		git_commit *c;

		if (git_oid_fromstr(&ids[i], r->v[i].sha) < 0 ||
		    git_commit_lookup(&c, repo, &ids[i]) < 0)
			continue;  /* a release of another repository: no graph for it */
		git_commit_free(c);
		valid[i] = 1;
	}
	/* every mainline commit is read once: none stays in libgit2's cache
	 * (for the kernel, 256 MiB of commits nobody reads again) */
	ss_git_object_cache_hold(1);
	held = 1;
	/* the commits are scattered over the pack: each mapped window is
	 * used for a few of them and stays resident until the limit; a small
	 * limit costs no time here (measured: docs/index.md "Scale") */
	git_libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, &mapped);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)GRAPH_MAPPED_LIMIT);
	/* one graph for every release: each commit is read once */
	if ((rc = ss_git_graph_new(&walk, repo, path)))
		goto out_free;
	for (i = 0; i < r->n && !rc; i++) {
		if (!valid[i])
			continue;
		rc = ss_git_graph_push(walk, &ids[i]);
		for (j = 0; j < i && !rc; j++)
			if (valid[j])
				rc = ss_git_graph_hide(walk, &ids[j]);
		if (rc || (rc = ss_git_graph_walk(walk, SS_GIT_GRAPH_UNSORTED, &walked, &nids)))
			break;
		if (SS_GROW(map, nmap + nids, cap)) {
			rc = SS_ENOMEM;
			goto out_free;
		}
		for (k = 0; k < nids; k++) {
			memcpy(map[nmap].id, walked[k].id, GIT_OID_RAWSZ);
			map[nmap].rel = (uint32_t)i;
			nmap++;
		}
		free(walked);
		walked = NULL;
	}
	if (rc)
		goto out_free;
	if (nmap)
		qsort(map, nmap, sizeof(*map), map_cmp);
	free(r->map);
	r->map = map;
	r->nmap = nmap;
	r->graph = 1;
	map = NULL;
out_free:
	ss_git_graph_free(walk);
	if (held) {
		ss_git_object_cache_hold(0);
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, mapped);
	}
	free(walked);
	free(map);
	free(valid);
	free(ids);
	return rc;
}

int ss_releases_index_repo(ss_releases *r, const char *path)
{
	git_repository *repo = NULL;
	void *store = NULL;
	int rc;

	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	if (!strncmp(path, "git:", 4))
		path += 4;
	/* the object store, whose resident pack and index pages are bounded:
	 * libgit2's pack reader maps the pack index whole, and the walk
	 * touches every page of it */
	rc = ss_git_repo_open_stored(&repo, &store, path, GRAPH_STORE_CACHE);
	if (!rc)
		rc = index_graph(r, repo, path);
	git_repository_free(repo);
	ss_git_store_release(store);
	git_libgit2_shutdown();
	return rc;
}

/* Digits at *p into buf (at most size - 1 of them); the count, 0 when none
 * or too many. */
static size_t read_digits(char *buf, size_t size, const char **p)
{
	size_t n = strspn(*p, "0123456789");

	if (!n || n >= size)
		return 0;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += n;
	return n;
}

/* A release candidate suffix at *p: "-rc1", "rc1", "_rc1", ".rc1",
 * "-rc.1"; 1 and *p past it, or 0. */
static int read_rc(ss_release_version *out, const char **p)
{
	const char *q = *p;
	char rc[8];

	if (*q == '-' || *q == '_' || *q == '.')
		q++;
	if (strncmp(q, "rc", 2))
		return 0;
	q += 2;
	if (*q == '.')
		q++;
	if (!read_digits(rc, sizeof(rc), &q))
		return 0;
	out->rc = atoi(rc) > 0 ? atoi(rc) : 1;
	*p = q;
	return 1;
}

/*
 * Parse the version at s; *end is set past it.  0 or SS_EINVALID.  Parts
 * are separated by '.', or by '_' as curl writes them ("8_5_0", text
 * "8.5.0"); one part alone ("255") only when single is set.
 */
static int parse_version(ss_release_version *out, const char *s, const char **end, int single)
{
	const char *p = s;
	char sep;
	int n;

	memset(out, 0, sizeof(*out));
	if (*p == 'v')
		p++;
	if (!read_digits(out->major, sizeof(out->major), &p))
		return SS_EINVALID;
	sep = *p;
	if ((sep == '.' || sep == '_') && isdigit((unsigned char)p[1])) {
		p++;
		if (!read_digits(out->minor, sizeof(out->minor), &p))
			return SS_EINVALID;
		if (*p == sep && isdigit((unsigned char)p[1])) {
			p++;
			if (!read_digits(out->patch, sizeof(out->patch), &p))
				return SS_EINVALID;
		}
	} else if (!single) {
		return SS_EINVALID;
	}
	n = snprintf(out->text, sizeof(out->text), "%s%s%s%s%s", out->major,
		     out->minor[0] ? "." : "", out->minor, out->patch[0] ? "." : "", out->patch);
	if (n < 0 || (size_t)n >= sizeof(out->text))
		return SS_EINVALID;
	read_rc(out, &p);
	*end = p;
	return 0;
}

int ss_release_version_parse(ss_release_version *out, const char *name)
{
	const char *end, *p;
	int letters;

	if (!name)
		return SS_EINVALID;
	if (!parse_version(out, name, &end, name[0] == 'v') && !*end)
		return 0;
	/* a project's prefix: "llvmorg-17.0.1", "curl-8_5_0", "name-4.20.0",
	 * "udev-182": a letter first, then letters, digits, '-' or '_', two
	 * letters at least ("v239-10" is a package's build), the version
	 * after a '-' or '_'; one part only of at most 4 digits
	 * ("next-20240101" is a date) */
	if (!isalpha((unsigned char)name[0]))
		return SS_EINVALID;
	for (p = name + 1, letters = 1; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return SS_EINVALID;
		if ((p[-1] == '-' || p[-1] == '_') && isdigit((unsigned char)*p) && letters > 1 &&
		    !parse_version(out, p, &end, strspn(p, "0123456789") <= 4) && !*end)
			return 0;
		letters += isalpha((unsigned char)*p) != 0;
	}
	return SS_EINVALID;
}

int ss_release_version_of_subject(ss_release_version *out, const char *subject)
{
	const char *p = subject, *end;

	if (!p)
		return SS_EINVALID;
	if (!strncasecmp(p, "version", 7)) {
		p += 7;
		if (*p == ':')
			p++;
	} else if (!strncasecmp(p, "linux", 5)) {
		p += 5;
	} else {
		return SS_EINVALID;
	}
	if (*p != ' ' && *p != '\t')
		return SS_EINVALID;
	while (*p == ' ' || *p == '\t')
		p++;
	if (parse_version(out, p, &end, 0) || !(*end == '\0' || isspace((unsigned char)*end)))
		return SS_EINVALID;
	return 0;
}

int ss_release_version_is_mainline(const ss_release_version *v)
{
	return !v->rc && strspn(v->patch, "0") == strlen(v->patch);
}

int ss_releases_load(ss_releases **out, const char *file, const char *repo, const char *glob)
{
	ss_releases *r = NULL;
	int rc;

	*out = NULL;
	if (file)
		rc = ss_releases_load_tsv(&r, file);
	else if (repo)
		return ss_releases_from_repo(out, repo, glob);
	else
		return ss_error_code(SS_EINVALID, "no releases file and no repository to take tags from");
	if (!rc && repo)
		rc = ss_releases_index_repo(r, repo);
	if (rc) {
		ss_releases_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

static int from_repo(ss_releases **out, ss_repo *handle, const char *glob, int graph)
{
	git_strarray names = { NULL, 0 };
	git_repository *repo = ss_repo_git(handle);
	const char *path = ss_repo_path(handle);
	ss_releases *r = NULL;
	int with_rc = glob && strstr(glob, "rc");
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = releases_new(&r)))
		goto out_free;
	if (git_tag_list(&names, repo) < 0) {
		rc = ss_error_set("cannot list tags of '%s': %s", path, ss_git_error());
		goto out_free;
	}
	for (i = 0; i < names.count; i++) {
		const char *name = names.strings[i];
		git_object *obj = NULL, *peeled = NULL;
		char ref[1024], sha[GIT_OID_HEXSZ + 1];
		ss_release_version ver;

		if (glob ? fnmatch(glob, name, 0) != 0 : ss_release_version_parse(&ver, name) != 0)
			continue;
		if (!with_rc && (glob ? strstr(name, "-rc") != NULL : ver.rc != 0))
			continue;
		snprintf(ref, sizeof(ref), "refs/tags/%s", name);
		if (git_revparse_single(&obj, repo, ref) < 0 ||
		    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
			/* a tag of a tree or blob is no release */
			git_object_free(obj);
			continue;
		}
		git_oid_tostr(sha, sizeof(sha), git_object_id(peeled));
		rc = release_add(r, name, strlen(name), sha,
				 git_commit_time((const git_commit *)peeled));
		git_object_free(peeled);
		git_object_free(obj);
		if (rc)
			goto out_free;
	}
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), release_cmp);
	if (graph && (rc = index_graph(r, repo, path)))
		goto out_free;
	*out = r;
	r = NULL;
out_free:
	ss_releases_free(r);
	git_strarray_dispose(&names);
	return rc;
}

/* from_repo() on the repository at path ("git:" dropped), opened for it. */
static int from_path(ss_releases **out, const char *path, const char *glob, int graph)
{
	ss_repo *handle;
	int rc;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	if (!(rc = ss_repo_open(&handle, path))) {
		rc = from_repo(out, handle, glob, graph);
		ss_repo_free(handle);
	}
	git_libgit2_shutdown();
	return rc;
}

int ss_releases_from_repo(ss_releases **out, const char *path, const char *glob)
{
	return from_path(out, path, glob, 1);
}

int ss_releases_tags(ss_releases **out, const char *path, const char *glob)
{
	return from_path(out, path, glob, 0);
}

int ss_releases_tags_repo(ss_releases **out, ss_repo *repo, const char *glob)
{
	return from_repo(out, repo, glob, 0);
}

int ss_releases_graph_add(ss_releases *r, const char *sha, size_t rel)
{
	git_oid oid;

	if (rel >= r->n || !ss_hexid_is_full(sha, strlen(sha)) || git_oid_fromstr(&oid, sha) < 0)
		return ss_error_code(SS_EINVALID, "bad first release %zu of '%s'", rel, sha);
	if (SS_GROW(r->adding, r->nadding + 1, r->capadding))
		return ss_error_code(SS_ENOMEM, "out of memory");
	memcpy(r->adding[r->nadding].id, oid.id, GIT_OID_RAWSZ);
	r->adding[r->nadding++].rel = (uint32_t)rel;
	return 0;
}

int ss_releases_graph_finish(ss_releases *r)
{
	if (r->nadding)
		qsort(r->adding, r->nadding, sizeof(*r->adding), map_cmp);
	free(r->map);
	r->map = r->adding;
	r->nmap = r->nadding;
	r->graph = 1;
	r->adding = NULL;
	r->nadding = r->capadding = 0;
	return 0;
}

int ss_releases_first_containing(size_t *out, const ss_releases *r, const char *sha)
{
	struct rel_map key, *m;
	git_oid oid;

	if (!r || !r->graph)
		return SS_EINVALID;
	if (!r->nmap || git_oid_fromstr(&oid, sha) < 0)
		return SS_ENOTFOUND;
	memcpy(key.id, oid.id, GIT_OID_RAWSZ);
	m = bsearch(&key, r->map, r->nmap, sizeof(*r->map), map_cmp);
	if (!m)
		return SS_ENOTFOUND;
	*out = m->rel;
	return 0;
}
