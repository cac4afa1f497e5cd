/* history.c - a stream's past for the history features (see history.h):
 * src/history's index and releases, plus first-touch times of paths. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "features/history.h"
#include "util/strmap.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"

struct ss_history {
	ss_histidx *idx;
	ss_releases *own;          /* release commits of the stream */
	const ss_releases *given;  /* borrowed or loaded, or NULL */
	ss_releases *loaded;       /* owned by h */
	ss_releases *linux_rel;    /* the built-in Linux releases, once a
				    * kernel path was met (kernel_path()) */
	ss_strmap *paths;
	int64_t *tpath;
	size_t cappath;
	size_t count;
	ss_histlines *lines;       /* the repository, for ss_history_release_lines() */
};

int ss_history_new(ss_history **out)
{
	ss_history *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return ss_error_code(SS_ENOMEM, "out of memory");
	if (ss_histidx_new(&h->idx) || ss_releases_new(&h->own) || ss_strmap_new(&h->paths)) {
		ss_history_free(h);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	*out = h;
	return 0;
}

void ss_history_free(ss_history *h)
{
	if (!h)
		return;
	ss_histidx_free(h->idx);
	ss_releases_free(h->own);
	ss_releases_free(h->loaded);
	ss_releases_free(h->linux_rel);
	ss_strmap_free(h->paths);
	ss_histlines_free(h->lines);
	free(h->tpath);
	free(h);
}

int ss_history_open_repo(ss_history *h, const char *path)
{
	ss_histlines_free(h->lines);
	h->lines = NULL;
	return ss_histlines_new(&h->lines, path);
}

int ss_history_use_repo(ss_history *h, ss_repo *r)
{
	ss_histlines_free(h->lines);
	h->lines = NULL;
	return ss_histlines_new_repo(&h->lines, r);
}

void ss_history_borrow_repo(ss_history *h, struct git_repository *repo)
{
	if (h->lines)
		ss_histlines_borrow(h->lines, repo);
}

int ss_history_open_repo_bounded(ss_history *h, const char *path, size_t cache, size_t lines)
{
	ss_histlines_free(h->lines);
	h->lines = NULL;
	return ss_histlines_new_stored(&h->lines, path, cache, lines);
}

/* A release candidate ("v6.7-rc1", "v256-rc3", "4.2.0rc1") is no release
 * a stable branch grows from. */
static int is_candidate(const char *tag)
{
	const char *p = strstr(tag, "rc");

	return p && p[2] >= '0' && p[2] <= '9';
}

const char *ss_history_release_before(const ss_history *h, const ss_commit *c)
{
	const ss_releases *rel;
	const ss_release *best = NULL;
	int64_t t;
	size_t i, n;

	if (!h || !h->lines)
		return NULL;
	rel = ss_history_releases(h);
	n = ss_releases_count(rel);
	t = c->committer.time > 0 ? c->committer.time : c->author.time;
	for (i = 0; i < n; i++) {
		const ss_release *r = ss_releases_get(rel, i);

		if (r->time < t && r->sha[0] && !is_candidate(r->tag) &&
		    (!best || r->time > best->time))
			best = r;
	}
	return best ? best->sha : NULL;
}

int ss_history_release_lines(ss_histlines_facts *out, const ss_history *h, const ss_commit *c)
{
	const char *sha = ss_history_release_before(h, c);

	memset(out, 0, sizeof(*out));
	return sha ? ss_histlines_check(out, h->lines, sha, c) : 0;
}

void ss_history_set_releases(ss_history *h, const ss_releases *rel)
{
	h->given = rel;
}

void ss_history_take_releases(ss_history *h, ss_releases *rel)
{
	ss_releases_free(h->loaded);
	h->loaded = rel;
	h->given = rel;
}

int ss_history_load_releases(ss_history *h, const char *file, const char *repo,
			     const char *glob)
{
	ss_releases *r = NULL;
	int rc = ss_releases_load(&r, file, repo, glob);

	if (!rc)
		ss_history_take_releases(h, r);
	return rc;
}

const ss_releases *ss_history_releases(const ss_history *h)
{
	if (h->given)
		return h->given;
	/* release commits of the stream say more than the built-in dates */
	return ss_releases_count(h->own) || !h->linux_rel ? h->own : h->linux_rel;
}

int ss_history_uses_linux_releases(const ss_history *h)
{
	return h && ss_history_releases(h) == h->linux_rel;
}

/* A path only the Linux kernel's tree has at its top ("arch/x86/...",
 * "include/linux/...").  Not "kernel/": DPDK has one too (kernel/linux/kni,
 * kernel/meson.build); none of these occurs in DPDK v16.11..v22.03. */
static int kernel_path(const char *p)
{
	static const char *const tops[] = { "arch/", "include/linux/", "include/uapi/",
					    "Documentation/", "mm/", "fs/", "init/", "ipc/" };
	size_t i;

	for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++)
		if (!strncmp(p, tops[i], strlen(tops[i])))
			return 1;
	return 0;
}

ss_histidx *ss_history_index(const ss_history *h)
{
	return h->idx;
}

int ss_history_release_line(char line[8], const char *tag)
{
	ss_release_version v;
	const char *p = tag;

	/* a tag may carry a prefix before its version ("release-21.11") */
	while (*p && !isdigit((unsigned char)*p))
		p++;
	if (ss_release_version_parse(&v, p))
		return 0;
	memcpy(line, v.minor, sizeof(v.minor));
	return 1;
}

/* Is c a release commit of the stream: its subject names a version that is
 * not a release candidate. */
static int release_of(ss_release_version *v, const ss_commit *c)
{
	return !ss_release_version_of_subject(v, c->subject) && !v->rc;
}

int ss_history_is_release(const ss_commit *c)
{
	ss_release_version v;

	return release_of(&v, c);
}

/* Record t for a path: the earliest time wins, so that an index's rows
 * (in any order) and a stream (in time order) give the same first time. */
int ss_history_add_path(ss_history *h, const char *key, int64_t t)
{
	size_t before = ss_strmap_count(h->paths);
	uint32_t id;
	int rc;

	if ((rc = ss_strmap_intern(h->paths, key, strlen(key), &id)))
		return rc;
	if (!h->linux_rel && !h->given && kernel_path(key) && (rc = ss_releases_linux(&h->linux_rel)))
		return rc;
	if (ss_strmap_count(h->paths) != before) {
		if (SS_GROW(h->tpath, (size_t)id + 1, h->cappath))
			return SS_ENOMEM;
		h->tpath[id] = t;
	} else if (t < h->tpath[id]) {
		h->tpath[id] = t;
	}
	return 0;
}

int ss_history_add_known(ss_history *h, const ss_histidx_commit *k)
{
	int rc = ss_histidx_add_known(h->idx, k);

	if (!rc)
		h->count++;
	return rc;
}

int ss_history_add(ss_history *h, const ss_commit *c)
{
	ss_release_version v;
	size_t i;
	int rc;

	if ((rc = ss_histidx_add_commit(h->idx, c)))
		return rc;
	for (i = 0; i < c->nfiles; i++)
		if ((rc = ss_history_add_path(h, ss_file_path(&c->files[i]), c->author.time)))
			return rc;
	/* a release commit is a release of the stream; an id that is no full
	 * sha (never from git or format-patch) cannot be one */
	if (!h->given && release_of(&v, c) &&
	    ss_hexid_is_full(c->id, strlen(c->id)) &&
	    (rc = ss_releases_add(h->own, v.text, c->id,
				  c->committer.time > 0 ? c->committer.time : c->author.time)))
		return rc;
	h->count++;
	return 0;
}

int ss_history_facts(ss_histidx_facts *out, const ss_history *h, const ss_commit *c)
{
	ss_histidx_resolve_options o = SS_HISTIDX_RESOLVE_OPTIONS_INIT;
	ss_histidx *empty = NULL;
	int rc;

	o.past_only = 1;
	if (h)
		return ss_histidx_resolve(out, h->idx, c, ss_history_releases(h), &o);
	if ((rc = ss_histidx_new(&empty)))
		return rc;
	rc = ss_histidx_resolve(out, empty, c, NULL, &o);
	ss_histidx_free(empty);
	return rc;
}

int64_t ss_history_path_time(const ss_history *h, const char *path)
{
	uint32_t id = ss_strmap_find(h->paths, path, strlen(path));

	return id == SS_STRMAP_NONE ? -1 : h->tpath[id];
}

size_t ss_history_count(const ss_history *h)
{
	return h->count;
}
