/*
 * features.h - from one commit to one sparse feature vector.
 *
 * The feature space is one flat index range (documented with every feature
 * in docs/features.md):
 *
 *   [0, SS_NDENSE)                   named features: code metrics, code
 *                                    constructs, counts of people, bots,
 *                                    trailers (the table below)
 *   [SS_NDENSE, +nvocab)             words of subject and body (trailers
 *                                    excluded), presence flags; the
 *                                    vocabulary is the most frequent words
 *                                    of the training commits
 *   [SS_NDENSE + nvocab, +2^bits)    open sets hashed: the subject's
 *                                    subsystem prefix, people, files and
 *                                    their directories at depths 1-3, the
 *                                    release lines a fixed bug shipped in,
 *                                    history flags ("h:fix_of_fix",
 *                                    "h:revert_of_released"), the bug's
 *                                    effects ("e:crash", "e:leak" ...)
 *
 * Extraction happens in two steps so that a vocabulary can be learnt from
 * training commits that were already freed: ss_feat_extract() turns a
 * commit into a raw form (dense values, hashes of open-set names, the
 * commit's words as strings), and an ss_featurizer (options + vocabulary,
 * both stored in model files) maps the raw form to the final vector.
 *
 * Everything that decides the index of a feature (the dense table order,
 * ss_hash64, the name prefixes hashed) is part of the model file format:
 * change it and the format version must change.
 */
#ifndef SS_FEATURES_H
#define SS_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"
#include "features/history.h"
#include "util/strmap.h"
#include "util/strbuf.h"

/* Feature groups, bits of ss_feat_options.groups.  Values only grow. */
enum {
	SS_FG_WORDS = 1u << 0,      /* words of subject and body, message length */
	SS_FG_SUBSYSTEM = 1u << 1,  /* "net/mlx5:" subject prefixes, hashed */
	SS_FG_METRICS = 1u << 2,    /* sizes and kinds of files */
	SS_FG_CONSTRUCTS = 1u << 3, /* C constructs in added and removed lines */
	SS_FG_PEOPLE = 1u << 4,     /* author, committer, trailer people, bots */
	SS_FG_PATHS = 1u << 5,      /* files and directories, hashed */
	SS_FG_TRAILERS = 1u << 6,   /* Fixes:, Link:, Closes:, Cc: stable ... */
	SS_FG_HISTORY = 1u << 7,    /* the bug's history: Fixes:/revert targets,
				     * releases, file ages (history.h) */
	SS_FG_EFFECTS = 1u << 8,    /* what the message says the bug did: crash,
				     * leak, hang, corruption ... ("e:", hashed) */
	SS_FG_TIMING = 1u << 9,     /* when it was committed: days from author to
				     * committer time, week of the release cycle
				     * ("t:", hashed) */
	SS_FG_SERIES = 1u << 10,    /* the patch's place in its series, from the
				     * message id of its Link: trailer ("l:") */
	SS_FG_MERGE = 1u << 11,     /* the pull request's merge that brought the
				     * commit in: its message's words ("m:",
				     * hashed) and size (git only) */
	SS_FG_RELCODE = 1u << 12,   /* was the changed code in the last release
				     * (named features only; a repository) */
	SS_FG_KEYS = 1u << 13,      /* the message's own "Key: value" lines
				     * anywhere in it ("k:", the key) and the
				     * places its links point to ("u:", host
				     * and first path part), hashed: a
				     * project's own trailer ("BUG: <url>")
				     * learnt from its history */
	SS_FG_ALL = (1u << 14) - 1,
	/* used unless --features says otherwise: the first eight, merge and
	 * relcode.
	 * effects, timing and series did not help on tip's validation slices
	 * (docs/features.md, "Levers tried on the kernel"); merge helped on
	 * systemd's (docs/scores.md, "Untagged stable material") and both are
	 * empty for mail; the project model chooses relcode on validation;
	 * keys: docs/scores.md, "Untagged stable material" */
	SS_FG_DEFAULT = ((1u << 8) - 1) | SS_FG_MERGE | SS_FG_RELCODE | SS_FG_KEYS
};

typedef struct {
	uint32_t vocab_size; /* words kept, most frequent first (10000) */
	uint32_t min_df;     /* a kept word is in at least this many training commits (2) */
	uint32_t hash_bits;  /* the hashed space has 2^hash_bits slots, 8..24 (14) */
	uint32_t groups;     /* SS_FG_* groups used (SS_FG_DEFAULT) */
} ss_feat_options;

#define SS_FEAT_OPTIONS_INIT { 10000, 2, 14, SS_FG_DEFAULT }

/*
 * The named (dense) features: X(ENUM, GROUP, "name", "what it measures").
 * Counts are log(1 + n); shares are fractions of the commit's files.
 * Order is part of the model file format: append only.
 */
#define SS_DENSE_FEATURES(X) \
	X(FILES, METRICS, "files", "files touched, log(1+n)") \
	X(HUNKS, METRICS, "hunks", "hunks, log(1+n)") \
	X(ADDED, METRICS, "lines_added", "lines added, log(1+n)") \
	X(REMOVED, METRICS, "lines_removed", "lines removed, log(1+n)") \
	X(FUNCS, METRICS, "functions", "distinct functions touched (hunk headers), log(1+n)") \
	X(FILES_NEW, METRICS, "files_new", "files created, log(1+n)") \
	X(FILES_DEL, METRICS, "files_deleted", "files deleted, log(1+n)") \
	X(SHARE_C, METRICS, "share_c", "share of files that are C sources (.c)") \
	X(SHARE_H, METRICS, "share_headers", "share of files that are headers (.h)") \
	X(SHARE_DOC, METRICS, "share_doc", "share of files under Documentation/ or doc/, or .rst/.txt/.md") \
	X(SHARE_DT, METRICS, "share_dt", "share of device-tree files (.dts, .dtsi, dt bindings)") \
	X(SHARE_BUILD, METRICS, "share_build", "share of Kconfig, Makefile, Kbuild, meson.build, *.mk files") \
	X(SHARE_TEST, METRICS, "share_test", "share of test files (selftests/, tools/testing/, app/test*)") \
	X(NULL_ADD, CONSTRUCTS, "null_added", "NULL/IS_ERR tests and !x tests in added lines") \
	X(NULL_DEL, CONSTRUCTS, "null_removed", "the same in removed lines") \
	X(IF_ADD, CONSTRUCTS, "if_added", "if statements in added lines") \
	X(IF_DEL, CONSTRUCTS, "if_removed", "if statements in removed lines") \
	X(ELSE_ADD, CONSTRUCTS, "else_added", "else branches in added lines") \
	X(ELSE_DEL, CONSTRUCTS, "else_removed", "else branches in removed lines") \
	X(RET_ADD, CONSTRUCTS, "return_added", "return statements in added lines") \
	X(RET_DEL, CONSTRUCTS, "return_removed", "return statements in removed lines") \
	X(GOTO_ADD, CONSTRUCTS, "goto_added", "goto statements in added lines") \
	X(GOTO_DEL, CONSTRUCTS, "goto_removed", "goto statements in removed lines") \
	X(ERRNO_ADD, CONSTRUCTS, "errno_added", "error codes (EINVAL, -ENOMEM ...) in added lines") \
	X(ERRNO_DEL, CONSTRUCTS, "errno_removed", "error codes in removed lines") \
	X(LOCK_ADD, CONSTRUCTS, "lock_added", "lock calls (spin/mutex/rcu/rw/down ...) in added lines") \
	X(LOCK_DEL, CONSTRUCTS, "lock_removed", "lock calls in removed lines") \
	X(UNLOCK_ADD, CONSTRUCTS, "unlock_added", "unlock calls in added lines") \
	X(UNLOCK_DEL, CONSTRUCTS, "unlock_removed", "unlock calls in removed lines") \
	X(LOCKBAL_ADD, CONSTRUCTS, "lock_imbalance_added", "|locks - unlocks| in added lines") \
	X(LOCKBAL_DEL, CONSTRUCTS, "lock_imbalance_removed", "|locks - unlocks| in removed lines") \
	X(FREE_ADD, CONSTRUCTS, "free_added", "free/put/release calls in added lines") \
	X(FREE_DEL, CONSTRUCTS, "free_removed", "free/put/release calls in removed lines") \
	X(BOUNDS_ADD, CONSTRUCTS, "bounds_added", "bounds and overflow checks in added lines") \
	X(BOUNDS_DEL, CONSTRUCTS, "bounds_removed", "bounds and overflow checks in removed lines") \
	X(WARN_ADD, CONSTRUCTS, "warn_added", "WARN_ON/BUG_ON/assertions in added lines") \
	X(WARN_DEL, CONSTRUCTS, "warn_removed", "WARN_ON/BUG_ON/assertions in removed lines") \
	X(BARRIER_ADD, CONSTRUCTS, "barrier_added", "memory barriers, READ_ONCE/WRITE_ONCE in added lines") \
	X(BARRIER_DEL, CONSTRUCTS, "barrier_removed", "memory barriers in removed lines") \
	X(REF_ADD, CONSTRUCTS, "refcount_added", "reference counting calls (refcount_*, kref_*, *refcnt*, *_ref*, *_hold, atomic inc/dec) in added lines") \
	X(REF_DEL, CONSTRUCTS, "refcount_removed", "reference counting in removed lines") \
	X(N_SOB, PEOPLE, "signed_off_by", "Signed-off-by trailers, log(1+n)") \
	X(N_REVIEWED, PEOPLE, "reviewed_by", "Reviewed-by trailers, log(1+n)") \
	X(N_ACKED, PEOPLE, "acked_by", "Acked-by trailers, log(1+n)") \
	X(N_TESTED, PEOPLE, "tested_by", "Tested-by trailers, log(1+n)") \
	X(N_SUGGESTED, PEOPLE, "suggested_by", "Suggested-by trailers, log(1+n)") \
	X(AUTHOR_COMMITS, PEOPLE, "author_is_committer", "author and committer are the same person") \
	X(BOT_SYZBOT, PEOPLE, "bot_syzbot", "syzbot reported it") \
	X(BOT_LKP, PEOPLE, "bot_kernel_test_robot", "the kernel test robot (lkp@intel.com) reported it") \
	X(BOT_COVERITY, PEOPLE, "bot_coverity", "Coverity found it (trailer or message)") \
	X(BOT_STATIC, PEOPLE, "bot_static_checker", "a static checker or fuzzing robot found it (smatch, sparse, coccinelle, Hulk/Abaci Robot, UBSAN/KASAN)") \
	X(HAS_FIXES, TRAILERS, "fixes_tag", "a Fixes: trailer") \
	X(N_FIXES, TRAILERS, "fixes_count", "Fixes: trailers, log(1+n)") \
	X(HAS_LINK, TRAILERS, "link_tag", "a Link: trailer") \
	X(HAS_CLOSES, TRAILERS, "closes_tag", "a Closes: trailer (or Bugzilla ID:)") \
	X(HAS_REPORTED, TRAILERS, "reported_by", "a Reported-by: trailer") \
	X(HAS_STABLE, TRAILERS, "cc_stable", "a Cc: stable@ trailer (always 0 when tags are masked)") \
	X(REVERT, WORDS, "revert", "the subject says Revert") \
	X(MSG_LINES, WORDS, "message_lines", "lines of the body, log(1+n)") \
	X(FIX_FOUND, HISTORY, "fixes_target_known", "a Fixes:/revert target is an earlier commit of the data (settled by id, or by the quoted subject when the id is ambiguous)") \
	X(FIX_UNKNOWN, HISTORY, "fixes_target_unknown", "a Fixes:/revert target is not in the data (older than it; an ambiguous id is neither)") \
	X(FIX_AGE, HISTORY, "fixes_target_age", "days from the oldest found target to the commit, log(1+n)") \
	X(FIX_LT90, HISTORY, "fixes_target_lt90d", "every target found and the oldest under 90 days old") \
	X(FIX_90_180, HISTORY, "fixes_target_90_180d", "the oldest target 90-180 days old") \
	X(FIX_180_365, HISTORY, "fixes_target_180_365d", "the oldest target 180-365 days old") \
	X(FIX_GT365, HISTORY, "fixes_target_gt365d", "the oldest target over 365 days old, or unknown") \
	X(FIX_REL0, HISTORY, "fixes_target_unreleased", "no found target was in a release before the commit (releases known)") \
	X(FIX_REL1, HISTORY, "fixes_target_1_release", "a found target lived through one release before the commit") \
	X(FIX_REL2, HISTORY, "fixes_target_2plus_releases", "a found target lived through two or more releases before the commit, or a target is unknown") \
	X(FILE_AGE_MIN, HISTORY, "file_age_min", "days since the youngest touched file first appeared, log(1+n)") \
	X(FILE_AGE_MAX, HISTORY, "file_age_max", "days since the oldest touched file first appeared, log(1+n)") \
	X(FILES_NEW180, HISTORY, "files_all_new_180d", "every touched file appeared in the last 180 days") \
	X(FILES_NEW365, HISTORY, "files_all_new_365d", "every touched file appeared in the last 365 days") \
	X(REL_CHECKED, RELCODE, "release_code_checked", "the changed code was looked up in the last release before the commit (a repository is at hand)") \
	X(REL_OLD_SHARE, RELCODE, "release_code_share", "share of the changed lines (removed, or the context an addition guards) that were in the last release") \
	X(REL_OLD_ALL, RELCODE, "release_code_all", "every changed line was in the last release: the bug shipped") \
	X(REL_OLD_NONE, RELCODE, "release_code_none", "no changed line was in the last release: the code is newer than the release") \
	X(REL_FILES_NEW, RELCODE, "release_files_none", "no file the commit modifies was in the last release") \
	X(IN_MERGE, MERGE, "merged_with_others", "a merge (a pull request) brought it into the mainline") \
	X(MERGE_SIZE, MERGE, "merge_commits", "commits that merge brought, log(1+n)")

#define SS_DENSE_ENUM(e, g, n, d) SS_F_##e,
enum { SS_DENSE_FEATURES(SS_DENSE_ENUM) SS_NDENSE };
#undef SS_DENSE_ENUM

typedef struct {
	const char *name;
	uint32_t group; /* SS_FG_* */
	const char *doc;
} ss_dense_info;

extern const ss_dense_info ss_dense_features[SS_NDENSE];

/*
 * Raw features of one commit.  Reuse one across commits with
 * ss_feat_raw_reset(); release with ss_feat_raw_release().
 *   dense      the named features
 *   hashed     32-bit hashes of the open-set names ("a:<email>",
 *              "d:drivers/net", "s:net/mlx5" ...), repeats allowed; the
 *              index is the hash's low hash_bits bits
 *   words      the commit's words, each NUL-terminated, repeats allowed
 *   names      when non-NULL before extraction, gets "hash\tname\n" for
 *              every hashed name (to explain a score)
 */
typedef struct {
	float dense[SS_NDENSE];
	uint32_t *hashed;
	size_t nhashed, hcap;
	ss_strbuf words;
	size_t nwords;
	ss_strbuf *names;
} ss_feat_raw;

/* The 32-bit hash of the open-set name ns + name ("k:", "cc"), as
 * ss_feat_extract() hashes it (its low hash_bits bits are the slot). */
uint32_t ss_feat_hash_name(const char *ns, const char *name);

void ss_feat_raw_init(ss_feat_raw *r);
void ss_feat_raw_reset(ss_feat_raw *r);
void ss_feat_raw_release(ss_feat_raw *r);

/* Extract the groups in opts->groups from c, the history group from the
 * commits in hist that came before c and the releases before it
 * (ss_history_facts(); NULL: no history is known, every target counts as
 * unknown).  0, SS_ENOMEM, or < 0 from the history with the message set. */
int ss_feat_extract(ss_feat_raw *out, const ss_commit *c, const ss_history *hist,
		    const ss_feat_options *opts);

/*
 * ss_feat_extract() in two parts, for a reader that has each commit's diff
 * before it has the history the commit is extracted against (the index's
 * first read of a repository: docs/index.md, "Stored features").
 * ss_feat_extract_own() extracts every group but the history and timing
 * groups (relcode too, against hist's releases and repository) and says in
 * marks where their hashes go; ss_feat_extract_past() adds them to out,
 * from c's times and message (its diff is not read), the paths its diff
 * changed (ss_file_path() of each file, in any order) and hist.  The two
 * give out, bit for bit, what ss_feat_extract() gives with the same hist.
 * tmp is scratch (ss_feat_raw_init()).  0, SS_ENOMEM, SS_EINVALID (marks
 * that do not fit out), or < 0 from the history with the message set.
 */
int ss_feat_extract_own(ss_feat_raw *out, size_t marks[2], const ss_commit *c,
			const ss_history *hist, const ss_feat_options *opts);
int ss_feat_extract_past(ss_feat_raw *out, const size_t marks[2], const ss_commit *c,
			 const char *const *paths, size_t npaths, const ss_history *hist,
			 const ss_feat_options *opts, ss_feat_raw *tmp);

/*
 * The effects a commit's subject and body (trailers excluded) say the bug
 * had: calls fn with each effect's name ("crash", "leak", ...) once, in
 * the order of the table in features.c; returns how many.  The "effects"
 * group hashes them as "e:<name>", and "e:any" when there is one.
 */
size_t ss_feat_effects(const ss_commit *c, void (*fn)(void *ctx, const char *name), void *ctx);

/*
 * The patch's position in its mailed series, read from the message id in a
 * Link: trailer (https://lore.kernel.org/r/<id>, .../<list>/<id>/,
 * https://patch.msgid.link/<id>): git send-email's "<date>.<pid>-N-<who>@",
 * its older "<time>-<pid>-N-git-send-email-<who>@", b4's "...-vK-N-<hex>@".
 * N >= 1; 0 when a Link: gives a message id without a number, -1 when the
 * commit has no Link: to a message id.  The first such Link: counts.
 */
int ss_feat_series_position(const ss_commit *c);

/* The subsystem prefix of a subject ("net/mlx5" of "net/mlx5: fix x"),
 * lower-cased into buf; 0 when the subject has none. */
size_t ss_feat_subsystem(char *buf, size_t size, const char *subject);

/*
 * Call fn for every word of text: runs of letters, digits and '_' holding
 * a letter, lower-cased, 2..32 bytes, hex strings of 7+ digits (shas) left
 * out.
 */
void ss_feat_words(const char *text, void (*fn)(void *ctx, const char *w, size_t len), void *ctx);

/* A sparse vector: indices strictly increasing. */
typedef struct {
	uint32_t *idx;
	float *val;
	size_t n, cap;
} ss_svec;

void ss_svec_init(ss_svec *v);
void ss_svec_release(ss_svec *v);
int ss_svec_push(ss_svec *v, uint32_t idx, float val);
/* Sort by index and merge repeats (keeping the largest value). */
void ss_svec_finish(ss_svec *v);

/*
 * A featurizer: options plus the vocabulary (word -> index in vocabulary
 * order).  Built from training data, then read-only; shared by threads.
 */
typedef struct {
	ss_feat_options opts;
	ss_strmap *vocab;   /* owned; ids are vocabulary positions */
} ss_featurizer;

int ss_featurizer_init(ss_featurizer *f, const ss_feat_options *opts);
void ss_featurizer_release(ss_featurizer *f);
/* out gets from's options and vocabulary, the same ids (the same
 * feature space); 0 or SS_ENOMEM. */
int ss_featurizer_copy(ss_featurizer *out, const ss_featurizer *from);

/* Size of the feature space. */
size_t ss_featurizer_dim(const ss_featurizer *f);

/*
 * The features a Cc: stable line itself gives (the dense cc_stable, the
 * hashed key "k:cc"), as indices of f's space, into out[max]; how many.
 * What masking the tags removes: a model may weigh them, but a likeness
 * between commits built on them only says both were tagged.
 */
size_t ss_featurizer_tag_traces(const ss_featurizer *f, uint32_t *out, size_t max);

/* Map raw features to the final vector (out is reset first). */
int ss_featurizer_map(ss_svec *out, const ss_featurizer *f, const ss_feat_raw *raw);

/* Extract + map in one go, for scoring one commit (hist as in
 * ss_feat_extract). */
int ss_featurizer_vector(ss_svec *out, const ss_featurizer *f, const ss_commit *c,
			 const ss_history *hist, ss_strbuf *names);

/*
 * Name of feature index i into sb: a dense name, "word:<w>", or for a
 * hashed slot the names recorded in names (from ss_feat_raw.names, may be
 * NULL) joined by "|", else "hash:<slot>".
 */
int ss_featurizer_name(const ss_featurizer *f, uint32_t i, const char *names, ss_strbuf *sb);

/*
 * The names of one commit indexed by hashed slot, for naming many of its
 * features: ss_featurizer_name() reads all names each call, which is
 * quadratic when a commit of 200,000 files is explained in full.  The
 * index points into names, which must outlive it; _free(NULL) is a no-op.
 * ss_featurizer_name_ix() is ss_featurizer_name() with the index (NULL:
 * no names); each name appears once in a slot, in recorded order.
 */
typedef struct ss_feat_names ss_feat_names;

int ss_feat_names_new(ss_feat_names **out, const ss_featurizer *f, const char *names);
void ss_feat_names_free(ss_feat_names *ix);
int ss_featurizer_name_ix(const ss_featurizer *f, uint32_t i, const ss_feat_names *ix,
			  ss_strbuf *sb);

/*
 * A feature's name (ss_featurizer_name_ix(): a dense name, "word:x",
 * "h:fix_of_fix", "a:<email>", "d:drivers/net", names joined by '|' when
 * they share a slot) in words a maintainer reads without docs/features.md:
 * "fix of a fix", "author: <email>", "touches drivers/net", a dense
 * feature's doc string without its log(1+n); appended to sb.  A name it
 * does not know is appended as it is.  0 or SS_ENOMEM.
 */
int ss_feat_name_words(ss_strbuf *sb, const char *name);

#endif
