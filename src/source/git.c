/*
 * git.c - the git repository source (libgit2) and branch listing.
 *
 * Revisions are taken the way git log takes them ("A..B", "A...B", "^C",
 * "D"; none means HEAD).  Commits come oldest first in the order of
 * `git log --reverse --date-order --no-merges`: libgit2's topological sort
 * with GIT_SORT_TIME keeps a time-ordered queue of ready commits, which is
 * git's --date-order; its --topo-order (a LIFO) has no libgit2 equivalent
 * with the same tie-breaking.  Merges are counted and skipped.
 *
 * Diffs are first parent (or the empty tree) to commit, with rename
 * detection always on and the rename limit fixed, so that features do not
 * depend on the user's diff.renames/diff.renameLimit.
 *
 * The walk is done at open time (a topological sort needs all commits
 * anyway), which also reports bad revisions before the first commit.
 * When diffs are wanted, reading is spread over worker threads, each with
 * its own git_repository (libgit2 objects must not be shared between
 * threads).  Commit i is built into slot i % GIT_QUEUE of a ring by
 * whichever worker claimed it, and next() takes slots strictly in order,
 * so the output does not depend on scheduling.  SS_GIT_THREADS=N in the
 * environment overrides the number of workers (0: read in the caller's
 * thread).
 */
#include <errno.h>
#include <fnmatch.h>
#include <iconv.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <git2.h>

#include "commit/diff.h"
#include "source/git.h"
#include "source/impl.h"
#include "util/error.h"

enum {
	GIT_MAX_WORKERS = 4,
	GIT_QUEUE = 16,         /* commits read ahead, across all workers */
	GIT_RENAME_LIMIT = 1000 /* git's default diff.renameLimit */
};

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
	char *path;
	int with_diff;
	size_t max_lines;
	ss_source_stats *stats;

	git_oid *oids;       /* every commit to read, in output order */
	size_t noids;
	size_t next;         /* next oid index next() takes; written under lock */
	size_t index;        /* commits yielded so far */
	int failed;          /* sticky fatal error code */

	/* the read-ahead pipeline (nworkers == 0: none) */
	struct worker workers[GIT_MAX_WORKERS];
	size_t nworkers;
	pthread_mutex_t lock;
	pthread_cond_t ready_cond, space_cond;
	size_t claimed;      /* next oid index a worker takes */
	int stop;
	struct slot slots[GIT_QUEUE];
};

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown error";
}

static int open_repo(git_repository **out, const char *path)
{
	if (git_repository_open_ext(out, path, 0, NULL) < 0)
		return ss_error_code(SS_ENOTFOUND, "cannot open repository '%s': %s",
				     path, git_msg());
	return 0;
}

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
		goto out_close;
	o = buf;
	oleft = cap - 1;
	if (iconv(cd, &in, &inleft, &o, &oleft) == (size_t)-1) {
		buf = NULL;
		goto out_close;
	}
	*o = '\0';
	*len = (size_t)(o - buf);
out_close:
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

static int add_diff(ss_commit *c, git_repository *repo, git_commit *commit, size_t max_lines)
{
	git_diff_options dopts;
	git_diff_find_options fopts;
	git_tree *old_tree = NULL, *new_tree = NULL;
	git_commit *parent = NULL;
	git_diff *diff = NULL;
	int err = 0;

	/* the _INIT macros leave fields to zero-fill, which -Wextra flags */
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = GIT_RENAME_LIMIT;
	if (git_commit_tree(&new_tree, commit) < 0 ||
	    (git_commit_parentcount(commit) > 0 &&
	     (git_commit_parent(&parent, commit, 0) < 0 ||
	      git_commit_tree(&old_tree, parent) < 0)) ||
	    git_diff_tree_to_tree(&diff, repo, old_tree, new_tree, &dopts) < 0 ||
	    git_diff_find_similar(diff, &fopts) < 0) {
		err = ss_error_set("cannot diff commit %s in '%s': %s", c->id,
				   c->source, git_msg());
		goto out_free;
	}
	err = ss_commit_add_diff(c, diff, max_lines);
out_free:
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
	int err = 0;

	*out = NULL;
	*merge = 0;
	if (git_commit_lookup(&commit, repo, oid) < 0) {
		char hex[GIT_OID_HEXSZ + 1];

		return ss_error_set("cannot read commit %s in '%s': %s",
				    git_oid_tostr(hex, sizeof(hex), oid), src->path, git_msg());
	}
	if (git_commit_parentcount(commit) > 1) {
		*merge = 1;
		goto out_commit;
	}
	c = ss_commit_new();
	if (!c || !(c->source = ss_arena_strdup(c->arena, src->path))) {
		err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
		goto out_commit;
	}
	git_oid_tostr(c->id, sizeof(c->id), oid);
	enc = git_commit_message_encoding(commit);
	if (set_person(&c->author, c->arena, git_commit_author(commit), enc) < 0 ||
	    set_person(&c->committer, c->arena, git_commit_committer(commit), enc) < 0) {
		err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
		goto out_commit;
	}
	msg = git_commit_message(commit);
	if (!msg)
		msg = "";
	len = strlen(msg);
	msg = to_utf8(c->arena, msg, &len, enc);
	err = ss_commit_set_message(c, msg, len);
	if (err < 0)
		goto out_commit;
	if (src->with_diff)
		err = add_diff(c, repo, commit, src->max_lines);
out_commit:
	git_commit_free(commit);
	if (err < 0) {
		ss_commit_free(c);
		return err;
	}
	*out = c;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct git_source *src = w->src;
	struct slot *s;
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
		s = &src->slots[i % GIT_QUEUE];
		s->c = c;
		s->merge = merge;
		s->err = err;
		s->msg = err < 0 ? strdup(ss_error_last()) : NULL;
		s->ready = 1;
		pthread_cond_broadcast(&src->ready_cond);
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
	while (!s->ready)
		pthread_cond_wait(&src->ready_cond, &src->lock);
	*out = s->c;
	*merge = s->merge;
	err = s->err;
	if (err < 0)
		ss_error_code(err, "%s", s->msg ? s->msg : "out of memory");
	free(s->msg);
	memset(s, 0, sizeof(*s));
	src->next++;
	pthread_cond_broadcast(&src->space_cond);
	pthread_mutex_unlock(&src->lock);
	return err;
}

static int git_next(ss_commit **out, void *impl)
{
	struct git_source *src = impl;
	ss_commit *c;
	int err, merge;

	*out = NULL;
	if (src->failed)
		return ss_error_code(src->failed, "repository '%s' cannot be read after an error",
				     src->path);
	while (src->next < src->noids) {
		err = take(&c, &merge, src);
		if (err < 0) {
			src->failed = err;
			return err;
		}
		if (merge) {
			src->stats->skipped_merges++;
			continue;
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
	pthread_cond_destroy(&src->ready_cond);
	pthread_cond_destroy(&src->space_cond);
	pthread_mutex_destroy(&src->lock);
	src->nworkers = 0;
}

static void git_source_free(void *impl)
{
	struct git_source *src = impl;

	if (!src)
		return;
	stop_workers(src);
	free(src->oids);
	free(src->path);
	git_repository_free(src->repo);
	free(src);
	git_libgit2_shutdown();
}

static int peel_commit(git_oid *out, git_repository *repo, const char *spec)
{
	git_object *obj = NULL, *peeled = NULL;
	int err = git_revparse_single(&obj, repo, spec);

	if (!err)
		err = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (!err)
		git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return err;
}

/* "A..B", and "A...B": both sides minus their merge bases, as git does. */
static int add_range(git_revwalk *walk, git_repository *repo, const char *rev)
{
	git_revspec spec = { NULL, NULL, 0 };
	git_oidarray bases = { NULL, 0 };
	git_object *from = NULL, *to = NULL;
	git_oid a, b;
	size_t i;
	int err;

	/* on failure git_revparse may leave spec.from set */
	if ((err = git_revparse(&spec, repo, rev)) < 0 ||
	    (err = git_object_peel(&from, spec.from, GIT_OBJECT_COMMIT)) < 0 ||
	    (err = git_object_peel(&to, spec.to, GIT_OBJECT_COMMIT)) < 0)
		goto out_free;
	git_oid_cpy(&a, git_object_id(from));
	git_oid_cpy(&b, git_object_id(to));
	if (!(spec.flags & GIT_REVSPEC_MERGE_BASE)) {
		if (!(err = git_revwalk_hide(walk, &a)))
			err = git_revwalk_push(walk, &b);
		goto out_free;
	}
	if ((err = git_revwalk_push(walk, &a)) < 0 ||
	    (err = git_revwalk_push(walk, &b)) < 0)
		goto out_free;
	err = git_merge_bases(&bases, repo, &a, &b);
	if (err == GIT_ENOTFOUND) {
		err = 0;  /* unrelated histories: nothing to subtract */
		goto out_free;
	}
	for (i = 0; !err && i < bases.count; i++)
		err = git_revwalk_hide(walk, &bases.ids[i]);
out_free:
	git_oidarray_dispose(&bases);
	git_object_free(from);
	git_object_free(to);
	git_object_free(spec.from);
	git_object_free(spec.to);
	return err;
}

static int add_rev(git_revwalk *walk, git_repository *repo, const char *rev)
{
	git_oid oid;
	int err;

	if (rev[0] == '^' && rev[1]) {
		err = peel_commit(&oid, repo, rev + 1);
		return err < 0 ? err : git_revwalk_hide(walk, &oid);
	}
	if (strstr(rev, ".."))
		return add_range(walk, repo, rev);
	err = peel_commit(&oid, repo, rev);
	return err < 0 ? err : git_revwalk_push(walk, &oid);
}

static int walk_history(struct git_source *src, const ss_source_options *opts)
{
	static const char *head[] = { "HEAD" };
	const char **revs = opts->nrevs ? opts->revs : head;
	size_t nrevs = opts->nrevs ? opts->nrevs : 1, i, cap = 0;
	git_revwalk *walk = NULL;
	git_oid oid, *grown;
	int err;

	if (git_revwalk_new(&walk, src->repo) < 0) {
		err = ss_error_set("cannot walk history of '%s': %s", src->path, git_msg());
		goto out_walk;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE);
	for (i = 0; i < nrevs; i++) {
		if (!revs[i] || !revs[i][0] || add_rev(walk, src->repo, revs[i]) < 0) {
			err = ss_error_code(SS_EINVALID, "bad revision '%s' in '%s': %s",
					    revs[i] ? revs[i] : "(null)", src->path,
					    revs[i] && revs[i][0] ? git_msg() : "empty revision");
			goto out_walk;
		}
	}
	while (!(err = git_revwalk_next(&oid, walk))) {
		if (src->noids == cap) {
			cap = cap ? cap * 2 : 1024;
			grown = realloc(src->oids, cap * sizeof(*grown));
			if (!grown) {
				err = ss_error_code(SS_ENOMEM, "out of memory walking '%s'", src->path);
				goto out_walk;
			}
			src->oids = grown;
		}
		git_oid_cpy(&src->oids[src->noids++], &oid);
	}
	if (err != GIT_ITEROVER) {
		err = ss_error_set("cannot walk history of '%s': %s", src->path, git_msg());
		goto out_walk;
	}
	err = 0;
out_walk:
	git_revwalk_free(walk);
	return err;
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
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 1)
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
	for (i = 0; i < n; i++) {
		src->workers[i].src = src;
		if ((err = open_repo(&src->workers[i].repo, src->path)) < 0)
			goto out_stop;
	}
	for (i = 0; i < n; i++) {
		struct worker *w = &src->workers[i];

		if ((err = pthread_create(&w->thread, NULL, worker_main, w))) {
			err = ss_error_set("cannot start readers for '%s': %s", src->path,
					   strerror(err));
			goto out_stop;
		}
		w->started = 1;
	}
	return 0;
out_stop:
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
		return ss_error_set("cannot initialise libgit2: %s", git_msg());
	src = calloc(1, sizeof(*src));
	if (!src || !(src->path = strdup(repo))) {
		free(src);
		git_libgit2_shutdown();
		return ss_error_code(SS_ENOMEM, "out of memory opening '%s'", repo);
	}
	src->with_diff = opts->with_diff;
	src->max_lines = opts->max_lines;
	src->stats = stats;
	if ((err = open_repo(&src->repo, repo)) < 0 ||
	    (err = walk_history(src, opts)) < 0 ||
	    (err = start_workers(src, worker_count(src))) < 0)
		goto out_free;
	ops->next = git_next;
	ops->free = git_source_free;
	*out = src;
	return 0;
out_free:
	git_source_free(src);
	return err;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ss_git_branches(char ***out, size_t *n, const char *repo, const char *glob)
{
	git_repository *r = NULL;
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;
	char **names = NULL, **grown;
	size_t count = 0, cap = 0;
	const char *name;
	int err;

	*out = NULL;
	*n = 0;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", git_msg());
	if ((err = open_repo(&r, repo)) < 0)
		goto out_free;
	if (git_branch_iterator_new(&it, r, GIT_BRANCH_ALL) < 0) {
		err = ss_error_set("cannot list branches of '%s': %s", repo, git_msg());
		goto out_free;
	}
	while (!(err = git_branch_next(&ref, &type, it))) {
		/* origin/HEAD is an alias, not a branch */
		if (git_reference_type(ref) != GIT_REFERENCE_DIRECT ||
		    git_branch_name(&name, ref) < 0 ||
		    (glob && fnmatch(glob, name, 0) != 0)) {
			git_reference_free(ref);
			continue;
		}
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				git_reference_free(ref);
				err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'",
						    repo);
				goto out_free;
			}
			names = grown;
		}
		names[count] = strdup(name);
		git_reference_free(ref);
		if (!names[count]) {
			err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'", repo);
			goto out_free;
		}
		count++;
	}
	if (err != GIT_ITEROVER) {
		err = ss_error_set("cannot list branches of '%s': %s", repo, git_msg());
		goto out_free;
	}
	err = 0;
	if (count)
		qsort(names, count, sizeof(*names), cmp_names);
	*out = names;
	*n = count;
	names = NULL;
	count = 0;
out_free:
	ss_git_free_names(names, count);
	git_branch_iterator_free(it);
	git_repository_free(r);
	git_libgit2_shutdown();
	return err;
}

void ss_git_free_names(char **names, size_t n)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
