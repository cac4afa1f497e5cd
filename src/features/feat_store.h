/*
 * feat_store.h - a commit's raw features (ss_feat_raw) as bytes to keep,
 * and the feature-set version they are kept under.
 *
 * The project model learns from every commit of a project's history; the
 * raw features of a commit are what its diff and message give (and the
 * history and releases before it), so keeping them (src/index/, table
 * feature_data) spares reading every diff again at each training
 * (docs/index.md, "Stored features").  A kept row is only good for the
 * extractor and options it came from: ss_feat_version() names them, and a
 * row is read back only under the same name.
 *
 * The encoding is exact: decode(encode(r)) has r's dense values (bit for
 * bit), its hashes and its words in the same order; names are not kept.
 */
#ifndef SS_FEAT_STORE_H
#define SS_FEAT_STORE_H

#include <stddef.h>

#include "features/features.h"
#include "util/strbuf.h"

/*
 * The extractor's own version: raise it whenever ss_feat_extract() may
 * give any commit another value (a feature's definition, a hashed name, a
 * word rule), so that rows kept by an older build are extracted again.
 * The dense table (names, groups, order) is part of the version by itself.
 */
#define SS_FEAT_STORE_EXTRACTOR 1

/* Room for a version name, NUL included. */
#define SS_FEAT_VERSION_SIZE 64

/*
 * The name rows are kept under, into out[SS_FEAT_VERSION_SIZE]:
 * "f<extractor>-<16 hex: the dense table>-<16 hex: the options>", from
 * the extractor's version, the dense table, opts->groups, whether stable
 * tags were masked and the diff lines kept per commit (the source options
 * that change what a commit holds).  Rows whose name starts with another
 * "f<extractor>-<table>-" prefix than ss_feat_version_prefix() gives are
 * from another extractor and are never good again.
 */
void ss_feat_version(char *out, const ss_feat_options *opts, int mask_stable_tags,
		     size_t max_lines);
/* out[SS_FEAT_VERSION_SIZE]: the "f<extractor>-<table>-" part. */
void ss_feat_version_prefix(char *out);

/* Append r's encoding (zlib-compressed) to out.  0 or SS_ENOMEM. */
int ss_feat_raw_encode(ss_strbuf *out, const ss_feat_raw *r);

/*
 * A commit's part of its raw features (ss_feat_extract_own()) as bytes, to
 * be joined by ss_feat_extract_past() once the history is known: marks,
 * the release relcode checked the commit against (release: 40 hex digits,
 * or NULL for none), the paths of c's files (ss_file_path()) and own.
 * Decoding gives them back (release "" for none; paths NUL-separated in
 * *paths, reset first, and their count).  0, SS_ENOMEM, or SS_EINVALID
 * for bytes that are no part.
 */
int ss_feat_part_encode(ss_strbuf *out, const ss_feat_raw *own, const size_t marks[2],
			const char *release, const ss_commit *c);
int ss_feat_part_decode(ss_feat_raw *own, size_t marks[2], char release[41], ss_strbuf *paths,
			size_t *npaths, const void *buf, size_t len);

/*
 * The largest magnitude a dense value may have.  Every dense feature is
 * a 0/1 flag, a share in [0, 1] or log(1 + n) of a count (features.h),
 * and log(1 + 2^64) is 44.4: 1e6 is far above anything the extractor
 * gives, and far below what breaks a trainer (3e38 squares to infinity).
 * A kept row with a value beyond it, or NaN or an infinity, is damaged.
 */
#define SS_FEAT_DENSE_MAX 1e6f

/*
 * Decode buf[0..len) into out (reset first; out->names untouched).  0,
 * SS_ENOMEM, or SS_EINVALID with the message set ("stored features are
 * damaged: ...") when buf is no encoding of this build or a dense value
 * is not finite or beyond SS_FEAT_DENSE_MAX.
 */
int ss_feat_raw_decode(ss_feat_raw *out, const void *buf, size_t len);

#endif
