/*
 * index_git.c - updating the index from a repository: its mainline and
 * branches walked from their recorded tips, the derived facts, then the
 * releases (index.h: ss_index_update, ss_index_check_repository).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <sqlite3.h>

#include "commit/patchid.h"
#include "index/index_decisions.h"
#include "index/index_update.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/testhook.h"

/* Record a stable-branch commit: its place on branch and its backport
 * lines.  *lines counts the upstream ids found. */
static int add_branch_commit(struct updater *u, const ss_commit *c, const char *branch,
			     size_t *lines)
{
	char shas[16][41];
	size_t n, i;
	int rc;

	sqlite3_bind_text(u->st[ST_BRANCH_COMMIT], 1, branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(u->st[ST_BRANCH_COMMIT], 2, c->id, -1, SQLITE_STATIC);
	if ((rc = ss_index_step_done(u, u->st[ST_BRANCH_COMMIT])))
		return rc;
	n = ss_upstream_find(u->up, c->message, shas, 16);
	for (i = 0; i < n; i++) {
		sqlite3_stmt *st = u->st[ST_BACKPORT];

		sqlite3_bind_text(st, 1, branch, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, c->id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, shas[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, c->committer.time);
		if ((rc = ss_index_step_done(u, st)))
			return rc;
		u->stats->backports += (size_t)sqlite3_changes(u->ix->db);
	}
	*lines += n;
	return 0;
}

struct ref_ctx {
	const char *name;
	int stable;
	size_t *lines;
};

/* The feature part of mainline commit c (opts->part), kept with its batch. */
static int add_part(struct updater *u, const ss_commit *c)
{
	int rc;

	ss_strbuf_reset(&u->partbuf);
	if ((rc = u->opts->part(&u->partbuf, c, u->opts->part_ud)))
		return rc;
	if (!u->partbuf.len)
		return 0;
	sqlite3_bind_text(u->part, 1, c->id, -1, SQLITE_STATIC);
	sqlite3_bind_blob(u->part, 2, u->partbuf.buf, (int)u->partbuf.len, SQLITE_STATIC);
	return ss_index_step_done(u, u->part);
}

static int add_ref_commit(struct updater *u, const ss_commit *c, void *ctx)
{
	struct ref_ctx *x = ctx;
	int rc = ss_index_add_commit(u, c, x->stable == 0);

	if (!rc && !x->stable && u->part)
		rc = add_part(u, c);
	return !rc && x->stable ? add_branch_commit(u, c, x->name, x->lines) : rc;
}

/*
 * The table of the feature parts (opts->part): a temporary table of the
 * connection (SQLite's temporary file, its page cache bounded), which
 * lives until the fill after the update reads it, so that the index
 * file neither grows by them nor keeps their pages free afterwards (24
 * MB on DPDK); an update killed before the fill leaves none, and the next
 * fill reads the diffs.  The row of id "" holds the tag they are made for.
 */
static int begin_parts(struct updater *u)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_exec(u->ix, "CREATE TEMP TABLE IF NOT EXISTS feature_parts(id TEXT NOT"
				" NULL PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;"
				"DELETE FROM temp.feature_parts", "make the feature parts' table")) ||
	    (rc = ss_index_prepare(&u->part, u->ix, "INSERT OR REPLACE INTO temp.feature_parts"
				   "(id, data) VALUES(?, ?)")))
		return rc;
	st = u->part;
	sqlite3_bind_text(st, 1, "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, u->opts->part_tag, -1, SQLITE_STATIC);
	return ss_index_step_done(u, st);
}

/*
 * rev in the update's repository, through its handle; by path as before
 * when there is none or opts->repo has a "git:" prefix, which
 * ss_git_resolve() keeps (no repository of that name: never resolved).
 */
static int resolve(const struct updater *u, char out[41], const char *rev)
{
	if (u->repo && strncmp(u->opts->repo, "git:", 4))
		return ss_repo_resolve(out, u->repo, rev);
	return ss_git_resolve(out, u->opts->repo, rev);
}

/*
 * Walk ref name (at tip) down to its recorded tip and, for a stable
 * branch, the mainline tip hide; write its commits in batches and its new
 * tip with the last one.  stable: 1 stable (--branches), 0 mainline, -1 a
 * branch that is stable when it carries backport lines.
 */
static int walk_ref(struct updater *u, const char *name, const char *tip, const char *hide,
		    int stable)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char old[41], kind[16], oldrev[43], hiderev[43], probe[41];
	const char *revs[3];
	const char *newkind;
	ss_source *src = NULL;
	size_t lines = 0;
	int rc;

	if ((rc = ss_index_ref_get(u->ix, name, old, kind)))
		return rc;
	if (!strcmp(old, tip))
		return 0;
	u->stats->refs_walked++;
	revs[0] = tip;
	so.nrevs = 1;
	/* a tip rewritten away (force-push) is walked from scratch */
	if (old[0] && !resolve(u, probe, old)) {
		snprintf(oldrev, sizeof(oldrev), "^%s", old);
		revs[so.nrevs++] = oldrev;
	}
	if (hide) {
		snprintf(hiderev, sizeof(hiderev), "^%s", hide);
		revs[so.nrevs++] = hiderev;
	}
	so.repo = u->opts->repo;
	so.revs = revs;
	if ((rc = ss_source_open(&src, u->opts->repo, &so)))
		return rc;
	if ((rc = ss_index_begin(u)))
		goto free_source;
	if (!stable && u->opts->part && u->opts->part_tag && (rc = begin_parts(u)))
		goto rollback;
	if (u->part && u->opts->part_repo)
		u->opts->part_repo(ss_source_git_repo(src), u->opts->part_ud);
	{
		struct ref_ctx x = { name, stable, &lines };

		if ((rc = ss_index_write_source(u, src, 0, NULL, name, add_ref_commit, &x)))
			goto rollback;
	}
	if (!stable)
		newkind = "mainline";
	else if (stable > 0 || lines || !strcmp(kind, "stable"))
		newkind = "stable";
	else
		newkind = "other";
	if ((rc = ss_index_ref_set(u->ix, name, tip, newkind)) || (rc = ss_index_commit_tx(u)))
		goto rollback;
	ss_test_point("ref");
	goto free_source;
rollback:
	ss_index_rollback(u);
free_source:
	if (u->part && u->opts->part_repo)
		u->opts->part_repo(NULL, u->opts->part_ud);
	sqlite3_finalize(u->part);
	u->part = NULL;
	ss_source_free(src);
	return rc;
}

struct branch {
	char *name;
	char tip[41];
};

/*
 * The branches to walk besides the mainline (labels/layout.h): every
 * branch the layout keeps (not a remote-tracking copy of one, not left
 * out by --branches), not at the mainline's tip.  Staging areas and
 * end-of-life branches are read too (what they carry is known), the
 * index records their roles.
 */
static int list_branches(struct branch **out, size_t *n, const ss_layout *l)
{
	struct branch *b;
	size_t i, k = 0;

	*out = NULL;
	*n = 0;
	if (!(b = calloc(l->nbranches ? l->nbranches : 1, sizeof(*b))))
		return SS_ENOMEM;
	for (i = 0; i < l->nbranches; i++) {
		const ss_layout_branch *x = &l->branches[i];

		if (x->role == SS_ROLE_MAINLINE || x->role == SS_ROLE_COPY ||
		    x->role == SS_ROLE_UNNAMED || !strcmp(x->tip, l->mtip))
			continue;
		if (!(b[k].name = strdup(x->name))) {
			while (k--)
				free(b[k].name);
			free(b);
			return SS_ENOMEM;
		}
		memcpy(b[k++].tip, x->tip, 41);
	}
	*out = b;
	*n = k;
	return 0;
}

/*
 * Walk the graph of every ref the update will read, as walk_ref() will
 * (tip ^old, and ^mainline for a branch), with one graph over them all,
 * before anything is written: a commit the walk refuses that only a
 * stable branch reaches would otherwise stop the update after the
 * mainline's batches.  Nothing when no ref moved; *moved says whether one
 * did.
 */
static int check_refs(struct updater *u, const char *mainline, const char *mtip,
		      const struct branch *br, size_t nbr, int *moved)
{
	ss_git_check *w;
	char (*olds)[41];
	size_t n = 0, i;
	int rc = 0;

	w = calloc(nbr + 1, sizeof(*w));
	olds = calloc(nbr + 1, sizeof(*olds));
	if (!w || !olds) {
		free(w);
		free(olds);
		return SS_ENOMEM;
	}
	for (i = 0; i <= nbr && !rc; i++) {
		const char *name = i ? br[i - 1].name : mainline;
		const char *tip = i ? br[i - 1].tip : mtip;
		char kind[16], probe[41];

		if ((rc = ss_index_ref_get(u->ix, name, olds[n], kind)) || !strcmp(olds[n], tip))
			continue;
		w[n].tip = tip;
		/* as walk_ref(): a tip rewritten away is walked whole */
		if (olds[n][0] && !resolve(u, probe, olds[n]))
			w[n].hide[w[n].nhide++] = olds[n];
		if (i)
			w[n].hide[w[n].nhide++] = mtip;
		n++;
	}
	*moved = n > 0;
	if (!rc)
		rc = ss_git_check_walks(u->opts->repo, w, n);
	free(olds);
	free(w);
	return rc;
}

/* ss_index_check_repository(), looking the recorded commit up with
 * resolve (the update's handle), else in the handle h, else in the
 * repository at repo. */
static int check_repository(ss_index *ix, const char *repo, const struct updater *u, ss_repo *h)
{
	char id[41], probe[41];
	int rc;

	if ((rc = ss_index_meta_get(ix, "repository", id, sizeof(id))))
		return rc;
	if (id[0] && ((u ? resolve(u, probe, id)
			 : h ? ss_repo_resolve(probe, h, id) : ss_git_resolve(probe, repo, id)) ||
		      strcmp(probe, id)))
		return ss_error_code(SS_EINVALID,
				     "index '%s' was built from another repository than '%s' "
				     "(it has no commit %.12s)", ix->path, repo, id);
	return 0;
}

int ss_index_check_repository(ss_index *ix, const char *repo)
{
	return check_repository(ix, repo, NULL, NULL);
}

int ss_index_check_repository_repo(ss_index *ix, ss_repo *r)
{
	return check_repository(ix, ss_repo_path(r), NULL, r);
}

/* The index is repo's, or new (then it becomes repo's: mtip, a commit of
 * its mainline, is recorded); an index of mail is refused. */
static int check_identity(ss_index *ix, const struct updater *u, const char *mtip)
{
	const char *repo = u->opts->repo;
	char id[41];
	int rc, empty;

	if ((rc = ss_index_meta_get(ix, "repository", id, sizeof(id))))
		return rc;
	if (id[0])
		return check_repository(ix, repo, u, NULL);
	/* no repository recorded and something written: mail's */
	if ((rc = ss_index_is_empty(ix, &empty)))
		return rc;
	if (!empty)
		return ss_error_code(SS_EINVALID, "index '%s' is an index of mail: a repository goes "
				     "into an index of its own (--db FILE)", ix->path);
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	if ((rc = ss_index_meta_set(ix, "repository", mtip)) ||
	    (rc = ss_index_exec(ix, "COMMIT", "commit a transaction"))) {
		sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	ss_test_point("identity");
	return 0;
}

/* c, read alone with its diff from repo (ss_source_read_alone()) into
 * *out; NULL when it cannot be read now (tried again next time). */
static int read_alone(ss_commit **out, const char *repo, const char *id)
{
	if (ss_source_read_alone(out, repo, id) < 0)
		*out = NULL;
	ss_error_clear();
	return 0;
}

/*
 * Commits indexed while a blob of theirs was missing (missing_blobs,
 * index_update.h): each read again; one whose files all read now gets
 * its patch id and files and leaves the table (the derived facts after
 * the walks then find its patch-id backports), and its kept features
 * (extracted from the unreadable diff) are dropped with the features'
 * recorded tip, so that the fill after the update extracts them again.
 * One transaction; counted in the stats.  A blob-less clone whose blobs
 * were never fetched would be read whole at every update: after
 * SS_MISSING_GIVE_UP commits in a row still missing one, the rest wait
 * for the next update.
 */
#define SS_MISSING_GIVE_UP 100

static int repair_missing(struct updater *u)
{
	sqlite3_stmt *st = NULL, *set = NULL, *del = NULL, *drop = NULL;
	char (*ids)[41] = NULL;
	size_t n = 0, cap = 0, i, in_a_row = 0;
	int rc, features;

	/* newest first: a checkout fetches the blobs of the newest trees */
	if ((rc = ss_index_prepare(&st, u->ix, "SELECT m.id FROM missing_blobs m LEFT JOIN"
				   " commits c ON c.id = m.id ORDER BY c.author_time DESC, m.id")))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			void *grown = realloc(ids, (cap = cap ? 2 * cap : 64) * sizeof(*ids));

			if (!grown) {
				sqlite3_finalize(st);
				free(ids);
				return ss_error_code(SS_ENOMEM, "out of memory");
			}
			ids = grown;
		}
		snprintf(ids[n++], 41, "%s", ss_index_col_text(st, 0));
	}
	rc = rc == SQLITE_DONE ? 0 : ss_index_sql_error(u->ix, "read missing_blobs");
	sqlite3_finalize(st);
	if (rc || !n)
		goto free_ids;
	if ((rc = ss_index_table_exists(u->ix, "feature_data", &features)) ||
	    (rc = ss_index_prepare(&set, u->ix, "UPDATE commits SET patch_id = ? WHERE id = ?")) ||
	    (rc = ss_index_prepare(&del, u->ix, "DELETE FROM files WHERE commit_id = ?1;")) ||
	    (rc = ss_index_prepare(&drop, u->ix, "DELETE FROM missing_blobs WHERE id = ?1")) ||
	    (rc = ss_index_exec(u->ix, "BEGIN IMMEDIATE", "start a transaction")))
		goto free_stmts;
	for (i = 0; i < n && !rc; i++) {
		ss_commit *c;
		char pid[41];
		int unreadable = 0;

		if (in_a_row == SS_MISSING_GIVE_UP) {
			u->stats->still_missing += n - i;
			break;
		}
		read_alone(&c, u->opts->repo, ids[i]);
		for (size_t k = 0; c && k < c->nfiles; k++)
			unreadable |= c->files[k].binary == SS_FILE_UNREADABLE;
		if (!c || unreadable) {
			u->stats->still_missing++;
			in_a_row++;
			ss_commit_free(c);
			continue;
		}
		in_a_row = 0;
		if (ss_commit_patch_id(pid, c))
			sqlite3_bind_null(set, 1);
		else
			sqlite3_bind_text(set, 1, pid, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(set, 2, c->id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(del, 1, c->id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(drop, 1, c->id, -1, SQLITE_TRANSIENT);
		if (!(rc = ss_index_step_done(u, set)) && !(rc = ss_index_step_done(u, del)) &&
		    !(rc = ss_index_add_files(u, c)) && !(rc = ss_index_step_done(u, drop)) &&
		    features) {
			sqlite3_stmt *f;

			unsigned char raw[20];

			if (!ss_hexid_raw(raw, c->id) &&
			    !(rc = ss_index_prepare(&f, u->ix, "DELETE FROM feature_data WHERE id = ?"))) {
				sqlite3_bind_blob(f, 1, raw, sizeof(raw), SQLITE_TRANSIENT);
				rc = ss_index_step_done(u, f);
				sqlite3_finalize(f);
			}
		}
		u->stats->repaired += !rc;
		ss_commit_free(c);
	}
	if (!rc && u->stats->repaired && features)
		rc = ss_index_exec(u->ix, "DELETE FROM meta WHERE key LIKE 'features %'",
				   "drop the features' tip");
	if (!rc)
		rc = ss_index_exec(u->ix, "COMMIT", "commit a transaction");
	if (rc)
		ss_index_rollback(u);
free_stmts:
	sqlite3_finalize(set);
	sqlite3_finalize(del);
	sqlite3_finalize(drop);
free_ids:
	free(ids);
	return rc;
}

int ss_index_update(ss_index *ix, const ss_index_options *opts, ss_index_stats *stats)
{
	static const ss_index_stats zero;
	ss_index_options o = *opts;
	ss_index_stats local;
	struct updater u;
	struct branch *br = NULL;
	struct rel_plan plan = { NULL, NULL, 0 };
	size_t nbr = 0, i;
	int moved = 0;
	ss_layout *found = NULL;
	const char *mainline, *mtip;
	char pending[16];
	int rc;

	if (!stats)
		stats = &local;
	*stats = zero;
	if (!o.batch)
		o.batch = 1000;
	memset(&u, 0, sizeof(u));
	u.partbuf = (ss_strbuf)SS_STRBUF_INIT;
	u.ix = ix;
	u.opts = &o;
	u.stats = stats;
	/* one handle for the layout, the lookups and the tags (the walks and
	 * the releases' graph open theirs, with their own object store); a
	 * repository it cannot open fails below as it did */
	if (ss_repo_open(&u.repo, o.repo))
		u.repo = NULL;
	if (!o.layout) {
		ss_layout_options lo = SS_LAYOUT_OPTIONS_INIT;

		lo.mainline = o.mainline;
		lo.branches = o.branches;
		lo.release_tags = o.release_tags;
		if ((rc = u.repo ? ss_index_layout_find(&found, ix, u.repo, &lo)
				 : ss_layout_find(&found, o.repo, &lo)))
			goto free_head;
		o.layout = found;
	}
	u.layout = o.layout;
	mainline = o.layout->mainline_name;
	mtip = o.layout->mtip;
	if ((rc = check_identity(ix, &u, mtip)))
		goto free_head;
	if ((rc = ss_upstream_new(&u.up, NULL, 0)))
		goto free_head;
	for (i = 0; i < ST_NSTMT; i++)
		if ((rc = ss_index_prepare(&u.st[i], ix, ss_index_stmt_sql[i])))
			goto free_stmts;
	if ((rc = ss_index_exec(ix, ss_index_missing_sql, "make the missing blobs' table")) ||
	    (rc = ss_index_prepare(&u.missing, ix, "INSERT OR IGNORE INTO missing_blobs(id)"
				   " VALUES(?)")))
		goto free_stmts;
	if ((rc = list_branches(&br, &nbr, o.layout)))
		goto free_stmts;
	/* what could refuse the update, before its first batch: the walks of
	 * the refs that moved, the releases and their graph (a commit that
	 * only a stable branch or a release tag reaches) */
	if ((rc = ss_index_meta_get(ix, "pending", pending, sizeof(pending))) ||
	    (rc = check_refs(&u, mainline, mtip, br, nbr, &moved)) ||
	    (rc = ss_index_plan_releases(&u, &plan, moved || pending[0])))
		goto free_branches;
	if (moved && plan.mr && o.part && o.part_releases &&
	    (rc = o.part_releases(plan.mr, o.part_ud)))
		goto free_branches;
	/* an update whose refs moved says so in meta ("pending") with its
	 * first batch (see ss_index_done_sql) */
	u.pending = moved;
#ifdef __GLIBC__
	/* the graphs' memory, freed, back to the system before the reader's
	 * peak (only the releases map stays) */
	malloc_trim(0);
#endif
	/* the commits of earlier updates that missed a blob, before the
	 * walks (which may add more, read again next time) and the derived
	 * facts that read their patch ids */
	if ((rc = repair_missing(&u)))
		goto free_branches;
	if ((rc = walk_ref(&u, mainline, mtip, NULL, 0)))
		goto free_branches;
	for (i = 0; i < nbr; i++)
		if ((rc = walk_ref(&u, br[i].name, br[i].tip, mtip, o.layout->explicit_branches ? 1 : -1)))
			goto free_branches;
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		goto free_branches;
	/* the derived facts change only with the rows they are derived
	 * from: with nothing walked or repaired, and nothing left pending
	 * by an interrupted update, they are what the last update derived
	 * (reading them again was most of what an update with nothing new
	 * cost once the layout was kept) */
	if (stats->refs_walked || stats->repaired || pending[0]) {
		if ((rc = ss_index_exec(ix, ss_index_derive_sql, "derive fixes and patch-id backports")))
			goto rollback;
		stats->backports += (size_t)sqlite3_changes(ix->db);
	}
	if ((rc = ss_index_decisions_derive(ix, NULL)))
		goto rollback;
	if ((rc = ss_index_exec(ix, "COMMIT", "commit a transaction")))
		goto rollback;
	ss_test_point("derive");
	/* the layout read, once the refs it chose are written */
	if ((rc = ss_index_record_layout(ix, o.layout)))
		goto free_branches;
	rc = ss_index_write_releases(&u, &plan);
	goto free_branches;
rollback:
	ss_index_rollback(&u);
free_branches:
	ss_index_plan_free(&plan);
	for (i = 0; i < nbr; i++)
		free(br[i].name);
	free(br);
free_stmts:
	for (i = 0; i < ST_NSTMT; i++)
		sqlite3_finalize(u.st[i]);
	sqlite3_finalize(u.missing);
	ss_upstream_free(u.up);
free_head:
	ss_layout_free(found);
	ss_repo_free(u.repo);
	ss_strbuf_release(&u.partbuf);
	return rc;
}
