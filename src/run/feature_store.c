/*
 * feature_store.c - the project model's features kept in the project
 * index (feature_store.h; docs/index.md, "Stored features").
 *
 * Training the project model used to read every diff of the history
 * before the ranked commits (systemd: 61,000 commits, about a minute).
 * What the model learns from a commit is its raw features, which depend
 * on the commit and on the index's history and releases only: so
 * "stablesel index" extracts them once, with the history primed from the
 * index exactly as the training primes it (run/history_load.c:
 * ss_run_history_index_prime(), or a front end's ss_run_history_reader),
 * and keeps them under the
 * feature-set version (features/feat_store.h).  A training then walks
 * the history without diffs and takes each commit's row; when one is
 * missing (an index built before the store, another feature set,
 * --mask-stable-tags) it reads the diffs as before and keeps the rows it
 * extracts when the index can be written, so the next training finds
 * them.  A read-only index still ranks, reading the diffs, and says so.
 *
 * "stablesel index" does not read a diff for them (issue 38): while its
 * update reads each mainline commit with its diff, the groups that need
 * no history are extracted into a part (ss_run_feature_parts_new(), kept
 * by the index in a temporary table); the fill after the update walks the
 * commits alone and joins each part with the history of the whole index.
 */
#include "run/feature_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval/eval.h"
#include "features/feat_store.h"
#include "run/history_load.h"
#include "source/git.h"
#include "source/git_repo.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

/* The history walked through the front end's reader, else as a run
 * reads it. */
static int walk_history(const ss_run_history_reader *hr, const char *repo,
			const ss_source_options *so, ss_run_commit_fn fn, void *data,
			const ss_run_report *rp)
{
	return hr ? hr->walk(repo, so, fn, data, hr->ud)
		  : ss_run_history_walk(repo, so, fn, data, rp);
}

/* h primed from the index at db through the front end's reader, else as
 * a run primes it. */
static int prime_history(const ss_run_history_reader *hr, ss_history *h, const char *db,
			 const char *repo, const ss_run_report *rp)
{
	return hr ? hr->history(h, db, repo, hr->ud)
		  : ss_run_history_index_prime(h, db, repo, rp);
}

struct ss_run_feature_store {
	char *path;                  /* the index */
	char version[SS_FEAT_VERSION_SIZE];
	ss_feat_options fo;
	ss_index *rix;               /* read */
	ss_index_features *rows;     /* read */
	ss_index *wix;               /* written, opened at the first row kept */
	ss_index_features *wrows;
	int cannot_write;            /* said once */
	int mask_tag;                /* rows read with the stable tag's feature cleared */
	char walked[41];             /* a bottom whose every ancestor was read
				      * with its diff and kept ("": none) */
	size_t kept;                 /* rows kept by this training */
	ss_repo *repo;               /* the run's handle of repo_path (borrowed;
				      * NULL: each check opens its own) */
	const char *repo_path;
	ss_feat_raw raw;
	ss_strbuf buf;
};

/*
 * An index that may not be written: one whose file or folder grants
 * nobody write access is read-only data (as ../shared/data is), also for
 * root, whom the kernel would let write; else what access() says.  Out
 * of memory: -1.
 */
static int read_only(const char *path)
{
	char *dir = strdup(path), *slash;
	struct stat st;
	int ro = !stat(path, &st) && !(st.st_mode & 0222);

	if (!dir)
		return -1;
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	else
		strcpy(dir, ".");
	ro = ro || (!stat(dir, &st) && !(st.st_mode & 0222)) || access(path, W_OK) ||
	     access(dir, W_OK);
	free(dir);
	return ro;
}

static void version_of(char *out, const ss_feat_options *fo, const ss_source_options *so)
{
	ss_feat_version(out, fo, so->mask_stable_tags, so->max_lines);
}

int ss_run_feature_store_open(ss_run_feature_store **out, ss_index *ix, char *path,
			      const ss_feat_options *fo, const ss_source_options *so)
{
	ss_run_feature_store *fs;

	*out = NULL;
	if (!(fs = calloc(1, sizeof(*fs)))) {
		ss_index_free(ix);
		free(path);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	fs->path = path;
	fs->rix = ix;
	fs->fo = *fo;
	ss_feat_raw_init(&fs->raw);
	fs->buf = (ss_strbuf)SS_STRBUF_INIT;
	version_of(fs->version, fo, so);
	if (ss_index_features_open(&fs->rows, ix, fs->version, 0)) {
		int rc = ss_run_fail(SS_ERROR, "cannot read the stored features of '%s'", path);

		ss_run_feature_store_close(fs, NULL);
		return rc;
	}
	*out = fs;
	return 0;
}

void ss_run_feature_store_close(ss_run_feature_store *fs, const ss_run_report *rp)
{
	if (!fs)
		return;
	if (fs->wrows && ss_index_features_finish(fs->wrows, fs->walked[0] && !fs->cannot_write ?
								     fs->walked : NULL))
		ss_run_say(rp, SS_RUN_WARNING,
			   "cannot keep the project model's features in '%s': %s", fs->path,
			   ss_error_last());
	ss_run_feature_store_drop(fs);
}

void ss_run_feature_store_drop(ss_run_feature_store *fs)
{
	if (!fs)
		return;
	ss_index_features_free(fs->wrows);
	ss_index_free(fs->wix);
	ss_index_features_free(fs->rows);
	ss_index_free(fs->rix);
	ss_feat_raw_release(&fs->raw);
	ss_strbuf_release(&fs->buf);
	free(fs->path);
	free(fs);
}

struct reading {
	ss_run_feature_store *fs;
	ss_split_sink *sink;
	int64_t *newest;
	const ss_run_report *rp;
	size_t n;
	size_t absent;               /* commits the fill could not read */
	int damaged;                 /* a row that cannot be decoded */
	char why[256];               /* the first one's commit and what is wrong */
};

/* ss_split_add() with the features from the commit's row. */
static int read_one(ss_commit *c, void *data)
{
	struct reading *r = data;
	ss_split_sink *s = r->sink;
	const void *row;
	size_t len;
	int label = 0;

	ss_run_progress(r->rp, "reading the stored features to train the project model", ++r->n,
			0);
	if (c->author.time > *r->newest)
		*r->newest = c->author.time;
	s->seen++;
	if (s->before && c->author.time >= s->before) {
		ss_commit_free(c);
		return 0;
	}
	if (ss_index_features_get(r->fs->rows, c->id, &row, &len)) {
		/* the fill walked every ancestor of the bottoms: a commit it
		 * kept nothing of is one the diff read skips (a missing blob
		 * of a partial clone), which the training leaves out too */
		ss_error_clear();
		r->absent++;
		ss_commit_free(c);
		return 0;
	}
	if (ss_feat_raw_decode(&r->fs->raw, row, len)) {
		/* a value out of range too (NaN, 3e38): never trained on */
		snprintf(r->why, sizeof(r->why), "%.12s: %s", c->id, ss_error_last());
		ss_error_clear();
		r->damaged = 1;
		ss_commit_free(c);
		return 1;
	}
	if (r->fs->mask_tag)
		r->fs->raw.dense[SS_F_HAS_STABLE] = 0.0f;
	if (s->labels) {
		label = ss_labels_get(s->labels, c->id);
		s->unlisted += !ss_labels_known(s->labels, c->id);
	}
	s->rc = ss_dataset_add_raw(s->d, c, &r->fs->raw, label, s->part);
	ss_commit_free(c);
	if (s->rc)
		return 1;
	s->kept++;
	return 0;
}

void ss_run_feature_store_use_repo(ss_run_feature_store *fs, const char *path, ss_repo *r)
{
	if (fs) {
		fs->repo = r;
		fs->repo_path = path;
	}
}

/* repo's handle: the run's when it is that repository (*own 0), else
 * one opened as given (*own 1, the caller frees it). */
static int repo_of(ss_repo **out, int *own, ss_run_feature_store *fs, const char *repo)
{
	*own = !(fs->repo && fs->repo_path && !strcmp(fs->repo_path, repo));
	if (!*own) {
		*out = fs->repo;
		return 0;
	}
	return ss_repo_open_as_given(out, repo);
}

/* Whether the rows hold every ancestor of each of hso's revisions (the
 * bottoms): the recorded tip of the fill has each in its history. */
static int covers(ss_run_feature_store *fs, const char *repo, const ss_source_options *hso)
{
	char tip[41], id[41];
	ss_repo *r = NULL;
	size_t i;
	int yes = 0, own = 1;

	/* one open for every bottom, as given (ss_git_resolve()'s way) */
	if (ss_index_features_tip(fs->rix, fs->version, tip) || !tip[0] ||
	    repo_of(&r, &own, fs, repo)) {
		ss_error_clear();
		return 0;
	}
	for (i = 0; i < hso->nrevs; i++) {
		const char *rev = hso->revs[i];

		if (rev[0] == '^' || strstr(rev, "..") || ss_repo_resolve(id, r, rev) ||
		    ss_repo_contains(&yes, r, tip, id) || !yes) {
			ss_error_clear();
			if (own)
				ss_repo_free(r);
			return 0;
		}
	}
	if (own)
		ss_repo_free(r);
	return hso->nrevs > 0;
}

int ss_run_feature_store_read(int *got, ss_run_feature_store *fs, const char *repo,
			      const ss_source_options *hso, const ss_run_history_reader *hr,
			      ss_split_sink *sink, size_t max, int64_t *newest,
			      const ss_run_report *rp)
{
	long dropped = 0;
	struct reading r = { fs, sink, newest, rp, 0, 0, 0, "" };
	ss_source_options so = *hso;
	int ro, rc;

	*got = 0;
	if (!covers(fs, repo, hso)) {
		if ((ro = read_only(fs->path)) < 0)
			return ss_error_code(SS_ENOMEM, "out of memory");
		if (ro) {
			fs->cannot_write = 1;
			ss_run_say(rp, SS_RUN_NOTE,
				   "index '%s' keeps no features of the history before the ranked "
				   "commits for this feature set and cannot be written: the project "
				   "model reads every diff of it (slower)", fs->path);
		}
		return 0;
	}
	/* the diffs are what the rows spare */
	so.with_diff = 0;
	/* past the newest max (and a quarter for the merges the walk
	 * lists), nothing is read: not the commits, not their rows; of
	 * those read, the newest max stay (the walk is oldest first) */
	if (max)
		so.newest = max + max / 4;
	/* a failed walk's message goes back as it is */
	if ((rc = walk_history(hr, repo, &so, read_one, &r, rp)))
		return rc;
	if (!sink->rc && max && (dropped = ss_dataset_keep_last(sink->d, max)) < 0)
		sink->rc = (int)dropped;
	ss_run_progress_done(rp);
	if (sink->rc)
		return ss_run_fail(sink->rc, "cannot featurize commits");
	if (r.damaged) {
		ss_run_say(rp, SS_RUN_NOTE,
			   "index '%s' keeps a damaged feature row (%s): the project model reads "
			   "the diffs (and keeps the rows again)", fs->path, r.why);
		*got = -1;
		return 0;
	}
	if (dropped > 0)
		ss_run_say(rp, SS_RUN_INFO, "the project model reads the newest %zu commits of the "
			   "history before the ranked ones (at most %zu)", ss_dataset_count(sink->d),
			   max);
	if (r.absent)
		ss_run_say(rp, SS_RUN_WARNING,
			   "%zu commits of the history have no stored features (they could not "
			   "be read with their diffs) and are left out", r.absent);
	*got = 1;
	return 0;
}

void ss_run_feature_store_walked(ss_run_feature_store *fs, const char *repo,
				 const ss_source_options *hso)
{
	char tip[41];
	ss_repo *r = NULL;
	int yes = 0, own = 1;

	if (!fs)
		return;
	if (hso->nrevs != 1 || strstr(hso->revs[0], "..") || hso->revs[0][0] == '^' ||
	    repo_of(&r, &own, fs, repo) || ss_repo_resolve(fs->walked, r, hso->revs[0])) {
		fs->walked[0] = '\0';
		ss_error_clear();
		if (own)
			ss_repo_free(r);
		return;
	}
	/* the recorded tip only moves forward: a bottom off its line (a
	 * stable branch's commit) would hide the rows it reaches */
	if (ss_index_features_tip(fs->rix, fs->version, tip) ||
	    (tip[0] && (ss_repo_contains(&yes, r, fs->walked, tip) || !yes))) {
		fs->walked[0] = '\0';
		ss_error_clear();
	}
	if (own)
		ss_repo_free(r);
}

/* A row that cannot be kept: said once, none is tried again. */
static int cannot_keep(ss_run_feature_store *fs, const ss_run_report *rp)
{
	ss_run_say(rp, SS_RUN_NOTE,
		   "cannot keep the project model's features in index '%s' (%s): the next "
		   "training reads the diffs again", fs->path, ss_error_last());
	ss_error_clear();
	fs->cannot_write = 1;
	return 0;
}

int ss_run_feature_store_keep(ss_run_feature_store *fs, const ss_dataset *d,
			      const ss_run_report *rp)
{
	const ss_feat_raw *raw = ss_dataset_last_raw(d);
	size_t n = ss_dataset_count(d);

	if (!fs || !raw || !n || fs->cannot_write)
		return 0;
	if (!fs->wrows &&
	    (ss_index_open(&fs->wix, fs->path, SS_INDEX_WRITE) ||
	     ss_index_features_open(&fs->wrows, fs->wix, fs->version, 1)))
		return cannot_keep(fs, rp);
	ss_strbuf_reset(&fs->buf);
	if (ss_feat_raw_encode(&fs->buf, raw))
		return ss_error_code(SS_ENOMEM, "out of memory");
	if (ss_index_features_put(fs->wrows, ss_dataset_example(d, n - 1)->id, fs->buf.buf,
				  fs->buf.len))
		return cannot_keep(fs, rp);
	fs->kept++;
	return 0;
}

void ss_run_feature_store_mask_tag(ss_run_feature_store *fs)
{
	fs->mask_tag = 1;
}

size_t ss_run_feature_store_kept(const ss_run_feature_store *fs)
{
	return fs ? fs->kept : 0;
}

/* ---- filled by "stablesel index" ------------------------------------- */

/* What the parts an update keeps are made for: the feature set, and the
 * walk of the fill that joins them (the mainline at tip, down to the
 * rows' recorded tip done): a commit's merge comes from its walk. */
static void parts_tag(char *out, size_t size, const char *version, const char *tip,
		      const char *done)
{
	snprintf(out, size, "%s %s %s", version, tip, done[0] ? done : "-");
}

struct ss_run_feature_parts {
	ss_feat_options fo;
	ss_history *h;               /* the releases planned, the repository */
	ss_feat_raw raw;
	char tag[SS_FEAT_VERSION_SIZE + 96];
	char *repo;
};

static void part_repo(struct git_repository *repo, void *ud)
{
	ss_run_feature_parts *p = ud;

	ss_history_borrow_repo(p->h, repo);
}

/*
 * The update will read: the releases relcode checks against, and the
 * repository (opened only now: an update with nothing new opens none).
 * Its blobs are read through the handle of the walk's own reader
 * (part_repo), whose object store has just built most of them (a file's
 * version at the last release is the old side of the first commit after
 * it that changes the file): 11 s of CPU -> 1 s on DPDK, and no store
 * of its own beside the reader's.  The line hashes kept are bounded
 * (PART_LINES: 16 MB; the blobs they come from are read again at no
 * great cost); the repository's own store (PART_CACHE) is only read
 * between walks, which extract nothing.
 */
#define PART_CACHE ((size_t)1 << 20)
#define PART_LINES ((size_t)2 << 20)

static int part_releases(const ss_releases *mainline, void *ud)
{
	ss_run_feature_parts *p = ud;
	int rc;

	ss_history_set_releases(p->h, mainline);
	if ((rc = ss_history_open_repo_bounded(p->h, p->repo, PART_CACHE, PART_LINES)))
		return rc;
	return 0;
}

/* ss_index_options.part: every group that needs no history. */
static int part_of(ss_strbuf *out, const ss_commit *c, void *ud)
{
	ss_run_feature_parts *p = ud;
	size_t marks[2];
	int rc;

	if ((rc = ss_feat_extract_own(&p->raw, marks, c, p->h, &p->fo)) ||
	    (rc = ss_feat_part_encode(out, &p->raw, marks, ss_history_release_before(p->h, c), c)))
		return rc == SS_ENOMEM ? ss_error_code(rc, "out of memory") : rc;
	return 0;
}

int ss_run_feature_parts_new(ss_run_feature_parts **out, ss_index *ix, const char *repo,
			     const char *mtip, ss_index_options *opts)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	ss_run_feature_parts *p;
	char version[SS_FEAT_VERSION_SIZE], done[41], old[41];
	int rc;

	*out = NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	p->fo = (ss_feat_options)SS_FEAT_OPTIONS_INIT;
	ss_feat_raw_init(&p->raw);
	version_of(version, &p->fo, &so);
	if (ss_index_ref_tip(old, ix, "mainline", NULL, 0)) {
		ss_error_clear();
		old[0] = '\0';
	}
	if ((rc = ss_index_features_tip(ix, version, done)))
		goto fail;
	/* the fill walks from the rows' tip; the update from the mainline's:
	 * only the same walk gives each commit the same merge */
	if (strcmp(done, old)) {
		ss_run_feature_parts_free(p);
		return 0;
	}
	parts_tag(p->tag, sizeof(p->tag), version, mtip, done);
	if ((rc = ss_history_new(&p->h)))
		goto fail;
	if (!(p->repo = strdup(repo))) {
		rc = ss_error_code(SS_ENOMEM, "out of memory");
		goto fail;
	}
	opts->part = part_of;
	opts->part_releases = part_releases;
	opts->part_repo = part_repo;
	opts->part_tag = p->tag;
	opts->part_ud = p;
	*out = p;
	return 0;

fail:
	ss_run_feature_parts_free(p);
	return rc;
}

void ss_run_feature_parts_free(ss_run_feature_parts *p)
{
	if (!p)
		return;
	ss_history_free(p->h);
	ss_feat_raw_release(&p->raw);
	free(p->repo);
	free(p);
}

struct filling {
	ss_history *h;
	ss_index_features *rows;
	ss_index_features *parts;    /* the update's (NULL: none) */
	const ss_feat_options *fo;
	const ss_run_report *rp;
	ss_feat_raw raw, tmp;
	ss_strbuf buf, paths;
	const char **pathv;
	size_t pathcap;
	size_t n, extracted, joined, missing;
	int rc;
};

/* As ss_dataset_add() does: extract against the past, then join it. */
static int fill_one(ss_commit *c, void *data)
{
	struct filling *f = data;
	const void *row;
	size_t len;

	ss_run_progress(f->rp, "keeping the features the project model learns from", ++f->n, 0);
	if (ss_index_features_get(f->rows, c->id, &row, &len) ||
	    ss_feat_raw_decode(&f->raw, row, len)) {
		ss_error_clear();
		ss_strbuf_reset(&f->buf);
		if ((f->rc = ss_feat_extract(&f->raw, c, f->h, f->fo)) ||
		    (f->rc = ss_feat_raw_encode(&f->buf, &f->raw)) ||
		    (f->rc = ss_index_features_put(f->rows, c->id, f->buf.buf, f->buf.len)))
			goto free_commit;
		f->extracted++;
	}
	f->rc = ss_history_add(f->h, c);

free_commit:
	ss_commit_free(c);
	return f->rc != 0;
}

/* c's part (read without its diff) joined with the history into its row,
 * as fill_one() extracts it; 1: c has no good part (its diff is read). */
static int join_part(struct filling *f, ss_commit *c)
{
	size_t marks[2], npaths, i;
	char release[41];
	const char *sha, *p;
	const void *part;
	size_t len;

	if (ss_index_features_get(f->parts, c->id, &part, &len) ||
	    ss_feat_part_decode(&f->raw, marks, release, &f->paths, &npaths, part, len)) {
		ss_error_clear();
		return 1;
	}
	/* relcode checked c against the releases the update planned: the
	 * same release as the index's, or the part is of no use */
	sha = ss_history_release_before(f->h, c);
	if (strcmp(release, sha ? sha : ""))
		return 1;
	if (SS_GROW(f->pathv, npaths + 1, f->pathcap))
		return ss_error_code(SS_ENOMEM, "out of memory");
	for (i = 0, p = f->paths.buf; i < npaths; i++, p += strlen(p) + 1)
		f->pathv[i] = p;
	ss_strbuf_reset(&f->buf);
	if ((f->rc = ss_feat_extract_past(&f->raw, marks, c, f->pathv, npaths, f->h, f->fo,
					  &f->tmp)) ||
	    (f->rc = ss_feat_raw_encode(&f->buf, &f->raw)) ||
	    (f->rc = ss_index_features_put(f->rows, c->id, f->buf.buf, f->buf.len)))
		return -1;
	f->joined++;
	/* as ss_history_add() with c's files */
	for (i = 0; i < npaths; i++)
		if ((f->rc = ss_history_add_path(f->h, f->pathv[i], c->author.time)))
			return -1;
	return 0;
}

/* The walk without diffs: rows from the parts; a commit with neither a
 * row nor a good part is counted (the diffs are read for it after). */
static int fill_part(ss_commit *c, void *data)
{
	struct filling *f = data;
	const void *row;
	size_t len;
	int r = 0;

	ss_run_progress(f->rp, "keeping the features the project model learns from", ++f->n, 0);
	if (ss_index_features_get(f->rows, c->id, &row, &len) ||
	    ss_feat_raw_decode(&f->raw, row, len)) {
		ss_error_clear();
		if ((r = join_part(f, c)) < 0)
			goto free_commit;
		if (r) {
			/* no history of it: the diff walk after this one adds
			 * it, as a commit the index read (a commit the
			 * reader skipped is in neither walk) */
			f->missing++;
			goto free_commit;
		}
	}
	f->rc = ss_history_add(f->h, c);

free_commit:
	ss_commit_free(c);
	return f->rc != 0;
}

int ss_run_feature_store_fill(ss_index *ix, const char *db, const char *repo, size_t batch,
			      const ss_run_history_reader *hr, const ss_run_report *rp)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	struct filling f;
	const char *revs[2];
	char version[SS_FEAT_VERSION_SIZE], prefix[SS_FEAT_VERSION_SIZE], tip[41], done[41];
	char bottom[42], tag[SS_FEAT_VERSION_SIZE + 96];
	size_t dropped;
	double t0 = ss_now();
	int rc = 0;

	/* the feature set rank's project model learns with (run/project_rules.c) */
	version_of(version, &fo, &so);
	ss_feat_version_prefix(prefix);
	/* before the tip is read: the rows an earlier build kept reach it no more */
	if (ss_index_features_upgrade(ix, &dropped))
		return ss_run_fail(SS_ERROR, "cannot update the stored features of '%s'", db);
	if (dropped)
		ss_run_say(rp, SS_RUN_NOTE, "dropped the %zu stored feature rows an earlier build kept "
			   "by text: kept again now, keyed by number (once)", dropped);
	if (ss_index_features_drop_stale(ix, prefix, &dropped))
		return ss_run_fail(SS_ERROR, "cannot update the stored features of '%s'", db);
	if (dropped)
		ss_run_say(rp, SS_RUN_NOTE,
			   "dropped %zu stored feature rows of another feature extractor", dropped);
	if (ss_index_ref_tip(tip, ix, "mainline", NULL, 0)) {
		ss_error_clear();
		return 0;  /* an index of mail: no repository to read diffs from */
	}
	if (ss_index_features_tip(ix, version, done))
		return ss_run_fail(SS_ERROR, "cannot read '%s'", db);
	if (!strcmp(done, tip))
		return 0;
	memset(&f, 0, sizeof(f));
	f.fo = &fo;
	f.rp = rp;
	ss_feat_raw_init(&f.raw);
	ss_feat_raw_init(&f.tmp);
	f.buf = (ss_strbuf)SS_STRBUF_INIT;
	f.paths = (ss_strbuf)SS_STRBUF_INIT;
	if (ss_history_new(&f.h))
		return ss_error_code(SS_ENOMEM, "out of memory");
	if ((rc = prime_history(hr, f.h, db, repo, rp)))
		goto out;
	parts_tag(tag, sizeof(tag), version, tip, done);
	if (ss_index_feature_parts_open(&f.parts, ix, tag) ||
	    ss_index_features_open(&f.rows, ix, version, 1)) {
		rc = ss_run_fail(SS_ERROR, "cannot keep features in '%s'", db);
		goto out;
	}
	ss_index_features_set_batch(f.rows, batch);
	ss_index_features_drop_parts(f.rows);
	so.revs = revs;
	revs[0] = tip;
	so.nrevs = 1;
	if (done[0]) {
		/* the rows up to the last fill are there: only what came since */
		snprintf(bottom, sizeof(bottom), "^%s", done);
		revs[1] = bottom;
		so.nrevs = 2;
	}
	if (f.parts) {
		/* the diffs were read by the update: the commits alone now */
		so.with_diff = 0;
		if ((rc = walk_history(hr, repo, &so, fill_part, &f, rp)))
			goto out;
		so.with_diff = 1;
		if (!f.rc && f.missing) {
			/* the history again from the index, as the diff walk
			 * alone would have it */
			ss_history_free(f.h);
			if (ss_history_new(&f.h)) {
				f.h = NULL;
				rc = ss_error_code(SS_ENOMEM, "out of memory");
				goto out;
			}
			if ((rc = prime_history(hr, f.h, db, repo, rp)))
				goto out;
			f.n = 0;
		}
	}
	if (!f.rc && (!f.parts || f.missing) &&
	    (rc = walk_history(hr, repo, &so, fill_one, &f, rp)))
		goto out;
	ss_run_progress_done(rp);
	/* no statement may read the parts when the last transaction drops them */
	ss_index_features_free(f.parts);
	f.parts = NULL;
	if (f.rc || ss_index_features_finish(f.rows, tip)) {
		rc = ss_run_fail(SS_ERROR,
				 "cannot keep the features the project model learns from in '%s'",
				 db);
		goto out;
	}
	if (f.extracted && f.joined)
		ss_run_say(rp, SS_RUN_NOTE,
			   "kept the features of %zu commits for the project model in %.1fs (its "
			   "training reads no diff; %zu of them read with their diffs again)",
			   f.extracted + f.joined, ss_now() - t0, f.extracted);
	else if (f.extracted || f.joined)
		ss_run_say(rp, SS_RUN_NOTE,
			   "kept the features of %zu commits for the project model in %.1fs (its "
			   "training reads no diff)", f.extracted + f.joined, ss_now() - t0);
out:
	ss_index_features_free(f.parts);
	ss_index_features_free(f.rows);
	ss_history_free(f.h);
	ss_feat_raw_release(&f.raw);
	ss_feat_raw_release(&f.tmp);
	ss_strbuf_release(&f.buf);
	ss_strbuf_release(&f.paths);
	free(f.pathv);
	return rc;
}
