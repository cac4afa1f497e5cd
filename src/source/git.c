/*
 * git.c - the git repository source (libgit2): commits with their diffs,
 * read by worker threads, in the order git_walk.c gives.  Merges are
 * counted and skipped.
 *
 * Diffs are first parent (or the empty tree) to commit, with rename
 * detection always on and the rename limit fixed, so that features do not
 * depend on the user's diff.renames/diff.renameLimit.
 *
 * Speed (bench/git-ingest.sh) needs five things libgit2 1.5 does not do:
 *  - git_diff_tree_to_tree() opens every subtree of both commits even when
 *    their ids are equal; we walk the two trees ourselves, descending only
 *    where ids differ, and hand libgit2 the changed paths as an exact
 *    pathspec, which its tree iterators use to skip everything else;
 *  - reading oldest first, every blob sits deep in a delta chain whose
 *    bases libgit2's base cache has long dropped: the object store
 *    (git_pack.c) sits in front of libgit2's own backends;
 *  - every object read is re-hashed (GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION);
 *    git log does not do that either, so it is switched off;
 *  - a commit without both a deleted and an added file cannot have a
 *    rename, so it is diffed blob by blob (git_patch_from_blobs, the same
 *    options and diff driver) without the tree diff's second walk and
 *    rename scoring (add_blob_diffs); SS_GIT_DIFF=libgit2 in the
 *    environment sends every commit through the tree diff (tests compare
 *    the two);
 *  - git_diff_find_similar scores every deleted file against every added
 *    one, where git pairs the exact renames first: git_rename.c finds
 *    the same renames scoring only the pairs that can still win
 *    (SS_GIT_DIFF=libgit2 leaves it all to libgit2 as well).
 * The third is a process-wide setting (it only saves work, for every
 * libgit2 user).
 *
 * Memory: libgit2's object cache (256 MiB by default, process-wide)
 * kept every commit and every tree version read, parsed, which the
 * object store already holds raw: 675 MB peak RSS for DPDK v16.11..v22.03
 * against git's 232 MB.  While a git source is open it caches no commits
 * and no trees (the object store hands them over at the cost of a copy
 * and a parse); the limits are libgit2's defaults again once the last
 * source is freed (source/git_repo.c: ss_git_object_cache_hold, a count
 * under a lock: two threads may each open and free sources).
 *
 * The walk is done at open time (a topological sort needs all commits
 * anyway), which also reports bad revisions before the first commit.
 * When diffs are wanted, reading is spread over worker threads, each with
 * its own git_repository (libgit2 objects must not be shared between
 * threads) and one shared object store.  Commit i is built into slot
 * i % GIT_QUEUE of a ring by whichever thread claimed it, and next() takes
 * slots strictly in order, so the output does not depend on scheduling.
 * The caller's thread is a reader too: when the slot next() wants is not
 * ready, it reads the next unclaimed commit itself (with a repository of
 * its own, opened as the workers' are) instead of sleeping, so there is one
 * worker fewer than CPUs.  SS_GIT_THREADS=N in the environment sets the number of workers
 * (0: read in the caller's thread only).
 */
#include <iconv.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <git2.h>

#include "source/diff.h"
#include "source/git.h"
#include "source/git_impl.h"
#include "source/impl.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/u64map.h"

enum {
	GIT_MAX_WORKERS = 4,
	GIT_QUEUE = 16,           /* commits read ahead, across all workers */
	GIT_RENAME_LIMIT = 1000   /* git's default diff.renameLimit */
};

/* Resolved objects kept by the object store; git's delta base cache is
 * 96 MiB.  SS_GIT_CACHE_KIB=N in the environment sets it (tests use a tiny
 * one, so that eviction and trimming run all the time). */
#define GIT_BASE_CACHE ((size_t)64 << 20)

struct slot {
	int ready;
	int merge;       /* a merge commit: skipped, no commit */
	int err;         /* < 0: reading failed, msg says why */
	char *msg;
	ss_commit *c;
};

struct git_source;

struct worker {
	pthread_t thread;
	git_repository *repo;
	struct git_source *src;
	int started;
};

struct git_source {
	git_repository *repo;
	ss_git_store *store;  /* shared by every repository handle; may be NULL */
	char *path;
	int with_diff;
	int blob_diffs;      /* diff blob pairs without a tree diff when possible */
	size_t max_lines;
	ss_source_stats *stats;

	ss_git_shallow shallow;  /* a shallow clone's boundary (empty if not) */

	git_oid *oids;       /* every commit to read, in output order */
	size_t noids;
	struct ss_git_merge_of *merges; /* [noids]: the merge that brought each in */
	ss_u64map merge_at;  /* a merge id's first 8 bytes -> merge_msgs index */
	char **merge_msgs;   /* merges' messages, read when first asked */
	size_t nmsgs, capmsgs;
	size_t next;         /* next oid index next() takes; written under lock */
	size_t index;        /* commits yielded so far */
	int failed;          /* sticky fatal error code */

	/* the read-ahead pipeline (nworkers == 0: none) */
	struct worker workers[GIT_MAX_WORKERS];
	size_t nworkers;
	git_repository *caller_repo; /* the caller's thread reading in take(),
				      * opened as the workers' are (not repo,
				      * which the walk used: libgit2 words a
				      * missing object differently there) */
	pthread_mutex_t lock;
	pthread_cond_t ready_cond, space_cond;
	size_t claimed;      /* next oid index a worker takes */
	int stop;
	struct slot slots[GIT_QUEUE];
};

/* One changed path's two sides (mode 0: the side is absent). */
struct change {
	git_oid old_id, new_id;
	uint32_t old_mode, new_mode;
};

/*
 * Paths that differ between two trees (a growable array of malloc'd
 * strings, the pathspec handed to libgit2), with each one's sides.
 */
struct changes {
	char **paths;
	struct change *sides;  /* parallel to paths */
	size_t n, cap, sides_cap;
	size_t added, deleted;  /* paths with only a new, only an old side */
	char prefix[4096];
	size_t plen;
};

/*
 * Re-encode text from a commit's declared encoding to UTF-8, as git log
 * does.  Returns s itself when no conversion is needed or possible.
 */
static const char *to_utf8(ss_arena *a, const char *s, size_t *len, const char *enc)
{
	iconv_t cd;
	char *in = (char *)s, *buf, *o;
	size_t inleft = *len, cap, oleft;

	if (!enc || !strcasecmp(enc, "utf-8") || !strcasecmp(enc, "utf8"))
		return s;
	cd = iconv_open("UTF-8", enc);
	if (cd == (iconv_t)-1)
		return s;
	cap = *len * 4 + 1;
	buf = ss_arena_alloc(a, cap);
	if (!buf)
		goto close_cd;
	o = buf;
	oleft = cap - 1;
	if (iconv(cd, &in, &inleft, &o, &oleft) == (size_t)-1) {
		buf = NULL;
		goto close_cd;
	}
	*o = '\0';
	*len = (size_t)(o - buf);
close_cd:
	iconv_close(cd);
	return buf ? buf : s;
}

static int set_person(ss_person *p, ss_arena *a, const git_signature *sig, const char *enc)
{
	size_t len;
	const char *name;

	if (!sig)
		return 0;
	len = strlen(sig->name);
	name = to_utf8(a, sig->name, &len, enc);
	p->name = ss_arena_strndup(a, name, len);
	p->email = ss_arena_strdup(a, sig->email);
	p->time = sig->when.time;
	p->tz = sig->when.offset;
	return p->name && p->email ? 0 : SS_ENOMEM;
}

static int changes_add(struct changes *ch, const git_tree_entry *ea, const git_tree_entry *eb)
{
	const char *name = git_tree_entry_name(ea ? ea : eb);
	size_t len = strlen(name);
	struct change *sd;
	char *path;

	if (SS_GROW(ch->paths, ch->n + 1, ch->cap) ||
	    SS_GROW(ch->sides, ch->n + 1, ch->sides_cap))
		return SS_ENOMEM;
	sd = &ch->sides[ch->n];
	memset(sd, 0, sizeof(*sd));
	if (ea) {
		git_oid_cpy(&sd->old_id, git_tree_entry_id(ea));
		sd->old_mode = (uint32_t)git_tree_entry_filemode(ea);
	}
	if (eb) {
		git_oid_cpy(&sd->new_id, git_tree_entry_id(eb));
		sd->new_mode = (uint32_t)git_tree_entry_filemode(eb);
	}
	ch->added += !ea;
	ch->deleted += !eb;
	if (!(path = malloc(ch->plen + len + 1)))
		return SS_ENOMEM;
	memcpy(path, ch->prefix, ch->plen);
	memcpy(path + ch->plen, name, len + 1);
	ch->paths[ch->n++] = path;
	return 0;
}

static void changes_clear(struct changes *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++)
		free(ch->paths[i]);
	free(ch->paths);
	free(ch->sides);
	memset(ch, 0, sizeof(*ch));
}

/* Order of entries in a git tree: names compared as if trees ended in '/'. */
static int entry_cmp(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *x = git_tree_entry_name(a), *y = git_tree_entry_name(b);
	size_t lx = strlen(x), ly = strlen(y), l = lx < ly ? lx : ly;
	unsigned char cx, cy;
	int c = memcmp(x, y, l);

	if (c)
		return c;
	cx = lx > l ? (unsigned char)x[l] : git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	cy = ly > l ? (unsigned char)y[l] : git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return cx < cy ? -1 : cx > cy;
}

static int tree_changes(struct changes *ch, git_repository *repo, git_tree *a, git_tree *b);

/* Descend into the subtree(s) named by ea/eb (either may be NULL). */
static int subtree_changes(struct changes *ch, git_repository *repo,
			   const git_tree_entry *ea, const git_tree_entry *eb)
{
	const char *name = git_tree_entry_name(ea ? ea : eb);
	size_t len = strlen(name), plen = ch->plen;
	git_tree *ta = NULL, *tb = NULL;
	int err = SS_EINVALID;

	if (plen + len + 2 > sizeof(ch->prefix))
		return ss_error_code(SS_EINVALID, "path too long: %s%s", ch->prefix, name);
	if ((ea && git_tree_lookup(&ta, repo, git_tree_entry_id(ea)) < 0) ||
	    (eb && git_tree_lookup(&tb, repo, git_tree_entry_id(eb)) < 0)) {
		err = ss_error_set("cannot read tree '%s%s': %s", ch->prefix, name, ss_git_error());
		goto free_trees;
	}
	memcpy(ch->prefix + plen, name, len);
	ch->prefix[plen + len] = '/';
	ch->plen = plen + len + 1;
	err = tree_changes(ch, repo, ta, tb);
	ch->plen = plen;
free_trees:
	git_tree_free(ta);
	git_tree_free(tb);
	return err;
}

/* The paths of files that differ between trees a and b (either may be NULL). */
static int tree_changes(struct changes *ch, git_repository *repo, git_tree *a, git_tree *b)
{
	size_t i = 0, j = 0, na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
	const git_tree_entry *ea, *eb;
	int c, err = 0, ta, tb;

	ch->prefix[ch->plen] = '\0';
	while (!err && (i < na || j < nb)) {
		ea = i < na ? git_tree_entry_byindex(a, i) : NULL;
		eb = j < nb ? git_tree_entry_byindex(b, j) : NULL;
		c = !ea ? 1 : !eb ? -1 : entry_cmp(ea, eb);
		if (c < 0) {
			eb = NULL;
			i++;
		} else if (c > 0) {
			ea = NULL;
			j++;
		} else {
			i++;
			j++;
			if (git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb) &&
			    git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)))
				continue;
		}
		ta = ea && git_tree_entry_type(ea) == GIT_OBJECT_TREE;
		tb = eb && git_tree_entry_type(eb) == GIT_OBJECT_TREE;
		if (ta || tb)
			err = subtree_changes(ch, repo, ea, eb);
		else
			err = changes_add(ch, ea, eb);
		ch->prefix[ch->plen] = '\0';
	}
	return err;
}

/* A regular file, executable or not: what a blob patch can stand for. */
static int plain_file(uint32_t mode)
{
	return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
}

/*
 * Can the changed paths be diffed blob by blob, giving what the tree diff
 * with rename detection gives?  Rename detection pairs a deleted path
 * with an added one, so a commit that has not both cannot have a rename;
 * a blob patch knows no modes, so every path must be a regular file on
 * each side it has, with the same mode on both (no mode change, no
 * symlink, no submodule, no type change: a type change is a deletion and
 * an addition here).
 */
static int blob_diffable(const struct changes *ch)
{
	size_t i;

	if (ch->added && ch->deleted)
		return 0;
	for (i = 0; i < ch->n; i++) {
		const struct change *sd = &ch->sides[i];

		if ((sd->old_mode && !plain_file(sd->old_mode)) ||
		    (sd->new_mode && !plain_file(sd->new_mode)) ||
		    (sd->old_mode && sd->new_mode && sd->old_mode != sd->new_mode))
			return 0;
	}
	return 1;
}

/* Files whose blob a partial clone lacks, over the whole process: how
 * many, and the first (ss_git_missing_objects()). */
static size_t missing_count;
static char missing_first[1024], missing_key[41], missing_path[1024];
static pthread_mutex_t missing_lock = PTHREAD_MUTEX_INITIALIZER;

size_t ss_git_missing_objects(char *first, size_t size)
{
	size_t n;

	pthread_mutex_lock(&missing_lock);
	n = missing_count;
	if (first && size)
		snprintf(first, size, "%s", missing_first);
	pthread_mutex_unlock(&missing_lock);
	return n;
}

static int blob_missing(git_odb *odb, uint32_t mode, const git_oid *id)
{
	/* a submodule's commit is no object of this repository */
	return mode && (mode & 0170000) != 0160000 && !git_odb_exists(odb, id);
}

/*
 * Take the paths whose blobs are missing from the store (a partial
 * clone) out of ch, each as an unreadable file of c: the rest of the
 * commit is read as usual.
 */
static int drop_missing(ss_commit *c, git_repository *repo, struct changes *ch)
{
	git_odb *odb = NULL;
	size_t i, k = 0;
	int err = 0;

	if (git_repository_odb(&odb, repo) < 0)
		return 0;
	for (i = 0; i < ch->n; i++) {
		struct change *sd = &ch->sides[i];

		int old_gone = blob_missing(odb, sd->old_mode, &sd->old_id);

		if (!err && (old_gone || blob_missing(odb, sd->new_mode, &sd->new_id))) {
			char hex[GIT_OID_HEXSZ + 1];

			err = ss_commit_add_unreadable(c, ch->paths[i], !sd->old_mode ? SS_FILE_ADDED :
						       !sd->new_mode ? SS_FILE_DELETED : SS_FILE_MODIFIED,
						       sd->old_mode, sd->new_mode);
			/* the one named is the smallest commit id (then path):
			 * the same whichever reader thread meets it first */
			pthread_mutex_lock(&missing_lock);
			if (!missing_count++ || strcmp(c->id, missing_key) < 0 ||
			    (!strcmp(c->id, missing_key) && strcmp(ch->paths[i], missing_path) < 0)) {
				snprintf(missing_key, sizeof(missing_key), "%s", c->id);
				snprintf(missing_path, sizeof(missing_path), "%s", ch->paths[i]);
				snprintf(missing_first, sizeof(missing_first), "'%s' (blob %s) of commit %s",
					 ch->paths[i], git_oid_tostr(hex, sizeof(hex), old_gone ? &sd->old_id
								     : &sd->new_id), c->id);
			}
			pthread_mutex_unlock(&missing_lock);
			if (!sd->old_mode)
				ch->added--;
			else if (!sd->new_mode)
				ch->deleted--;
			free(ch->paths[i]);
			continue;
		}
		ch->paths[k] = ch->paths[i];
		ch->sides[k++] = *sd;
	}
	ch->n = k;
	git_odb_free(odb);
	return err < 0 ? ss_error_code(err, "out of memory reading '%s'", c->source) : 0;
}

/*
 * The patches of ch's paths built blob by blob, in the order of the tree
 * walk (git's path order, which is the order of the tree diff's deltas).
 * dopts are the tree diff's options: the same context, flags and
 * diff driver (attributes, binary detection, hunk header functions) per
 * path.
 */
static int add_blob_diffs(ss_commit *c, git_repository *repo, const struct changes *ch,
			  const git_diff_options *dopts, size_t max_lines)
{
	size_t i, budget = max_lines;
	int err = 0;

	for (i = 0; i < ch->n && !err; i++) {
		const struct change *sd = &ch->sides[i];
		git_blob *ob = NULL, *nb = NULL;
		git_patch *patch = NULL;
		ss_file_status status = !sd->old_mode ? SS_FILE_ADDED :
			!sd->new_mode ? SS_FILE_DELETED : SS_FILE_MODIFIED;

		if ((sd->old_mode && git_blob_lookup(&ob, repo, &sd->old_id) < 0) ||
		    (sd->new_mode && git_blob_lookup(&nb, repo, &sd->new_id) < 0) ||
		    git_patch_from_blobs(&patch, ob, ch->paths[i], nb, ch->paths[i], dopts) < 0)
			err = ss_error_set("cannot diff '%s' of commit %s in '%s': %s", ch->paths[i],
					   c->id, c->source, ss_git_error());
		else
			err = ss_commit_add_blob_patch(c, patch, status, sd->old_mode, sd->new_mode,
						       max_lines ? &budget : NULL);
		git_patch_free(patch);
		git_blob_free(ob);
		git_blob_free(nb);
	}
	return err;
}

/*
 * root: diff against the empty tree whatever the parents (a grafted commit).
 * blob_diffs: when blob_diffable(), diff the changed blobs directly
 * (add_blob_diffs) instead of through git_diff_tree_to_tree and
 * git_diff_find_similar, which walk both trees again, down the changed
 * paths, and score every deleted file against every added one.
 */
static int add_diff(ss_commit *c, git_repository *repo, git_commit *commit, int root,
		    int blob_diffs, size_t max_lines)
{
	git_diff_options dopts;
	git_tree *old_tree = NULL, *new_tree = NULL;
	git_commit *parent = NULL;
	git_diff *diff = NULL;
	struct changes ch;
	int err = 0;

	memset(&ch, 0, sizeof(ch));
	if (git_commit_tree(&new_tree, commit) < 0 ||
	    (!root && git_commit_parentcount(commit) > 0 &&
	     (git_commit_parent(&parent, commit, 0) < 0 ||
	      git_commit_tree(&old_tree, parent) < 0))) {
		err = ss_error_set("cannot read commit %s in '%s': %s", c->id, c->source, ss_git_error());
		goto free_trees;
	}
	if ((err = tree_changes(&ch, repo, old_tree, new_tree)) < 0) {
		if (err == SS_ENOMEM)
			ss_error_code(err, "out of memory reading '%s'", c->source);
		goto free_trees;
	}
	if (!ch.n)
		goto free_trees;  /* an empty commit */
	if ((err = drop_missing(c, repo, &ch)) < 0 || !ch.n)
		goto free_trees;

	/* the _INIT macros leave fields to zero-fill, which -Wextra flags */
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	/* git's default since 2.14 (diff.indentHeuristic): hunks placed as
	 * "git log -p" and "git format-patch" place them, so that a commit
	 * read from the repository has the diff, and the patch id, it has in
	 * mail (without it 122 of 951 DPDK v21.11..v22.03 patch ids differed) */
	dopts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_INDENT_HEURISTIC;
	if (blob_diffs && blob_diffable(&ch)) {
		err = add_blob_diffs(c, repo, &ch, &dopts, max_lines);
		goto free_trees;
	}
	dopts.pathspec.strings = ch.paths;
	dopts.pathspec.count = ch.n;
	if (git_diff_tree_to_tree(&diff, repo, old_tree, new_tree, &dopts) < 0 ||
	    ss_git_find_renames(diff, repo, GIT_RENAME_LIMIT, !blob_diffs) < 0) {
		err = ss_error_set("cannot diff commit %s in '%s': %s", c->id,
				   c->source, ss_git_error());
		goto free_trees;
	}
	err = ss_commit_add_diff(c, diff, max_lines);
free_trees:
	changes_clear(&ch);
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_commit_free(parent);
	return err;
}

/*
 * Read one commit.  A merge yields *out == NULL and *merge = 1 without
 * building anything.  Safe in any thread that owns repo.
 */
static int read_commit(ss_commit **out, int *merge, git_repository *repo,
		       const git_oid *oid, const struct git_source *src)
{
	git_commit *commit = NULL;
	ss_commit *c = NULL;
	const char *msg, *enc;
	size_t len;
	int err = 0, root;

	*out = NULL;
	*merge = 0;
	if (git_commit_lookup(&commit, repo, oid) < 0) {
		char hex[GIT_OID_HEXSZ + 1];

		return ss_error_set("cannot read commit %s in '%s': %s",
				    git_oid_tostr(hex, sizeof(hex), oid), src->path, ss_git_error());
	}
	/* a grafted commit of a shallow clone has no parents, for git log */
	root = ss_git_shallow_grafted(&src->shallow, oid);
	if (!root && git_commit_parentcount(commit) > 1) {
		*merge = 1;
		goto free_commit;
	}
	c = ss_commit_new();
	if (!c || !(c->source = ss_arena_strdup(c->arena, src->path))) {
		err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
		goto free_commit;
	}
	git_oid_tostr(c->id, sizeof(c->id), oid);
	enc = git_commit_message_encoding(commit);
	if (set_person(&c->author, c->arena, git_commit_author(commit), enc) < 0 ||
	    set_person(&c->committer, c->arena, git_commit_committer(commit), enc) < 0) {
		err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
		goto free_commit;
	}
	msg = git_commit_message(commit);
	if (!msg)
		msg = "";
	len = strlen(msg);
	msg = to_utf8(c->arena, msg, &len, enc);
	err = ss_commit_set_message(c, msg, len);
	if (err < 0)
		goto free_commit;
	if (src->with_diff)
		err = add_diff(c, repo, commit, root, src->blob_diffs, src->max_lines);
	/* a damaged object spoils this commit, not the ones after it */
	if (err < 0 && err != SS_ENOMEM) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", ss_error_last());
		err = ss_error_code(SS_ESKIP, "commit %s in '%s' skipped: %s",
				    c->id, src->path, why);
	}
free_commit:
	git_commit_free(commit);
	if (err < 0) {
		ss_commit_free(c);
		return err;
	}
	*out = c;
	return 0;
}

static int blob_diffs_wanted(void);

int ss_repo_read_commit(ss_commit **out, ss_repo *r, const char *id)
{
	struct git_source src;  /* what read_commit() asks of a source */
	git_oid oid;
	int merge, err;

	*out = NULL;
	if (strlen(id) != GIT_OID_HEXSZ || git_oid_fromstr(&oid, id) < 0)
		return 0;
	memset(&src, 0, sizeof(src));
	src.path = (char *)ss_repo_path(r);
	src.with_diff = 1;
	src.blob_diffs = blob_diffs_wanted();
	/* the grafted ids only: the boundary's backend is a source's own,
	 * never put in front of a shared handle's object database */
	if ((err = ss_git_shallow_ids(&src.shallow.grafted, &src.shallow.ngrafted, ss_repo_git(r),
				      src.path)) < 0)
		return err;
	/* its trees stay out of the object cache of a handle shared as
	 * long as a run lasts, as they stay out of a source's */
	ss_git_object_cache_hold(1);
	err = read_commit(out, &merge, ss_repo_git(r), &oid, &src);
	ss_git_object_cache_hold(0);
	free(src.shallow.grafted);
	/* a malformed commit is passed over, as the walk passes it */
	return err == SS_ESKIP ? 0 : err;
}

/* Commit i is read (under the lock): its slot holds the result. */
static void fill_slot(struct git_source *src, size_t i, ss_commit *c, int merge, int err)
{
	struct slot *s = &src->slots[i % GIT_QUEUE];

	s->c = c;
	s->merge = merge;
	s->err = err;
	s->msg = err < 0 ? strdup(ss_error_last()) : NULL;
	s->ready = 1;
	pthread_cond_signal(&src->ready_cond);  /* only next() waits on it */
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct git_source *src = w->src;
	ss_commit *c;
	size_t i;
	int err, merge;

	pthread_mutex_lock(&src->lock);
	for (;;) {
		if (src->stop || src->claimed >= src->noids)
			break;
		i = src->claimed;
		/* slot i % GIT_QUEUE is free once next() has taken i - GIT_QUEUE */
		if (i >= src->next + GIT_QUEUE) {
			pthread_cond_wait(&src->space_cond, &src->lock);
			continue;
		}
		src->claimed++;
		pthread_mutex_unlock(&src->lock);

		err = read_commit(&c, &merge, w->repo, &src->oids[i], src);

		pthread_mutex_lock(&src->lock);
		fill_slot(src, i, c, merge, err);
	}
	pthread_mutex_unlock(&src->lock);
	return NULL;
}

/* Take the result for oid index src->next, in order, and move on. */
static int take(ss_commit **out, int *merge, struct git_source *src)
{
	struct slot *s = &src->slots[src->next % GIT_QUEUE];
	int err;

	if (!src->nworkers) {
		err = read_commit(out, merge, src->repo, &src->oids[src->next], src);
		src->next++;
		return err;
	}
	pthread_mutex_lock(&src->lock);
	while (!s->ready) {
		/*
		 * Rather than sleep until a worker is done, read the next
		 * commit nobody has claimed, with the caller's repository:
		 * the caller's thread is one of the readers, and waking it
		 * for every commit cost 3 context switches a commit (7% more
		 * CPU than one thread on DPDK).
		 */
		if (src->claimed < src->noids && src->claimed < src->next + GIT_QUEUE) {
			size_t j = src->claimed++;
			ss_commit *c;
			int m, e;

			pthread_mutex_unlock(&src->lock);
			e = read_commit(&c, &m, src->caller_repo, &src->oids[j], src);
			pthread_mutex_lock(&src->lock);
			fill_slot(src, j, c, m, e);
			continue;
		}
		pthread_cond_wait(&src->ready_cond, &src->lock);
	}
	*out = s->c;
	*merge = s->merge;
	err = s->err;
	if (err < 0)
		ss_error_code(err, "%s", s->msg ? s->msg : "out of memory");
	free(s->msg);
	memset(s, 0, sizeof(*s));
	src->next++;
	pthread_cond_signal(&src->space_cond);  /* one slot for one worker */
	pthread_mutex_unlock(&src->lock);
	return err;
}

/*
 * The merge that brought commit i in, into c (merge_message,
 * merge_commits).  A merge that cannot be read leaves them unset: the
 * features then read the commit as made on the mainline.
 */
static int set_merge(ss_commit *c, struct git_source *src, size_t i)
{
	const struct ss_git_merge_of *m = src->merges ? &src->merges[i] : NULL;
	uint64_t key;
	size_t at;
	int found;

	if (!m || !m->commits)
		return 0;
	memcpy(&key, m->merge.id, sizeof(key));
	key = key ? key : 1;
	if ((found = ss_u64map_get(&src->merge_at, key, &at)) == 0) {
		git_repository *repo = src->nworkers ? src->caller_repo : src->repo;
		git_commit *mc = NULL;
		const char *msg;
		char *copy;

		if (git_commit_lookup(&mc, repo, &m->merge) < 0) {
			git_error_clear();
			return 0;
		}
		msg = git_commit_message(mc);
		copy = strdup(msg ? msg : "");
		git_commit_free(mc);
		if (!copy || SS_GROW(src->merge_msgs, src->nmsgs + 1, src->capmsgs) ||
		    ss_u64map_find_or_put(&src->merge_at, key, src->nmsgs, &at) < 0) {
			free(copy);
			return ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
		}
		at = src->nmsgs;
		src->merge_msgs[src->nmsgs++] = copy;
	}
	if (!(c->merge_message = ss_arena_strdup(c->arena, src->merge_msgs[at])))
		return ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
	c->merge_commits = m->commits;
	return 0;
}

static int git_next(ss_commit **out, void *impl)
{
	struct git_source *src = impl;
	ss_commit *c;
	int err, merge;
	size_t i;

	*out = NULL;
	if (src->failed)
		return ss_error_code(src->failed, "repository '%s' cannot be read after an error",
				     src->path);
	while (src->next < src->noids) {
		i = src->next;
		err = take(&c, &merge, src);
		if (err == SS_ESKIP) {
			src->stats->malformed++;
			return err;
		}
		if (err < 0) {
			src->failed = err;
			return err;
		}
		if (merge) {
			src->stats->skipped_merges++;
			continue;
		}
		if ((err = set_merge(c, src, i)) < 0) {
			ss_commit_free(c);
			src->failed = err;
			return err;
		}
		c->index = src->index++;
		*out = c;
		return 0;
	}
	return SS_ITEROVER;
}

static void stop_workers(struct git_source *src)
{
	size_t i;

	if (!src->nworkers)
		return;
	pthread_mutex_lock(&src->lock);
	src->stop = 1;
	pthread_cond_broadcast(&src->space_cond);
	pthread_mutex_unlock(&src->lock);
	for (i = 0; i < src->nworkers; i++)
		if (src->workers[i].started)
			pthread_join(src->workers[i].thread, NULL);
	for (i = 0; i < GIT_QUEUE; i++) {
		ss_commit_free(src->slots[i].c);
		free(src->slots[i].msg);
	}
	for (i = 0; i < src->nworkers; i++)
		git_repository_free(src->workers[i].repo);
	git_repository_free(src->caller_repo);
	src->caller_repo = NULL;
	pthread_cond_destroy(&src->ready_cond);
	pthread_cond_destroy(&src->space_cond);
	pthread_mutex_destroy(&src->lock);
	src->nworkers = 0;
}

/* ss_source_git_repo(): the handle take() reads with on the caller's thread */
static git_repository *git_caller_repo(void *impl)
{
	struct git_source *src = impl;

	return src->nworkers ? src->caller_repo : src->repo;
}

static void git_source_free(void *impl)
{
	struct git_source *src = impl;
	size_t i;

	if (!src)
		return;
	stop_workers(src);
	free(src->oids);
	for (i = 0; i < src->nmsgs; i++)
		free(src->merge_msgs[i]);
	free(src->merge_msgs);
	ss_u64map_release(&src->merge_at);
	free(src->merges);
	ss_git_shallow_clear(&src->shallow);
	free(src->path);
	git_repository_free(src->repo);
	ss_git_store_free(src->store);  /* after every repository that reads from it */
	free(src);
	ss_git_object_cache_hold(0);
	git_libgit2_shutdown();
#ifdef __GLIBC__
	/* the cache and the readers' buffers, freed, stay in the arenas of
	 * the worker threads: give them back, or they add to what the
	 * process does next (docs/index.md "Peak RSS of a build") */
	malloc_trim(0);
#endif
}

/* SS_GIT_DIFF=libgit2: every commit through libgit2's tree diff and its
 * rename scoring alone (see add_diff). */
static int blob_diffs_wanted(void)
{
	const char *env = getenv("SS_GIT_DIFF");

	return !(env && !strcmp(env, "libgit2"));
}

static size_t cache_size(void)
{
	const char *env = getenv("SS_GIT_CACHE_KIB");
	long n;

	if (env && *env && (n = strtol(env, NULL, 10)) > 0 && n < (1L << 30))
		return (size_t)n << 10;
	return GIT_BASE_CACHE;
}

static size_t worker_count(const struct git_source *src)
{
	const char *env = getenv("SS_GIT_THREADS");
	long n;

	if (env && *env) {
		n = strtol(env, NULL, 10);
		return n < 0 ? 0 : n > GIT_MAX_WORKERS ? GIT_MAX_WORKERS : (size_t)n;
	}
	/* without diffs a commit is too cheap to be worth a hand-off */
	if (!src->with_diff || src->noids < 2)
		return 0;
	/* the caller's thread reads too (take): one worker fewer than CPUs */
	n = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (n <= 0)
		return 0;
	return n > GIT_MAX_WORKERS ? GIT_MAX_WORKERS : (size_t)n;
}

static int start_workers(struct git_source *src, size_t n)
{
	size_t i;
	int err = 0;

	if (!n)
		return 0;
	if ((err = pthread_mutex_init(&src->lock, NULL)))
		return ss_error_set("cannot start readers for '%s': %s", src->path, strerror(err));
	pthread_cond_init(&src->ready_cond, NULL);
	pthread_cond_init(&src->space_cond, NULL);
	src->nworkers = n;
	if ((err = ss_git_repo_open(&src->caller_repo, src->path)) < 0)
		goto stop_readers;
	ss_git_store_attach(src->store, src->caller_repo);
	for (i = 0; i < n; i++) {
		src->workers[i].src = src;
		if ((err = ss_git_repo_open(&src->workers[i].repo, src->path)) < 0)
			goto stop_readers;
		ss_git_store_attach(src->store, src->workers[i].repo);
	}
	for (i = 0; i < n; i++) {
		struct worker *w = &src->workers[i];

		if ((err = pthread_create(&w->thread, NULL, worker_main, w))) {
			err = ss_error_set("cannot start readers for '%s': %s", src->path,
					   strerror(err));
			goto stop_readers;
		}
		w->started = 1;
	}
	return 0;
stop_readers:
	stop_workers(src);
	return err;
}

int ss_git_open(void **out, ss_source_ops *ops, const char *repo,
		const ss_source_options *opts, ss_source_stats *stats)
{
	struct git_source *src;
	int err;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	/* process-wide; see the top of this file */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	src = calloc(1, sizeof(*src));
	if (!src || !(src->path = strdup(repo))) {
		free(src);
		git_libgit2_shutdown();
		return ss_error_code(SS_ENOMEM, "out of memory opening '%s'", repo);
	}
	ss_git_object_cache_hold(1);
	src->with_diff = opts->with_diff;
	src->blob_diffs = blob_diffs_wanted();
	src->max_lines = opts->max_lines;
	src->stats = stats;
	if ((err = ss_git_repo_open_store(&src->repo, &src->store, repo, cache_size())) < 0)
		goto free_source;
	if ((err = ss_git_shallow_load(&src->shallow, src->repo, src->path)) < 0 ||
	    (err = ss_git_walk(&src->oids, &src->noids, &src->merges, src->repo, src->path,
				&src->shallow, opts->revs, opts->nrevs, opts->merges_tip)) < 0)
		goto free_source;
	/* the walk is oldest first: its newest are its end */
	if (opts->newest && src->noids > opts->newest) {
		src->next = src->claimed = src->noids - opts->newest;
		stats->older = src->next;
	}
	if ((err = start_workers(src, worker_count(src))) < 0)
		goto free_source;
	ops->next = git_next;
	ops->free = git_source_free;
	ops->repo = git_caller_repo;
	*out = src;
	return 0;
free_source:
	git_source_free(src);
	return err;
}
