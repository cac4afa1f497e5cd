/*
 * histidx.h - a bug's history: which commit a fix fixes, and whether that
 * commit ever reached a release before the fix.
 *
 * A fix for a bug born in the same release cycle is not stable material:
 * among DPDK commits tagged for stable, those whose Fixes: target was under
 * 90 days old reached stable about 57% of the time, against 91% for targets
 * older than 180 days.  This module gives those facts:
 *
 *  - ss_histidx: an index over the commits of a run (sources being read and
 *    extra --history sources), built once: id -> time, subject, whether
 *    the commit is itself a fix or a revert, and its position in its
 *    source.  Abbreviated ids are looked up by prefix, ambiguity included.
 *    A repository may be attached: ids the index does not know are then
 *    looked up there, and blame works.
 *  - ss_releases: release tags and dates, from a "tag sha date" TSV or
 *    from a repository's tags; with a repository, also the first release
 *    that contains each commit (from the commit graph).
 *  - ss_blame_introducers(): for a fix without Fixes: (git only), the
 *    commits that last touched the lines the fix removes or changes (SZZ).
 *  - ss_histidx_resolve(): all of it for one commit, as a struct of facts
 *    (ss_histidx_facts) meant to become model features.
 *
 * Names: src/features/history.h already owns ss_history_*, so this module
 * is ss_histidx_* (the index and the resolver), ss_releases_*, ss_blame_*.
 *
 * Nothing here prints.  Functions return 0 or a negative SS_* code with the
 * message set (util/error.h); a target that is not found, or is ambiguous,
 * is a fact, not an error.
 *
 * Threads: a look-up sorts the commits added since the last sort when
 * there are more than about sqrt(n) of them (fewer are scanned one by one,
 * so that resolving each commit of a stream against the ones before it
 * stays cheap); ss_histidx_count() sorts them all.  After
 * ss_histidx_count() and no more adds, and with no repository attached,
 * lookups and resolves only read and may run concurrently.  With a
 * repository attached (libgit2 objects are not shareable), use one index
 * per thread.
 */
#ifndef SS_HISTORY_HISTORY_H
#define SS_HISTORY_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"
#include "source/git_repo.h"

/* ------------------------------------------------------------------ */
/* Releases. */

typedef struct {
	const char *tag;  /* "v21.11"; owned by the ss_releases */
	char sha[41];     /* the commit the tag names, 40 hex digits; "" when
			   * the releases table knows only tag and date */
	int64_t time;     /* TSV date, or the tagged commit's committer time */
} ss_release;

typedef struct ss_releases ss_releases;

/*
 * A release's version, the one rule of what names a release: an optional
 * "v", digits "." digits, optionally "." digits, optionally an rc form
 * ("-rc", "rc", "_rc" or ".rc", digits), nothing else ("v22.11",
 * "21.11.1", "v6.7-rc1", "v2.0.0").  Tag names (ss_release_version_parse)
 * may also have one part after a "v" ("v255") and a project's prefix of
 * letters, digits, '-' and '_' that starts with a letter, has two letters
 * at least and ends in '-' or '_' ("llvmorg-17.0.1", "name-4.20.0",
 * "udev-182"; not "v239-10"; one part only of at most 4 digits, so not
 * "next-20240101"), with '_' between the parts
 * ("curl-8_5_0"); text then joins the parts with '.'.  The parts are kept
 * as written ("03" of "22.03") in NUL-terminated digit strings.
 */
typedef struct {
	char major[8], minor[8], patch[8]; /* patch "" when there are two parts */
	int rc;                             /* N of "-rcN", 0 when none */
	char text[32];                      /* "22.11.1": the version without "v" and "-rc" */
} ss_release_version;

/* 0 and *out filled when name is a release version, SS_EINVALID when not. */
int ss_release_version_parse(ss_release_version *out, const char *name);

/*
 * The same for a release commit's subject: "version: 21.11.0" (DPDK),
 * "Linux 6.6.12" (the kernel), "version 2.2.0"; the word is matched without
 * regard to case, the version ends the subject or is followed by white
 * space.  SS_EINVALID when subject names no release.
 */
int ss_release_version_of_subject(ss_release_version *out, const char *subject);

/*
 * A mainline release, as opposed to a stable point release or a release
 * candidate: no "-rc", and no third part or a third part of zeros
 * ("v22.11", "22.11.0", "v6.6", "v2.0.0"; not "v22.11.1", "v6.6.12",
 * "v6.7-rc1").
 */
int ss_release_version_is_mainline(const ss_release_version *v);

/*
 * Releases from a TSV file (ss_releases_load_tsv), indexed with the
 * repository's graph when repo is given too; else from repo's tags
 * (ss_releases_from_repo with glob).  The one route of --releases and
 * --release-tags.  SS_EINVALID with a message when neither is given.
 */
int ss_releases_load(ss_releases **out, const char *file, const char *repo, const char *glob);

/*
 * Read a TSV with a header line and "tag<TAB>sha<TAB>date" rows (date in
 * seconds since the epoch), as ../shared/data/dpdk/releases.tsv.  Rows
 * whose tag contains "-rc" are left out.  Releases are kept oldest first.
 * A sha of "-" means unknown (the release is placed by its date only; its
 * sha is ""), as in the project's data/linux-releases.tsv.
 */
int ss_releases_load_tsv(ss_releases **out, const char *path);

/* The same from text[0..len) (name for messages). */
int ss_releases_parse_tsv(ss_releases **out, const char *text, size_t len, const char *name);

/*
 * The Linux kernel's mainline releases (v4.0 ... v6.17, dates of public
 * record, shas unknown), data/linux-releases.tsv built into the binary:
 * what the history uses for kernel commits when no releases are given
 * (features/history.h).  0 or SS_ENOMEM.
 */
int ss_releases_linux(ss_releases **out);

/*
 * The tags of the repository at repo whose name matches the fnmatch(3)
 * glob (NULL: names that start with a digit or "v" and a digit), always
 * leaving out "-rc" tags unless glob itself mentions "rc".  Each tag is
 * peeled to its commit; its date is the commit's committer time.  Then
 * ss_releases_index_repo() is run, so the result knows the graph.
 */
int ss_releases_from_repo(ss_releases **out, const char *repo, const char *glob);

/*
 * The same tags without the graph (no walk of the history): what they are
 * and which commit each names, for a caller that only compares them or
 * indexes a subset with ss_releases_index_repo().
 */
int ss_releases_tags(ss_releases **out, const char *repo, const char *glob);
/* The same in the repository of the handle repo (messages name its path). */
int ss_releases_tags_repo(ss_releases **out, ss_repo *repo, const char *glob);

/*
 * Learn from the repository at repo which release first contains each
 * commit: releases are walked oldest first, each hiding all older ones, so
 * a commit is listed under the oldest (by date) release whose commit
 * descends from it, which is what git_graph_descendant_of() against every
 * tag would say, in one walk of the history.  Release shas that are not in
 * the repository are skipped.  Replaces an earlier index.
 */
int ss_releases_index_repo(ss_releases *r, const char *repo);

/*
 * The same knowledge from elsewhere (a project index that recorded each
 * commit's first release): sha (40 hex digits) is first contained in
 * release rel (an index of r).  After the last add, ss_releases_graph_finish()
 * sorts what was added and gives r its graph (replacing an earlier one).
 * SS_EINVALID for a bad sha or rel, SS_ENOMEM.
 */
int ss_releases_graph_add(ss_releases *r, const char *sha, size_t rel);
int ss_releases_graph_finish(ss_releases *r);

/* An empty set of releases, to be filled with ss_releases_add(). */
int ss_releases_new(ss_releases **out);

/*
 * Add a release (tag copied, sha 40 hex digits, or "" when unknown: placed
 * by date only), keeping releases oldest first; a sha already listed is
 * skipped.  For releases met as commits of
 * a stream ("version: 21.11.0").  SS_EINVALID when r has a graph (its
 * indices would move) or sha is not 40 hex digits; 0 or SS_ENOMEM.
 */
int ss_releases_add(ss_releases *r, const char *tag, const char *sha, int64_t time);

size_t ss_releases_count(const ss_releases *r);           /* NULL: 0 */
const ss_release *ss_releases_get(const ss_releases *r, size_t i); /* oldest first */
int ss_releases_has_graph(const ss_releases *r);          /* index_repo ran */

/*
 * Index of the oldest release containing the commit sha (40 hex digits):
 * 0 and *out set, SS_ENOTFOUND when no release contains it (or the graph
 * does not know the commit), SS_EINVALID when r has no graph.
 */
int ss_releases_first_containing(size_t *out, const ss_releases *r, const char *sha);

void ss_releases_free(ss_releases *r); /* NULL is a no-op */

/* ------------------------------------------------------------------ */
/* The history index. */

typedef struct ss_histidx ss_histidx;

/* One commit as the index knows it.  Strings belong to the index. */
typedef struct {
	char id[41];          /* 40 hex digits, lower case */
	const char *subject;  /* never NULL */
	int64_t time;         /* committer time, or author time when unknown (mail) */
	int has_fixes;        /* it has a Fixes: trailer itself */
	int is_revert;        /* it says "This reverts commit <sha>" */
	int from_repo;        /* found in the attached repository, not added */
} ss_histidx_commit;

int ss_histidx_new(ss_histidx **out);
void ss_histidx_free(ss_histidx *h); /* NULL is a no-op */

/*
 * Remember c: id, time, subject, Fixes:/revert flags, and c->source and
 * c->index (the position in its source, which gives release order for
 * mail sources).  c may be freed afterwards.  The first copy of an id wins
 * when the same commit is added twice.  0 or SS_ENOMEM.
 */
int ss_histidx_add_commit(ss_histidx *h, const ss_commit *c);

/*
 * Remember a commit known from a project index (src/index/) rather than
 * read: k->id (40 hex digits), subject, time, has_fixes and is_revert are
 * copied (from_repo is ignored).  Such an entry belongs to no source; the
 * releases' graph (ss_releases_graph_add()) is taken to know it, so a
 * target the graph places in no release was in none.  The first copy of
 * an id wins, as for ss_histidx_add_commit().  0 or SS_ENOMEM.
 */
int ss_histidx_add_known(ss_histidx *h, const ss_histidx_commit *k);

/*
 * The ids that "This reverts commit <sha>" names in msg (lower case, 4 to
 * 40 hex digits): up to max go to ids; the number found is returned.  The
 * one rule of what a revert is, for the index and the resolver.
 */
size_t ss_histidx_revert_ids(char ids[][41], size_t max, const char *msg);

/*
 * Attach the repository at path: ids not among the added commits are
 * looked up there, ss_blame_introducers() and blaming in resolve work.
 * 0, or SS_ENOTFOUND when it cannot be opened.
 */
int ss_histidx_open_repo(ss_histidx *h, const char *path);

/* Attach r (a reference is taken: h shares the handle with whoever
 * opened it, without opening the repository again; NULL detaches). */
int ss_histidx_use_repo(ss_histidx *h, ss_repo *r);

/* Added commits, duplicates not counted (sorts like a look-up); NULL: 0. */
size_t ss_histidx_count(ss_histidx *h);

/*
 * The commits whose id starts with prefix (4 to 40 hex digits, any case):
 * the first max of them (at most 16) go to out, sorted by id, and the
 * number of matches is returned: 0 none, 1 found, > 1 ambiguous.  The added commits
 * are searched first; only when none matches, the attached repository.
 * SS_EINVALID when prefix is not 4 to 40 hex digits.
 */
int ss_histidx_lookup_prefix(ss_histidx_commit *out, size_t max, ss_histidx *h,
			     const char *prefix);

/*
 * Resolve a revision (sha, tag, "HEAD~2") in the attached repository to
 * its commit id and number of parents.  SS_ENOTFOUND when unknown or no
 * repository is attached.
 */
int ss_histidx_rev_parse(char out[41], size_t *nparents, ss_histidx *h, const char *rev);

/* ------------------------------------------------------------------ */
/* Blame (SZZ). */

typedef struct {
	char id[41];       /* the commit that last touched the lines */
	int64_t time;      /* its committer time */
	size_t lines;      /* blamed lines it owns */
	double weight;     /* removed lines count 1, context lines 1/2 */
	double confidence; /* weight / weight of all blamed lines, in (0, 1] */
} ss_blame_candidate;

/*
 * Blame, at the fix's first parent, the lines fix removes or changes (for
 * a hunk that only adds, the nearest non-trivial context line on each
 * side, at half weight); blank and brace-only lines are skipped.  The
 * commits owning them are the candidates, most recent first: up to max go
 * to out, *n says how many were kept.  Needs an attached repository that
 * has fix, and fix read with its diff; a root commit, a commit that only
 * adds files, or one read without diff gives *n == 0.
 */
int ss_blame_introducers(ss_blame_candidate *out, size_t max, size_t *n,
			 ss_histidx *h, const ss_commit *fix);

/* ------------------------------------------------------------------ */
/* Was the changed code in a release?  (hist_lines.c) */

typedef struct ss_histlines ss_histlines;

typedef struct {
	int checked;       /* a release tree was read (0: nothing is known) */
	size_t files;      /* files the commit modifies, renames or deletes */
	size_t files_old;  /* of them, those the release had */
	size_t lines;      /* lines checked: the non-trivial removed lines of
			    * each change block, or for a block that only
			    * adds, the nearest non-trivial context line on
			    * each side (the lines blame would look at) */
	size_t old;        /* of them, those whose trimmed text is a line of
			    * the file at the release */
} ss_histlines_facts;

/*
 * A reader of the repository at path (its own libgit2 handle: use one per
 * thread) that answers, for a commit read with its diff, how much of the
 * code it changes was in a release.  0, SS_ENOMEM, or SS_ENOTFOUND when
 * the repository cannot be opened.
 */
int ss_histlines_new(ss_histlines **out, const char *path);
/* The same on the repository of the handle r (a reference is kept until
 * ss_histlines_free(); r's thread only). */
int ss_histlines_new_repo(ss_histlines **out, ss_repo *r);
/* The same on a handle of its own that reads through the git source's
 * object store of cache bytes (ss_git_repo_open_stored()), keeping at
 * most lines line hashes (0: the default, 16 M): for a reader beside a
 * git source, whose memory it adds to. */
int ss_histlines_new_stored(ss_histlines **out, const char *path, size_t cache, size_t lines);
/* Read through repo (a handle of the same repository, borrowed: the
 * caller's thread's of a git source, ss_source_git_repo()) from now on,
 * until borrowed back with NULL, which must come before repo is freed. */
void ss_histlines_borrow(ss_histlines *hl, struct git_repository *repo);
void ss_histlines_free(ss_histlines *hl); /* NULL is a no-op */

/*
 * Fill *out for c against the tree of release commit release_sha (40
 * hex).  hl NULL, a release that cannot be read, or a commit without
 * diff: all zero, checked 0.  Files whose blob is missing or binary count
 * in files/files_old only.  0 or SS_ENOMEM.
 */
int ss_histlines_check(ss_histlines_facts *out, ss_histlines *hl, const char *release_sha,
		       const ss_commit *c);

/* ------------------------------------------------------------------ */
/* Facts about one commit. */

#define SS_HISTIDX_MAX_TARGETS 8

/* How a target was found.  Enum values only grow. */
typedef enum {
	SS_ORIGIN_FIXES_TAG = 0, /* a Fixes: <sha> ("subject") trailer */
	SS_ORIGIN_REVERT = 1,    /* "This reverts commit <sha>" */
	SS_ORIGIN_BLAME = 2      /* blame of the changed lines (SZZ) */
} ss_origin_how;

/* How "was it in release R" was decided.  Enum values only grow. */
typedef enum {
	SS_RELEASE_NONE = 0,  /* no releases known */
	SS_RELEASE_GRAPH = 1, /* exact: the release commit descends from it */
	SS_RELEASE_ORDER = 2, /* same mail source as the release commit: source
			       * order (topological for format-patch) */
	SS_RELEASE_DATE = 3   /* approximation by dates: some release date is
			       * >= the target's time and < the fix's time */
} ss_release_method;

typedef struct {
	ss_origin_how how;
	char written[41];      /* the id as written (lower case), or blamed id */
	const char *quoted;    /* the quoted subject, NULL if none; points into
				* the commit passed to resolve */
	size_t quoted_len;
	size_t nmatches;       /* commits the written id matched */
	int found;             /* resolved to exactly one commit */
	int ambiguous;         /* several matched and the subject did not pick one */
	int by_subject;        /* several matched; the quoted subject picked one */
	int subject_mismatch;  /* found, but the quoted subject is another one */
	ss_histidx_commit commit; /* valid when found */
	double confidence;     /* 1 for tags and reverts; the blame share */
	double age_days;       /* fix time - target time (may be < 0); -1 if not found */
	int released;          /* it was in a release before the fix */
	int first_release;     /* that release (index into releases), or -1 */
	int nreleases;         /* releases that carried it before the fix */
	int last_release;      /* the newest of them, or -1 */
	double shipped_days;   /* fix time - first release time, -1 if not released */
	ss_release_method method;
} ss_histidx_target;

/*
 * The facts, for a model: one row per commit.  "Primary" is the target the
 * summary is about: for Fixes: and reverts, the oldest found target (the
 * bug that lived longest decides whether users ever had it); for blame,
 * the most recent candidate (SZZ).  Numbers of a missing primary are -1.
 */
typedef struct {
	size_t nfixes_tags;    /* Fixes: trailers read (with a readable id) */
	size_t nreverts;       /* reverted ids named in the message */
	size_t ntargets;       /* entries in targets */
	size_t ndropped;       /* targets beyond SS_HISTIDX_MAX_TARGETS */
	ss_histidx_target targets[SS_HISTIDX_MAX_TARGETS];
	size_t nfound, nambiguous, nmismatch;
	int blamed;            /* targets came from blame */

	int primary;           /* index into targets, -1 when nothing found */
	int target_found;      /* primary >= 0 */
	char target[41];       /* primary's id, "" when none */
	double age_days;       /* primary's age at the fix */
	double confidence;     /* primary's confidence (0 when none) */
	int released_before_fix;  /* some found target was released before the fix */
	int first_release;     /* earliest first release over found targets, -1 */
	const char *first_release_tag; /* its tag, NULL; owned by the releases */
	int releases_since;    /* most releases any found target lived through */
	int last_release;      /* newest release before the fix that carried a
				* found target, -1 */
	int releases_before_fix;      /* releases before the fix, whatever it fixes */
	int last_release_before_fix;  /* the newest of them, -1 */
	double shipped_days;   /* fix time - first_release's time, -1 */
	int fix_of_fix;        /* some found target has Fixes: itself */
	int revert_of_released;/* a revert of a commit that was released */
	ss_release_method method; /* how the primary's release was decided */
	int64_t fix_time;      /* committer time, or author time when unknown */
} ss_histidx_facts;

typedef struct {
	int blame;             /* blame when there is no Fixes: and no revert;
				* needs a repository and the diff (0) */
	size_t blame_max;      /* blame candidates kept as targets (3) */
	int past_only;         /* a release counts only when its commit is among
				* the added commits or its date is not after the
				* fix's time: nothing from the commit's future (0) */
} ss_histidx_resolve_options;

#define SS_HISTIDX_RESOLVE_OPTIONS_INIT { 0, 3, 0 }

/*
 * Fill *out for commit: every Fixes: target (abbreviated ids checked
 * against the quoted subject, which also settles an ambiguous prefix),
 * every reverted commit, and, with opts->blame, the blame candidates when
 * there are none of those.  releases may be NULL (release facts are then
 * -1/0 and method NONE) and opts NULL (defaults).  When releases have a
 * graph and know the commit, release membership is exact; otherwise it
 * comes from the order of a mail source that holds the release commit, or
 * else from dates (see ss_release_method).  0, or < 0 on a repository
 * error (message set).  Pointers in *out live as long as commit, h and
 * releases.
 */
int ss_histidx_resolve(ss_histidx_facts *out, ss_histidx *h, const ss_commit *commit,
		       const ss_releases *releases, const ss_histidx_resolve_options *opts);

/*
 * Parse one Fixes: value: the id (4 to 40 hex digits, lower-cased into
 * id) and the quoted subject ("(\"subject\")", or "(subject)").  0, or
 * SS_EINVALID when the value does not start with an id.
 */
int ss_histidx_parse_fixes(char id[41], const char **subject, size_t *subject_len,
			   const char *value);

#endif
