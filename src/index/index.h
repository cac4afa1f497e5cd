/*
 * index.h - the project index: one persistent, incremental SQLite store
 * of a repository's commits, releases and backports (docs/index.md).
 *
 * ss_index_update() reads the mainline (HEAD's branch, or opts->mainline)
 * and the stable branches (opts->branches, or every other branch that
 * carries backport lines) with their diffs, and records for each commit
 * its patch id, people, times, subject, the trailers that matter and the
 * files it touches; the releases (mainline, stable point, -rc) and each
 * mainline commit's first mainline release; and the backports: which
 * branch commit carries which upstream commit, found from a backport line
 * (labels/upstream.h) or from equal patch ids.
 *
 * Each ref's indexed tip is recorded, so that the next update walks only
 * "new ^old".  Commits are written in transactions of opts->batch commits
 * and a ref's tip only with its last batch: an update killed at any point
 * leaves every batch either absent or whole, and the next update walks
 * the unfinished refs again (rows already there are kept).  An update
 * whose refs moved marks meta "pending" until it has set the first
 * releases, so that the next run completes that step too: interrupted at
 * any step, the next run writes what an uninterrupted one would have.
 *
 * What is read back is checked: an index that is damaged or hostile (ids
 * that are no ids, NULLs, missing tables, views for tables, a file cut
 * short) gives one error line naming the file (SS_EINVALID), or is read
 * safely (times clamped, text of any type read as text).
 *
 * The database records its schema version and the repository it was
 * built from (a mainline commit); an index of a newer schema, a file that
 * is no SQLite database, and an update from a repository that lacks that
 * commit are refused with a message.
 */
#ifndef SS_INDEX_H
#define SS_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "history/histidx.h"
#include "util/strbuf.h"

/* The schema version this code writes and reads; it only grows. */
#define SS_INDEX_SCHEMA 4

/* Every time read from an index lies within +-2^40 s of the epoch (some
 * 35,000 years): a damaged file's times are clamped into that, so that
 * the difference of two never overflows. */
#define SS_INDEX_TIME_LIMIT ((int64_t)1 << 40)

typedef struct ss_index ss_index;

typedef enum {
	SS_INDEX_READ = 0,  /* the file must exist; nothing is written */
	SS_INDEX_WRITE = 1  /* created (with its directory) when missing */
} ss_index_mode;

typedef struct {
	const char *repo;          /* the repository (required) */
	const char *mainline;      /* the mainline ref (NULL: found, labels/layout.h) */
	const char *branches;      /* fnmatch glob of stable branches (NULL: every
	                            * branch but the mainline carrying backport lines) */
	const char *releases;      /* "tag sha date" TSV of releases (NULL) */
	const char *release_tags;  /* glob of release tags (NULL: version-shaped tags) */
	size_t batch;              /* commits per transaction (1000) */
	/* progress report, may be NULL: what is being read, commits so far */
	void (*progress)(const char *what, size_t done, size_t total);
	/* the repository's layout (labels/layout.h) as the caller found it
	 * with mainline, branches and release_tags (NULL: found here) */
	const struct ss_layout_s *layout;
	/*
	 * The stored features' first part, made while the diffs are read
	 * (docs/index.md, "Stored features"; NULL: none): each mainline
	 * commit the update reads, with its diff, goes to part, whose bytes
	 * (none when it leaves out empty) are written into the temporary
	 * table feature_parts of ix's connection (never into the file: they
	 * live until the fill on the same connection reads them,
	 * ss_index_feature_parts_open()), with part_tag, which names what they
	 * are made for (required with part).  part_releases, when not NULL,
	 * gets the mainline releases the update planned, before its first
	 * batch (only when a ref moved).  A negative return stops the update.
	 */
	int (*part)(ss_strbuf *out, const ss_commit *c, void *ud);
	int (*part_releases)(const ss_releases *mainline, void *ud);
	/* when not NULL, gets the handle the mainline's commits are read with
	 * (ss_source_git_repo()) before its walk and NULL after it, before
	 * the handle is freed: part may read through it */
	void (*part_repo)(struct git_repository *repo, void *ud);
	const char *part_tag;
	void *part_ud;
} ss_index_options;

#define SS_INDEX_OPTIONS_INIT { NULL, NULL, NULL, NULL, NULL, 1000, NULL, NULL, \
				NULL, NULL, NULL, NULL, NULL }

/* What one update did. */
typedef struct {
	size_t commits;        /* commits added */
	size_t refs_walked;    /* refs whose tip moved (or that are new) */
	size_t backports;      /* backport rows added (lines and patch ids) */
	size_t releases;       /* releases in the index after the update */
	size_t skipped;        /* commits the reader could not read (SS_ESKIP) */
	size_t mail_reread;    /* mail sources read again from their start:
	                        * not the bytes read before (rewritten) */
	size_t repaired;       /* commits indexed while a blob of theirs was
	                        * missing (a partial clone), read whole now */
	size_t still_missing;  /* such commits whose blobs are still missing */
	char first_skip[256];  /* the first of them, "" when none */
} ss_index_stats;

/* "<gitdir>/stablesel/index.db" of the repository at repo (*out malloc'd). */
int ss_index_default_path(char **out, const char *repo);
/* The same for the repository of the handle r (not opened again). */
int ss_index_default_path_repo(char **out, ss_repo *r);

/*
 * Open the index at path.  SS_ENOTFOUND when it is missing in READ mode;
 * SS_EINVALID when the file is not a stablesel index (not a database, no
 * meta table) or has a newer schema, and in READ mode when its first
 * build did not finish (meta "incomplete", no table, an empty file: "run
 * 'stablesel index' again").  Messages name the file.
 *
 * WRITE reads what is there before it writes anything: only an empty file
 * or a blank database (no table, no user version or application id) is
 * made an index (marked "incomplete" until the first update finishes, in
 * one transaction that waits for another first build's); any other file
 * keeps every byte.  READ needs no write access: a reader that is not the
 * file's owner or cannot write its folder opens it immutable when no -wal
 * is beside it (no update running), and never makes -shm or -wal files
 * there.
 */
int ss_index_open(ss_index **out, const char *path, ss_index_mode mode);
/*
 * A handle is reference-counted: ss_index_share() adds one reference (ix
 * back; NULL for NULL) for a reader that borrows a run's connection and
 * frees it as if it were its own; each ss_index_free() drops one, the
 * last closes the connection.  NULL is a no-op.
 */
ss_index *ss_index_share(ss_index *ix);
void ss_index_free(ss_index *ix);

/*
 * Rewrite the file packed (SQLite's VACUUM), after a first build: its
 * tables were filled in the order of the history, not of their keys (the
 * commits' and the rows' ids), which leaves their pages about a tenth
 * empty (DPDK's 55.2 MB -> 49.9 MB in 0.4 s; bench/results/index-scale.md
 * for the kernel's size).  Needs the file to itself: while another
 * connection reads it, or on any other failure, the file stays as it was
 * (< 0, message set).  0 or < 0.
 */
int ss_index_compact(ss_index *ix);

/*
 * A first build that was refused: close ix (opened SS_INDEX_WRITE on
 * path) and, when it holds no commits, remove what the open made (the
 * file, a symlink's target but not the link, its -wal and -shm, and
 * made_dir when not NULL and empty).  An index that holds commits is only
 * closed.  Nothing is said.
 */
void ss_index_discard_first_build(ss_index *ix, const char *path, const char *made_dir);

/*
 * Read ix as it was at time t (seconds since the epoch; --as-of): from
 * then on every read of ix sees only the commits committed by t (their
 * trailers, files, branch memberships and feature rows with them), the
 * backports committed by t, the releases tagged by t and the review
 * decisions made by t.  The refs keep their tips of today (a branch's
 * tip as of t is the repository's to find).  Only on a handle opened
 * SS_INDEX_READ, once (SS_EINVALID otherwise); nothing is written to the
 * file: the cut is a set of temporary views over the tables, which SQLite
 * reads before the file's own tables of the same names.
 */
int ss_index_as_of(ss_index *ix, int64_t t);
/* The time ss_index_as_of() set on ix, 0 when none. */
int64_t ss_index_as_of_time(const ss_index *ix);

/*
 * 0 when the index is repo's (the repository has the commit the index was
 * first built from, meta.repository) or records no repository (an index
 * of mail); SS_EINVALID, naming both, when it is another repository's.
 * What readers check before they use an index with a repository.
 */
int ss_index_check_repository(ss_index *ix, const char *repo);
/* The same against the repository of the handle r (not opened again). */
int ss_index_check_repository_repo(ss_index *ix, ss_repo *r);

/*
 * Bring the index up to date with opts->repo (see above).  stats may be
 * NULL.  SS_EINVALID when the index was built from another repository.
 * What the update refuses before it writes (a commit the walk of a ref or
 * of the mainline releases cannot take, a releases file that cannot be
 * read, another repository) leaves the index as it was: the releases and
 * their graph are read before the first batch.
 */
int ss_index_update(ss_index *ix, const ss_index_options *opts, ss_index_stats *stats);

/*
 * *out: a hash of what updates wrote (meta, each ref's indexed tip, the
 * number of commits, releases, backports and branch rows), the same as
 * long as no update (nor a kept feature) changed the index; review
 * decisions are left out, so that deciding does not change it.  What a
 * result computed from the index is kept under (a review's ranking).
 */
int ss_index_state_hash(ss_index *ix, uint64_t *out);

/* *out: whether the index holds no commits, refs nor releases (a build
 * refused before its first batch left it so). */
int ss_index_is_empty(ss_index *ix, int *out);

/*
 * Bring an index of mail up to date with the mail sources specs[0..n)
 * (mboxes, maildirs; src/source/): their commits are its mainline, read
 * from where the last update of each source stopped (the decoded bytes
 * read and their crc32 are recorded per source: an mbox that grew at its
 * end is decoded up to there without parsing, and read from there; one
 * whose first bytes changed is read again from its start).  Releases come from opts->releases (a TSV,
 * replacing the index's), else from the release commits the mail holds
 * ("version: 21.11.0"); a mail index has no graph, so no first releases.
 * opts->repo, mainline, branches and release_tags are not used.
 * SS_EINVALID when ix is a repository's index.
 */
int ss_index_update_mail(ss_index *ix, const char *const *specs, size_t n,
			 const ss_index_options *opts, ss_index_stats *stats);

/*
 * The full id of the indexed commit that id (4 to 40 hex digits) names.
 * SS_ENOTFOUND when none; SS_EINVALID when id is not hex or is ambiguous
 * (the message lists the candidates).
 */
int ss_index_resolve(char out[41], ss_index *ix, const char *id);

/* One stable branch carrying a commit. */
typedef struct {
	char *branch;
	char commit[41];       /* the commit on the branch */
	char *how;             /* "backport line", "patch id", "stable-only" */
	int64_t time;          /* the branch commit's committer time */
} ss_index_carrier;

/* Where a commit went. */
typedef struct {
	char id[41];
	char *subject;
	char *first_release;   /* first mainline release, NULL when none */
	int mainline;          /* the commit is on the mainline */
	/* a stable branch's commit: the upstream commit it backports ("" when
	 * none is known), how it was found ("backport line", "patch id") and
	 * its subject; carriers are then the upstream's, this commit among them */
	char upstream[41];
	char *upstream_how;
	char *upstream_subject;
	ss_index_carrier *carriers; /* by branch (version order), then time */
	size_t ncarriers;
} ss_index_place;

/* Fill *out for the indexed commit id (40 hex digits).  SS_ENOTFOUND. */
int ss_index_where(ss_index_place *out, ss_index *ix, const char *id);
void ss_index_place_release(ss_index_place *p);

/* A release tag and the refs whose indexed commits hold its commit. */
typedef struct {
	char *tag;
	char *kind;            /* "mainline", "stable", "rc" */
	char commit[41];
	int64_t time;          /* the release's date as indexed */
	char *subject;         /* the commit's subject ("" when not indexed) */
	int mainline;          /* the commit is on the mainline */
	/* the mainline ref when it is a mainline commit, and each stable
	 * branch the index recorded it on (a stable branch's own commits:
	 * the stable branches that fork from the mainline after it are not
	 * known to the index; the caller may ask the repository) */
	char **branches;
	size_t nbranches;
} ss_index_tag_place;

/* Fill *out for release tag (as recorded).  SS_ENOTFOUND when the index
 * has no release of that name. */
int ss_index_where_tag(ss_index_tag_place *out, ss_index *ix, const char *tag);
void ss_index_tag_place_release(ss_index_tag_place *p); /* NULL is a no-op */

/* ------------------------------------------------------------------ */
/* Reading the index (index_read.c): what other commands prime their
 * history with, and the branches' backports.  Callbacks return 0 to go
 * on; the first non-zero return stops the walk and is returned.  Strings
 * handed to a callback live until it returns. */

/*
 * Every mainline commit, in no particular order, as the history knows a
 * commit (history/histidx.h): id, subject, time (committer time, else
 * author time), whether it has a Fixes: trailer and whether it is a revert.
 */
int ss_index_for_each_commit(ss_index *ix, int (*cb)(const ss_histidx_commit *c, void *ud),
			     void *ud);

/*
 * Every row of the files each commit changed (against its first parent,
 * a rename under its new path, a deletion under its old one): the
 * commit's id and the path, in no particular order.  A commit the index
 * holds has all its rows or, when it changed no file, none.
 */
int ss_index_for_each_file(ss_index *ix, int (*cb)(const char *commit, const char *path, void *ud),
			   void *ud);

/* Every path the mainline touched, with the earliest author time of the
 * mainline commits touching it. */
int ss_index_for_each_path(ss_index *ix, int (*cb)(const char *path, int64_t first, void *ud),
			   void *ud);

/*
 * The mainline releases (oldest first), with a graph for a repository's
 * index: each mainline commit's first release as the index recorded it
 * (ss_releases_first_containing() answers for it).  A mail index has no
 * graph: its releases place commits by date.  *out is the caller's.
 */
int ss_index_load_releases(ss_releases **out, ss_index *ix);

/* One stable-branch commit that carries an upstream commit. */
typedef struct {
	const char *upstream;    /* the mainline commit, 40 hex digits (NULL:
				    none, ss_index_for_each_branch_commit) */
	const char *branch;      /* "21.11" */
	const char *commit;      /* the branch's commit */
	const char *how;         /* "line" or "patch-id" (NULL with upstream) */
	int64_t time;            /* the branch commit's committer time */
	const char *patch_id;    /* the branch commit's patch id, 40 hex digits;
				    NULL when it has none, and always NULL from
				    ss_index_for_each_backport */
} ss_index_backport;

/* Every backport on a stable branch, oldest first. */
int ss_index_for_each_backport(ss_index *ix, int (*cb)(const ss_index_backport *b, void *ud),
			       void *ud);

/*
 * Every commit the index recorded on the stable branch named branch (a
 * ref of ss_index_for_each_ref), oldest first (committer time, then id):
 * once for each upstream commit it carries, or once with upstream and
 * how NULL when it carries none; patch_id filled.  What a branch carries
 * under any id (labels/carried.h), without reading its diffs again.
 */
int ss_index_for_each_branch_commit(ss_index *ix, const char *branch,
				    int (*cb)(const ss_index_backport *b, void *ud), void *ud);

/* One ref the index recorded. */
typedef struct {
	const char *name;   /* "main", "21.11", "origin/21.11", "mbox:PATH" */
	const char *tip;    /* the last indexed commit (mbox: messages read) */
	const char *kind;   /* "mainline", "stable", "other", "mbox" */
} ss_index_ref;

/* Every ref, by name. */
int ss_index_for_each_ref(ss_index *ix, int (*cb)(const ss_index_ref *r, void *ud), void *ud);

/*
 * The recorded tip of the first ref of kind ("mainline", "stable") and
 * its name (name may be NULL).  SS_ENOTFOUND when there is none.
 */
int ss_index_ref_tip(char out[41], ss_index *ix, const char *kind, char *name, size_t size);

/*
 * The layout an update recorded (index_layout.c): the mainline's ref to
 * read ("refs/heads/main", or what --mainline named) into buf ("" when
 * the index recorded none: an older index, or mail), and the role of a
 * branch ("stable", "staging", "end-of-life", "copy", "unnamed"; "stable"
 * when none was recorded).  0 or < 0 with the message set.
 */
int ss_index_mainline_ref(ss_index *ix, char *buf, size_t size);
int ss_index_branch_role(ss_index *ix, const char *branch, char *buf, size_t size);

/*
 * The layout of repo (labels/layout.h) found with o: the one the last
 * update kept (meta "layout", with the key of the refs it was found
 * from) when repo's refs, HEAD as far as it decided, the settings and o
 * are what they were then (ss_layout_key(), ss_layout_load()): no walk
 * of the history; else found again (ss_layout_find_repo()).  An update
 * with nothing new then costs the refs' read, not the history's walk
 * (docs/index.md, "Incremental").  0, or < 0 with the message set as
 * ss_layout_find_repo() sets it; *out for ss_layout_free().
 */
struct ss_repo;
struct ss_layout_options_s;
int ss_index_layout_find(struct ss_layout_s **out, ss_index *ix, struct ss_repo *repo,
			 const struct ss_layout_options_s *o);

/*
 * The same for the index at path when there is one, opened read-only
 * for the look (so that a layout that cannot be found refuses the update
 * before the index is opened to be written, as before); repo by path.
 * *out NULL (and 0) when the index keeps no layout for these refs, or
 * either cannot be read (finding the layout then says why); < 0 only
 * when out of memory.
 */
int ss_index_layout_kept(struct ss_layout_s **out, const char *path, const char *repo,
			 const struct ss_layout_options_s *o);

/* ------------------------------------------------------------------ */
/* Stored features (index_features.c; docs/index.md, "Stored features"):
 * each mainline commit's raw features (features/feat_store.h, opaque
 * bytes here) under a feature-set version, so that the project model
 * learns without reading a diff again.  Rows are written in
 * transactions of 1000; the mainline tip they reach is recorded with
 * the last (ss_index_features_finish), so an interrupted fill is
 * completed by the next.  Reading needs no write access; an index
 * without the table has no rows. */

/* A version name is shorter than this (features/feat_store.h). */
#define SS_INDEX_FEATURE_VERSION_SIZE 64

typedef struct ss_index_features ss_index_features;

/* Rows of version in ix (borrowed: it must outlive *out); write makes the
 * table when missing and allows _put and _finish. */
int ss_index_features_open(ss_index_features **out, ss_index *ix, const char *version,
			   int write);
void ss_index_features_free(ss_index_features *f); /* NULL is a no-op; an
						      * unfinished batch is dropped */

/* The row of commit id (40 hex digits): *data, *len live until the next
 * call on f.  SS_ENOTFOUND when there is none. */
int ss_index_features_get(ss_index_features *f, const char *id, const void **data, size_t *len);

/* Keep (or replace) the row of id; committed every 1000 rows (or as
 * ss_index_features_set_batch() says: 0 for 1000). */
int ss_index_features_put(ss_index_features *f, const char *id, const void *data, size_t len);
void ss_index_features_set_batch(ss_index_features *f, size_t batch);

/* Commit the rows put, with tip (may be NULL) as the mainline commit the
 * rows of this version reach. */
int ss_index_features_finish(ss_index_features *f, const char *tip);

/* The tip recorded for version into out ("" when none). */
int ss_index_features_tip(ss_index *ix, const char *version, char out[41]);

/* Drop an earlier build's rows (its text-keyed feature_rows) and the tips
 * they reached, for a fill to keep them again: *dropped, how many. */
int ss_index_features_upgrade(ss_index *ix, size_t *dropped);

/* Drop every row (and tip) whose version does not start with prefix:
 * another extractor's, never good again.  *dropped: rows dropped. */
int ss_index_features_drop_stale(ss_index *ix, const char *prefix, size_t *dropped);

/* The rows of version. */
int ss_index_features_count(ss_index *ix, const char *version, size_t *out);

/*
 * The parts ss_index_update() kept on this connection
 * (ss_index_options.part): read with ss_index_features_get() on *out
 * (NULL when there are none, or none under tag);
 * ss_index_features_finish() on the rows' writer drops them all once
 * ss_index_features_drop_parts() asked it to.
 */
int ss_index_feature_parts_open(ss_index_features **out, ss_index *ix, const char *tag);
void ss_index_features_drop_parts(ss_index_features *f);

#endif
