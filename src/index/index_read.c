/*
 * index_read.c - reading the index for the other commands: the mainline
 * commits and paths a history is primed with, the releases with each
 * commit's first release, the backports, and the recorded ref tips
 * (index.h).  Rows come in one SELECT each, through a callback, so that a
 * kernel-sized index is never held twice in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "index/index_impl.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"
#include "util/strmap.h"
#include "util/u64map.h"

#define col_text ss_index_col_text

/* Step st to the end, calling row for each row; the first non-zero return
 * of row stops and is returned.  st is finalized. */
static int each_row(ss_index *ix, sqlite3_stmt *st, int (*row)(sqlite3_stmt *, void *),
		    void *ud, const char *what)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = row(st, ud)))
			break;
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = ss_index_sql_error(ix, what);
	sqlite3_finalize(st);
	return rc;
}

/*
 * Full commit ids to a value, for the joins below done in memory: one
 * scan of each table instead of one B-tree search per row (the kernel's
 * 1.3 M mainline commits and 2.3 M file rows: 5.9 s of a weekly rank in
 * SQLite's join and GROUP BY, 2.2 s in the EXISTS of each commit's
 * trailers).  Keyed by the id's first 64 bits, each key's ids chained,
 * so that a look-up is exact.
 */
struct idrow {
	unsigned char raw[20];
	int64_t value;
	size_t next;            /* 1 + the next row of the same key, 0: none */
};

struct idset {
	ss_u64map at;           /* key -> 1 + first row */
	struct idrow *row;
	size_t n, cap;
};

static uint64_t raw_key(const unsigned char raw[20])
{
	uint64_t k = 0;

	for (int i = 0; i < 8; i++)
		k = k << 8 | raw[i];
	return k ? k : 1;
}

static struct idrow *idset_get(const struct idset *s, const unsigned char raw[20])
{
	size_t i;

	if (ss_u64map_get(&s->at, raw_key(raw), &i) != 1)
		return NULL;
	for (; i; i = s->row[i - 1].next)
		if (!memcmp(s->row[i - 1].raw, raw, 20))
			return &s->row[i - 1];
	return NULL;
}

/* The row of raw, added with value when there is none: NULL out of memory. */
static struct idrow *idset_put(struct idset *s, const unsigned char raw[20], int64_t value)
{
	struct idrow *r = idset_get(s, raw);
	size_t first;
	int rc;

	if (r)
		return r;
	if (SS_GROW(s->row, s->n + 1, s->cap))
		return NULL;
	if ((rc = ss_u64map_find_or_put(&s->at, raw_key(raw), s->n + 1, &first)) < 0)
		return NULL;
	r = &s->row[s->n++];
	memcpy(r->raw, raw, 20);
	r->value = value;
	r->next = 0;
	if (rc == 1) {          /* another id of the key: chained after it */
		r->next = s->row[first - 1].next;
		s->row[first - 1].next = s->n;
	}
	return r;
}

static void idset_release(struct idset *s)
{
	ss_u64map_release(&s->at);
	free(s->row);
	memset(s, 0, sizeof(*s));
}

/* A trailer row: its commit's flags (1 fixes, 2 reverts). */
static int trailer_row(sqlite3_stmt *st, void *ud)
{
	unsigned char raw[20];
	struct idrow *r;

	/* an id no commit can have (not 40 hex digits) matches none */
	if (ss_hexid_raw(raw, col_text(st, 0)))
		return 0;
	if (!(r = idset_put(ud, raw, 0)))
		return SS_ENOMEM;
	r->value |= strcmp(col_text(st, 1), "fixes") ? 2 : 1;
	return 0;
}

struct commit_cb {
	ss_index *ix;
	int (*cb)(const ss_histidx_commit *, void *);
	void *ud;
	struct idset flags;     /* commits with a Fixes: or a revert trailer */
};

static int commit_row(sqlite3_stmt *st, void *ud)
{
	struct commit_cb *x = ud;
	ss_histidx_commit c;
	int64_t committed = ss_index_col_time(st, 3);
	unsigned char raw[20];
	const struct idrow *r;
	int rc;

	memset(&c, 0, sizeof(c));
	if ((rc = ss_index_col_id(c.id, x->ix, st, 0, "commit id")))
		return rc;
	c.subject = col_text(st, 1);
	/* as history/ times a commit: committer time, else author time */
	c.time = committed > 0 ? committed : ss_index_col_time(st, 2);
	r = ss_hexid_raw(raw, c.id) ? NULL : idset_get(&x->flags, raw);
	c.has_fixes = r && (r->value & 1);
	c.is_revert = r && (r->value & 2);
	return x->cb(&c, x->ud);
}

int ss_index_for_each_commit(ss_index *ix, int (*cb)(const ss_histidx_commit *c, void *ud),
			     void *ud)
{
	struct commit_cb x = { ix, cb, ud, { SS_U64MAP_INIT, NULL, 0, 0 } };
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT commit_id, kind FROM trailers"
				   " WHERE kind = 'fixes' OR kind = 'reverts'")) ||
	    (rc = each_row(ix, st, trailer_row, &x.flags, "read trailers")))
		goto out;
	if ((rc = ss_index_prepare(&st, ix,
				   "SELECT c.id, c.subject, c.author_time, c.committer_time"
				   " FROM commits c WHERE c.mainline = 1")))
		goto out;
	rc = each_row(ix, st, commit_row, &x, "read commits");
out:
	idset_release(&x.flags);
	return rc == SS_ENOMEM ? ss_error_code(SS_ENOMEM, "out of memory reading the index") : rc;
}

struct file_cb {
	int (*cb)(const char *, const char *, void *);
	void *ud;
};

static int any_file_row(sqlite3_stmt *st, void *ud)
{
	struct file_cb *x = ud;

	return x->cb(col_text(st, 0), col_text(st, 1), x->ud);
}

int ss_index_for_each_file(ss_index *ix, int (*cb)(const char *commit, const char *path, void *ud),
			   void *ud)
{
	struct file_cb x = { cb, ud };
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT commit_id, path FROM files")))
		return rc;
	return each_row(ix, st, any_file_row, &x, "read files");
}

struct path_join {
	struct idset commits;   /* mainline commits -> author time */
	ss_strmap *paths;
	int64_t *first;         /* [path] the oldest author time */
	size_t cap;
};

static int mainline_row(sqlite3_stmt *st, void *ud)
{
	struct path_join *j = ud;
	unsigned char raw[20];

	if (ss_hexid_raw(raw, col_text(st, 0)))
		return 0;
	return idset_put(&j->commits, raw, sqlite3_column_int64(st, 1)) ? 0 : SS_ENOMEM;
}

static int file_row(sqlite3_stmt *st, void *ud)
{
	struct path_join *j = ud;
	const char *path = col_text(st, 1);
	size_t before = ss_strmap_count(j->paths);
	unsigned char raw[20];
	const struct idrow *r;
	uint32_t k;

	if (ss_hexid_raw(raw, col_text(st, 0)) || !(r = idset_get(&j->commits, raw)))
		return 0;
	if (ss_strmap_intern(j->paths, path, strlen(path), &k) ||
	    SS_GROW(j->first, (size_t)k + 1, j->cap))
		return SS_ENOMEM;
	if (ss_strmap_count(j->paths) > before || r->value < j->first[k])
		j->first[k] = r->value;
	return 0;
}

static int cmp_path(const void *a, const void *b, void *paths)
{
	return strcmp(ss_strmap_str(paths, *(const uint32_t *)a),
		      ss_strmap_str(paths, *(const uint32_t *)b));
}

/*
 * Each path a mainline commit changed, with the oldest author time of
 * those commits, in path order: what "SELECT f.path, min(c.author_time)
 * FROM files f JOIN commits c ON c.id = f.commit_id WHERE c.mainline = 1
 * GROUP BY f.path" gives, from one scan of each table (struct idset).
 */
int ss_index_for_each_path(ss_index *ix, int (*cb)(const char *path, int64_t first, void *ud),
			   void *ud)
{
	struct path_join j = { { SS_U64MAP_INIT, NULL, 0, 0 }, NULL, NULL, 0 };
	uint32_t *order = NULL;
	sqlite3_stmt *st;
	size_t n;
	int rc;

	if ((rc = ss_strmap_new(&j.paths)))
		goto out;
	if ((rc = ss_index_prepare(&st, ix, "SELECT id, author_time FROM commits WHERE mainline = 1")) ||
	    (rc = each_row(ix, st, mainline_row, &j, "read commits")))
		goto out;
	if ((rc = ss_index_prepare(&st, ix, "SELECT commit_id, path FROM files")) ||
	    (rc = each_row(ix, st, file_row, &j, "read files")))
		goto out;
	idset_release(&j.commits);
	n = ss_strmap_count(j.paths);
	if (!(order = malloc((n ? n : 1) * sizeof(*order)))) {
		rc = SS_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	/* SQLite's BINARY order of text without NULs: strcmp's */
	qsort_r(order, n, sizeof(*order), cmp_path, j.paths);
	for (size_t i = 0; i < n && !rc; i++) {
		int64_t t = j.first[order[i]];

		t = t > SS_INDEX_TIME_LIMIT ? SS_INDEX_TIME_LIMIT
		    : t < -SS_INDEX_TIME_LIMIT ? -SS_INDEX_TIME_LIMIT : t;
		rc = cb(ss_strmap_str(j.paths, order[i]), t, ud);
	}
out:
	free(order);
	free(j.first);
	ss_strmap_free(j.paths);
	idset_release(&j.commits);
	return rc == SS_ENOMEM ? ss_error_code(SS_ENOMEM, "out of memory reading the index") : rc;
}

struct rel_load {
	ss_index *ix;
	ss_releases *r;
	ss_strmap *tags;   /* tag -> index in r (interned in r's order) */
};

static int release_row(sqlite3_stmt *st, void *ud)
{
	struct rel_load *x = ud;
	const char *tag = col_text(st, 0);
	char id[41], show[48];
	int rc;

	if (!tag[0])
		return ss_index_damaged(x->ix, "a release has no tag");
	if ((rc = ss_index_col_id(id, x->ix, st, 1, "release commit")))
		return rc;
	if ((rc = ss_releases_add(x->r, tag, id, ss_index_col_time(st, 2))) && rc != SS_ENOMEM)
		return ss_index_damaged(x->ix, "release '%s': %s", ss_index_show(show, tag),
					ss_error_last());
	return rc;
}

static int first_release_row(sqlite3_stmt *st, void *ud)
{
	struct rel_load *x = ud;
	const char *tag = col_text(st, 1);
	uint32_t k = ss_strmap_find(x->tags, tag, strlen(tag));
	char id[41];
	int rc;

	/* a first release that is no longer a mainline release: none */
	if (k == SS_STRMAP_NONE)
		return 0;
	if ((rc = ss_index_col_id(id, x->ix, st, 0, "commit id")))
		return rc;
	return ss_releases_graph_add(x->r, id, k);
}

/* A repository's index records the repository (meta); a mail index not. */
static int has_graph(ss_index *ix)
{
	char id[41];

	return !ss_index_meta_get(ix, "repository", id, sizeof(id)) && id[0];
}

int ss_index_load_releases(ss_releases **out, ss_index *ix)
{
	struct rel_load x = { ix, NULL, NULL };
	sqlite3_stmt *st;
	size_t i;
	uint32_t id;
	int rc;

	*out = NULL;
	if ((rc = ss_releases_new(&x.r)))
		return rc;
	if ((rc = ss_strmap_new(&x.tags)))
		goto out_free;
	if ((rc = ss_index_prepare(&st, ix, "SELECT tag, commit_id, time FROM releases"
				   " WHERE kind = 'mainline' ORDER BY time, tag")) ||
	    (rc = each_row(ix, st, release_row, &x, "read releases")))
		goto out_free;
	/* ss_releases_add() keeps them oldest first: intern in that order */
	for (i = 0; i < ss_releases_count(x.r); i++) {
		const char *tag = ss_releases_get(x.r, i)->tag;

		if ((rc = ss_strmap_intern(x.tags, tag, strlen(tag), &id)))
			goto out_free;
		if (id != i) {
			char show[48];

			rc = ss_index_damaged(ix, "release '%s' is listed twice", ss_index_show(show, tag));
			goto out_free;
		}
	}
	if (!has_graph(ix)) {
		*out = x.r;
		x.r = NULL;
		goto out_free;
	}
	if ((rc = ss_index_prepare(&st, ix, "SELECT id, first_release FROM commits"
				   " WHERE mainline = 1 AND first_release IS NOT NULL")) ||
	    (rc = each_row(ix, st, first_release_row, &x, "read first releases")) ||
	    (rc = ss_releases_graph_finish(x.r)))
		goto out_free;
	*out = x.r;
	x.r = NULL;
out_free:
	ss_strmap_free(x.tags);
	ss_releases_free(x.r);
	return rc;
}

struct backport_cb {
	ss_index *ix;
	int (*cb)(const ss_index_backport *, void *);
	void *ud;
};

static int backport_row(sqlite3_stmt *st, void *ud)
{
	struct backport_cb *x = ud;
	ss_index_backport b;
	char upstream[41], commit[41];
	int rc;

	if ((rc = ss_index_col_id(upstream, x->ix, st, 0, "backported commit")) ||
	    (rc = ss_index_col_id(commit, x->ix, st, 2, "backport commit")))
		return rc;
	b.upstream = upstream;
	b.branch = col_text(st, 1);
	b.commit = commit;
	b.how = col_text(st, 3);
	b.time = ss_index_col_time(st, 4);
	b.patch_id = NULL;
	return x->cb(&b, x->ud);
}

int ss_index_for_each_backport(ss_index *ix, int (*cb)(const ss_index_backport *b, void *ud),
			       void *ud)
{
	struct backport_cb x = { ix, cb, ud };
	sqlite3_stmt *st;
	int rc;

	/* oldest first, so that a branch's first carrier comes first */
	if ((rc = ss_index_prepare(&st, ix, "SELECT b.upstream_id, b.branch, b.commit_id, b.how,"
				   " b.time FROM backports b JOIN refs r ON r.name = b.branch"
				   " AND r.kind = 'stable' ORDER BY b.time, b.branch, b.commit_id")))
		return rc;
	return each_row(ix, st, backport_row, &x, "read backports");
}

static const char *col_null(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static int branch_commit_row(sqlite3_stmt *st, void *ud)
{
	struct backport_cb *x = ud;
	ss_index_backport b;
	char commit[41], upstream[41];
	int rc;

	if ((rc = ss_index_col_id(commit, x->ix, st, 0, "branch commit")))
		return rc;
	b.commit = commit;
	b.patch_id = col_null(st, 1);
	b.upstream = NULL;
	if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
		if ((rc = ss_index_col_id(upstream, x->ix, st, 2, "backported commit")))
			return rc;
		b.upstream = upstream;
	}
	b.how = b.upstream ? col_text(st, 3) : NULL;
	b.time = ss_index_col_time(st, 4);
	b.branch = col_text(st, 5);
	return x->cb(&b, x->ud);
}

int ss_index_for_each_branch_commit(ss_index *ix, const char *branch,
				    int (*cb)(const ss_index_backport *b, void *ud), void *ud)
{
	struct backport_cb x = { ix, cb, ud };
	sqlite3_stmt *st;
	int rc;

	/* the order a walk of the branch gives (oldest first), so that the
	 * first carrier of an upstream commit is the same as from git */
	if ((rc = ss_index_prepare(&st, ix, "SELECT bc.commit_id, s.patch_id, b.upstream_id, b.how,"
				   " s.committer_time, bc.branch FROM branch_commits bc"
				   " JOIN commits s ON s.id = bc.commit_id"
				   " LEFT JOIN backports b ON b.branch = bc.branch"
				   "  AND b.commit_id = bc.commit_id"
				   " WHERE bc.branch = ?"
				   " ORDER BY s.committer_time, s.author_time, s.id,"
				   "  b.how = 'patch-id', b.upstream_id")))
		return rc;
	sqlite3_bind_text(st, 1, branch, -1, SQLITE_TRANSIENT);
	return each_row(ix, st, branch_commit_row, &x, "read branch commits");
}

struct ref_cb {
	int (*cb)(const ss_index_ref *, void *);
	void *ud;
};

static int ref_row(sqlite3_stmt *st, void *ud)
{
	struct ref_cb *x = ud;
	ss_index_ref r = { col_text(st, 0), col_text(st, 1), col_text(st, 2) };

	return x->cb(&r, x->ud);
}

int ss_index_for_each_ref(ss_index *ix, int (*cb)(const ss_index_ref *r, void *ud), void *ud)
{
	struct ref_cb x = { cb, ud };
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT name, tip, kind FROM refs ORDER BY name")))
		return rc;
	return each_row(ix, st, ref_row, &x, "read refs");
}

int ss_index_ref_tip(char out[41], ss_index *ix, const char *kind, char *name, size_t size)
{
	sqlite3_stmt *st;
	int rc;

	out[0] = '\0';
	if (name && size)
		name[0] = '\0';
	if ((rc = ss_index_prepare(&st, ix, "SELECT name, tip FROM refs WHERE kind = ?"
				   " ORDER BY name LIMIT 1")))
		return rc;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		rc = ss_index_col_id(out, ix, st, 1, "ref tip");
		if (!rc && name && size)
			snprintf(name, size, "%s", col_text(st, 0));
	} else if (rc == SQLITE_DONE) {
		rc = ss_error_code(SS_ENOTFOUND, "index '%s' has no %s ref", ix->path, kind);
	} else {
		rc = ss_index_sql_error(ix, "read refs");
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The views of ss_index_as_of(), in the temp schema: an unqualified name
 * in a query is looked up there first, so every reader's SQL sees the cut
 * without a change.  %1$lld is the time.  Views in the file (decisions)
 * read the file's own tables; stablesel reads decision_log itself.
 */
static const char as_of_sql[] =
	"CREATE TEMP VIEW releases AS SELECT tag, commit_id, time, kind FROM main.releases"
	" WHERE time <= %1$lld;"
	"CREATE TEMP VIEW commits AS SELECT id, patch_id, author_name, author_email, author_time,"
	" committer_time, subject, mainline, CASE WHEN first_release IN"
	" (SELECT tag FROM main.releases WHERE time <= %1$lld) THEN first_release END"
	" AS first_release FROM main.commits WHERE committer_time <= %1$lld;"
	"CREATE TEMP VIEW trailers AS SELECT * FROM main.trailers WHERE commit_id IN"
	" (SELECT id FROM main.commits WHERE committer_time <= %1$lld);"
	"CREATE TEMP VIEW files AS SELECT * FROM main.files WHERE commit_id IN"
	" (SELECT id FROM main.commits WHERE committer_time <= %1$lld);"
	"CREATE TEMP VIEW branch_commits AS SELECT * FROM main.branch_commits WHERE commit_id IN"
	" (SELECT id FROM main.commits WHERE committer_time <= %1$lld);"
	"CREATE TEMP VIEW backports AS SELECT * FROM main.backports WHERE time <= %1$lld;"
	"CREATE TEMP VIEW decision_log AS SELECT * FROM main.decision_log WHERE time <= %1$lld;";

int ss_index_as_of(ss_index *ix, int64_t t)
{
	char sql[sizeof(as_of_sql) + 256];

	if (ix->write || ix->as_of)
		return ss_error_code(SS_EINVALID, "index '%s': a cut in time is for a reader, once",
				     ix->path);
	snprintf(sql, sizeof(sql), as_of_sql, (long long)t);
	/* the views are the connection's own (temp schema): query_only,
	 * which guards the file, is lifted for their making only; the
	 * connection itself is read-only */
	if (sqlite3_exec(ix->db, "PRAGMA query_only=0", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(ix->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		int rc = ss_index_sql_error(ix, "read it as of a date");

		sqlite3_exec(ix->db, "PRAGMA query_only=1", NULL, NULL, NULL);
		return rc;
	}
	if (sqlite3_exec(ix->db, "PRAGMA query_only=1", NULL, NULL, NULL) != SQLITE_OK)
		return ss_index_sql_error(ix, "open");
	ix->as_of = t;
	return 0;
}

int64_t ss_index_as_of_time(const ss_index *ix)
{
	return ix ? ix->as_of : 0;
}
