/*
 * branches.c - the stable branches of a run (branches.h): the index's
 * default ones, what each carries, their verdicts, and the verdicts set
 * on a ranking as data.  Moved from cmd/common.c (cli_index_upstream,
 * cli_carried_load, cli_index_branches) and cmd/rank_report.c
 * (open_branches, decide_verdicts, add_extra, verdict_mask, dedupe_onto,
 * index_branches, onto_identity, queue_branch_resolve).
 */
#include "run/branches.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "index/index_decisions.h"
#include "source/git.h"
#include "source/source.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"
#include "util/strbuf.h"
#include "util/strmap.h"

const char *ss_run_index_upstream(ss_index *ix, char *buf, size_t size)
{
	if (!ix || ss_index_mainline_ref(ix, buf, size) || !buf[0])
		return "HEAD";
	return buf;
}

/* The index's ref matching the branch a check took, and the mainline. */
struct ref_match {
	const char *short_ref;   /* "20.11", "origin/20.11", or the revision */
	const char *name;        /* ss_check_branch_name: "20.11" */
	const char *tip;         /* the branch's tip now */
	char ref[256], ref_tip[41];
	int exact;               /* ref is short_ref itself */
	char mainline[41];       /* the index's mainline tip */
};

static int match_ref(const ss_index_ref *r, void *ud)
{
	struct ref_match *m = ud;

	if (!strcmp(r->kind, "mainline") && !m->mainline[0])
		snprintf(m->mainline, sizeof(m->mainline), "%s", r->tip);
	if (strcmp(r->kind, "stable") || m->exact)
		return 0;
	/* the same ref, else one of the branch's name at the same commit
	 * (the index keeps one of "origin/21.11" and "21.11" when they agree) */
	if (!strcmp(r->name, m->short_ref) ||
	    (!m->ref[0] && !strcmp(ss_git_branch_local(r->name), m->name) && !strcmp(r->tip, m->tip))) {
		m->exact = !strcmp(r->name, m->short_ref);
		snprintf(m->ref, sizeof(m->ref), "%s", r->name);
		snprintf(m->ref_tip, sizeof(m->ref_tip), "%s", r->tip);
	}
	return 0;
}

static int carried_row(const ss_index_backport *b, void *ud)
{
	uint64_t key = b->patch_id ? ss_hexid_key(b->patch_id) : 0;

	/* as from the branch: a line names its upstream commit; an equal
	 * patch id is found by the patch (carried.h's SS_CARRIED_PATCH) */
	return ss_carried_add(ud, b->how && !strcmp(b->how, "line") ? b->upstream : NULL, key,
			      b->commit);
}

/* Why the index cannot say what the branch carries (NULL: it can). */
static const char *index_unfit(ss_index *ix, struct ref_match *m, const char *repo,
			       const char *upstream)
{
	char upid[41];

	/* a tag, a commit, a branch set back (--as-of) or one the index
	 * does not list: what it carries is read where it stands */
	if (!m->ref[0])
		return "it is no branch tip the index holds, so what it carries is read at that point";
	if (strcmp(m->ref_tip, m->tip))
		return "stale";
	if (upstream && (ss_git_resolve(upid, repo, upstream) || strcmp(upid, m->mainline)))
		return "its mainline is not the one named";
	(void)ix;
	return NULL;
}

/*
 * The backport-line style of a branch whose table the index filled: from
 * the messages of the rows' commits; when one cannot be read, from a
 * walk of the branch against the index's mainline tip, else (a
 * repository rewound since) against hide.  0 or < 0 with the message set.
 */
static int index_style(ss_carried *cr, ss_check *ck, const char *repo, const struct ref_match *m,
		       const char *hide)
{
	if (!ss_carried_learn_style(cr, ss_repo_git(ss_check_repo(ck))))
		return 0;
	ss_error_clear();
	if (!ss_carried_read_style(cr, repo, m->tip, m->mainline))
		return 0;
	return ss_carried_read_style(cr, repo, m->tip, hide);
}

int ss_run_carried_load(ss_carried **out, int *from_index, ss_index *ix, const char *path,
			const char *repo, ss_check *ck, const char *upstream, const char *what,
			const ss_run_report *rp)
{
	const char *full = ss_check_branch_ref(ck);
	struct ref_match m;
	ss_carried *cr;
	char found[1100];
	const char *why = NULL, *dflt = ss_run_index_upstream(ix, found, sizeof(found));
	int rc;

	*out = NULL;
	if (from_index)
		*from_index = 0;
	memset(&m, 0, sizeof(m));
	m.short_ref = !strncmp(full, "refs/heads/", 11) ? full + 11 :
		      !strncmp(full, "refs/remotes/", 13) ? full + 13 : full;
	m.name = ss_check_branch_name(ck);
	m.tip = ss_check_branch_id(ck);
	if ((rc = ss_carried_new(&cr)))
		return rc;
	if (ix) {
		if ((rc = ss_index_for_each_ref(ix, match_ref, &m))) {
			ss_carried_free(cr);
			return ss_run_fail(rc, "cannot read the refs of '%s'", path);
		}
		why = index_unfit(ix, &m, repo, upstream);
	}
	if (ix && !why) {
		if ((rc = ss_index_for_each_branch_commit(ix, m.ref, carried_row, cr)))
			rc = ss_run_fail(rc, "cannot read stable branch '%s' from '%s'", m.ref, path);
		else if ((rc = index_style(cr, ck, repo, &m, upstream ? upstream : dflt)))
			rc = ss_run_fail(rc, "cannot read stable branch '%s'", what);
		if (rc) {
			ss_carried_free(cr);
			return rc;
		}
		if (from_index)
			*from_index = 1;
		*out = cr;
		return 0;
	}
	if (why && !strcmp(why, "stale"))
		ss_run_say(rp, SS_RUN_WARNING,
			   "index '%s' is stale for %s (read up to %.12s, the branch is at %.12s): "
			   "reading the branch (run 'stablesel index --repo %s' to update it)", path,
			   m.ref, m.ref_tip, m.tip, repo);
	else if (why)
		ss_run_say(rp, SS_RUN_NOTE, "reading %s from the repository, not from index '%s': %s",
			   what, path, why);
	if ((rc = ss_carried_read(cr, repo, m.tip, upstream ? upstream : dflt))) {
		ss_carried_free(cr);
		return ss_run_fail(rc, "cannot read stable branch '%s'", what);
	}
	*out = cr;
	return 0;
}

int ss_run_onto_as_of(char **at, const char **asked, const char **onto, size_t *n,
		      const char *repo, int64_t t, const ss_run_report *rp)
{
	char id[41], date[16];
	size_t b, kept = 0;

	ss_format_date(date, t);
	for (b = 0; b < *n; b++) {
		int rc = ss_git_resolve_as_of(id, repo, onto[b], t);

		if (rc == SS_ENOTFOUND) {
			ss_run_say(rp, SS_RUN_NOTE, "as of %s: %s left out: %s", date, onto[b],
				   ss_error_last());
			ss_error_clear();
			continue;
		}
		if (rc)
			return rc;
		if (!(at[kept] = strdup(id)))
			return ss_error_code(SS_ENOMEM, "out of memory");
		asked[kept] = onto[b];
		onto[kept] = at[kept];
		ss_run_say(rp, SS_RUN_NOTE, "as of %s: %s is at %.12s", date, asked[kept], id);
		kept++;
	}
	if (!kept && *n)
		return ss_error_code(SS_ENOTFOUND, "as of %s, none of the stable branches had a "
				     "commit yet", date);
	*n = kept;
	return 0;
}

struct branch_list {
	char **names;
	size_t n, cap;
};

static int list_stable(const ss_index_ref *r, void *ud)
{
	struct branch_list *l = ud;

	if (strcmp(r->kind, "stable"))
		return 0;
	if (SS_GROW(l->names, l->n + 1, l->cap) || !(l->names[l->n] = strdup(r->name)))
		return ss_error_code(SS_ENOMEM, "out of memory for the stable branches");
	l->n++;
	return 0;
}

/* Newest version first; a local branch before a remote-tracking one. */
static int cmp_branch(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int c = strverscmp(ss_git_branch_local(y), ss_git_branch_local(x));

	return c ? c : (strchr(x, '/') != NULL) - (strchr(y, '/') != NULL);
}

int ss_run_index_branches(char **out, size_t *nout, size_t max, size_t *more, ss_index *ix,
			  const char *path)
{
	struct branch_list l = { NULL, 0, 0 };
	size_t n = 0;
	int rc;

	*more = 0;
	*nout = 0;
	if ((rc = ss_index_for_each_ref(ix, list_stable, &l)))
		rc = ss_run_fail(rc, "cannot read the refs of '%s'", path);
	if (l.n)
		qsort(l.names, l.n, sizeof(*l.names), cmp_branch);
	for (size_t i = 0; i < l.n && !rc; i++) {
		/* "origin/21.11" beside "21.11": the index read both (their tips
		 * differ); the local branch, sorted first, is the one a
		 * maintainer works on */
		char role[32];

		if (i && !strcmp(ss_git_branch_local(l.names[i]), ss_git_branch_local(l.names[i - 1])))
			continue;
		/* staging areas, end-of-life branches and copies the index
		 * found are no default target (named with --onto they are) */
		if ((rc = ss_index_branch_role(ix, l.names[i], role, sizeof(role)))) {
			rc = ss_run_fail(rc, "cannot read the branch roles of '%s'", path);
			break;
		}
		if (strcmp(role, "stable"))
			continue;
		if (n < max)
			out[n++] = l.names[i];
		else
			++*more;
	}
	for (size_t i = 0, k = 0; i < l.n; i++) {
		if (!rc && k < n && l.names[i] == out[k])
			k++;
		else
			free(l.names[i]);
	}
	free(l.names);
	if (rc)
		return rc;
	*nout = n;
	return 0;
}

void ss_run_onto_dedupe(const char **onto, size_t *n, const ss_run_report *rp)
{
	size_t i, j, kept = 0;

	/* one column a branch: --onto X --onto X is X once */
	for (i = 0; i < *n; i++) {
		for (j = 0; j < kept && strcmp(onto[j], onto[i]); j++)
			;
		if (j < kept) {
			ss_run_say(rp, SS_RUN_WARNING, "--onto %s given twice: one column", onto[i]);
			continue;
		}
		onto[kept++] = onto[i];
	}
	*n = kept;
}

int ss_run_onto_from_index(char **owned, const char **onto, size_t *n, size_t max, ss_index *ix,
			   const char *path, const ss_run_report *rp)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t more;
	int rc;

	if ((rc = ss_run_index_branches(owned, n, max, &more, ix, path)))
		return rc;
	for (size_t b = 0; b < *n; b++) {
		onto[b] = owned[b];
		ss_strbuf_addf(&sb, "%s%s", b ? " " : "", onto[b]);
	}
	if (*n)
		ss_run_say(rp, SS_RUN_NOTE, "stable branches from index '%s': %s%s", path, sb.buf,
			   more ? " (the newest ones: at most 16; name others with --onto)" : "");
	else
		ss_run_say(rp, SS_RUN_NOTE, "index '%s' knows no stable branch", path);
	ss_strbuf_release(&sb);
	return 0;
}

int ss_run_onto_check(size_t n, const char *repo, const char *verdicts)
{
	if (verdicts && !n)
		return ss_error_code(SS_EINVALID, "--verdicts needs a stable branch (--onto BRANCH, or "
				     "a project index of --onto-repo or --repo)");
	if (!repo && n)
		return ss_error_code(SS_EINVALID, "--onto needs the branches' repository: --onto-repo "
				     "PATH or --repo PATH");
	return 0;
}

int ss_run_verdict_mask(unsigned *mask, const char *list)
{
	*mask = 0;
	while (list && *list) {
		size_t len = strcspn(list, ",");

		/* yes and no: the words before "applies" and "unaffected" */
		if ((len == 7 && !strncmp(list, "applies", 7)) || (len == 3 && !strncmp(list, "yes", 3)))
			*mask |= 1u << SS_VERDICT_YES | 1u << SS_VERDICT_YES_NEEDS;
		else if (len == 5 && !strncmp(list, "needs", 5))
			*mask |= 1u << SS_VERDICT_YES_NEEDS;
		else if (len == 7 && !strncmp(list, "already", 7))
			*mask |= 1u << SS_VERDICT_ALREADY;
		else if (len == 10 && !strncmp(list, "unaffected", 10))
			*mask |= 1u << SS_VERDICT_NO_BUG;
		else if (len == 8 && !strncmp(list, "reverted", 8))
			*mask |= 1u << SS_VERDICT_NO_REVERTED;
		else if (len == 2 && !strncmp(list, "no", 2))
			*mask |= 1u << SS_VERDICT_NO_BUG | 1u << SS_VERDICT_NO_REVERTED;
		else if (len == 7 && !strncmp(list, "unknown", 7))
			*mask |= 1u << SS_VERDICT_UNKNOWN;
		else
			return ss_error_code(SS_EINVALID, "--verdicts: unknown verdict '%.*s' (applies, "
					     "needs, already, unaffected, reverted, unknown)", (int)len, list);
		list += len + (list[len] == ',');
	}
	return 0;
}

struct ss_run_branches {
	size_t n;
	char *name[SS_RANK_MAX_BRANCHES];    /* as the user named them */
	ss_check *ck[SS_RANK_MAX_BRANCHES];
	ss_carried *carried[SS_RANK_MAX_BRANCHES];
	ss_verdicts *vs[SS_RANK_MAX_BRANCHES];
	ss_check_blame_cache *blame_cache;   /* shared by the checks, freed after them */
	const char *repo;                    /* borrowed from the options */
	const ss_run_report *report;
};

/* Branch b: its check, what it carries, its verdicts. */
static int open_one(ss_run_branches *br, size_t b, const char *up, const ss_run_branches_options *o)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	int from_index, rc;

	co.rev = br->name[b];
	co.blame_cache = br->blame_cache;
	co.repo = o->handle;
	co.index = o->ix;
	if ((rc = ss_check_open(&br->ck[b], o->repo, &co)))
		return rc;
	if (ss_check_ambiguity(br->ck[b]))
		ss_run_say(o->report, SS_RUN_WARNING, "%s", ss_check_ambiguity(br->ck[b]));
	ss_run_progress(o->report, "reading the stable branches", b, br->n);
	/* the branch's own commits: what it carries under other ids */
	if ((rc = ss_run_carried_load(&br->carried[b], &from_index, o->ix, o->ixpath, o->repo,
				      br->ck[b], o->upstream, br->name[b], o->report)))
		return rc;
	/* read from the branch when the mainline named is in it (a checkout
	 * of the stable branch has it as HEAD): none were */
	if (!from_index) {
		char upid[41];

		if (!(o->handle ? ss_repo_resolve(upid, o->handle, up)
				: ss_git_resolve(upid, o->repo, up)) &&
		    ss_check_in_branch(br->ck[b], upid, NULL, NULL) == 1)
			ss_run_say(o->report, SS_RUN_WARNING,
				   "%s (%s) is in %s: none of the branch's commits are read as "
				   "backports; name the mainline with --onto-upstream REF", up,
				   o->upstream ? "--onto-upstream" : strcmp(up, "HEAD") ?
				   "the index's mainline" : "the repository's HEAD", br->name[b]);
	}
	return ss_verdicts_new(&br->vs[b], br->ck[b], br->carried[b]);
}

int ss_run_branches_open(ss_run_branches **out, const char *const *onto, size_t n,
			 const ss_run_branches_options *o)
{
	ss_run_branches *br;
	char found[1100];
	const char *up;
	int rc = 0;

	*out = NULL;
	if (n > SS_RANK_MAX_BRANCHES)
		return ss_error_code(SS_EINVALID, "at most %d stable branches, not %zu",
				     SS_RANK_MAX_BRANCHES, n);
	if (!(br = calloc(1, sizeof(*br))))
		return ss_error_code(SS_ENOMEM, "out of memory for the stable branches");
	br->repo = o->repo;
	br->report = o->report;
	for (size_t b = 0; b < n; b++) {
		if (!(br->name[b] = strdup(onto[b]))) {
			ss_run_branches_free(br);
			return ss_error_code(SS_ENOMEM, "out of memory for the stable branches");
		}
		br->n++;
	}
	/* the mainline the index found, not HEAD (a stable branch, or a
	 * 2-commit default branch, in a mirror) */
	up = o->upstream ? o->upstream : ss_run_index_upstream(o->ix, found, sizeof(found));
	/* a conflicting hunk is blamed once for all the branches */
	if (n > 1)
		rc = ss_check_blame_cache_new(&br->blame_cache);
	for (size_t b = 0; b < n && !rc; b++)
		rc = open_one(br, b, up, o);
	ss_run_progress_done(o->report);
	if (rc) {
		ss_run_branches_free(br);
		return rc;
	}
	*out = br;
	return 0;
}

/*
 * A branch's ancestry read commit by commit past this is worth a hint:
 * the kernel's 1.3 M commits take 15 s that way, 1 s from git's
 * commit-graph file (bench/results/index-scale.md); DPDK's and systemd's
 * histories stay under it.
 */
#define SS_RUN_WALK_HINT 200000

/* Said once, when the verdicts are decided: where each big ancestry
 * came from and whether it is kept for the next run (check_ancestry.c),
 * then the hint for a walk. */
static void walk_hint(const ss_run_branches *br)
{
	for (size_t b = 0; b < br->n; b++) {
		const char *error;
		size_t added;

		switch (ss_check_ancestry_kept(br->ck[b], &added, &error)) {
		case SS_CHECK_KEPT_READ:
			ss_run_say(br->report, SS_RUN_NOTE, "the history of --onto %s: read from the "
				   "copy an earlier run kept in the repository (stablesel/ancestry)",
				   br->name[b]);
			break;
		case SS_CHECK_KEPT_EXTENDED:
			ss_run_say(br->report, SS_RUN_NOTE, "the history of --onto %s: the copy an "
				   "earlier run kept in the repository (stablesel/ancestry) and the %zu "
				   "commits the branch gained since", br->name[b], added);
			break;
		case SS_CHECK_KEPT_WRITTEN:
			ss_run_say(br->report, SS_RUN_NOTE, "the history of --onto %s is kept in the "
				   "repository (stablesel/ancestry) for the next run", br->name[b]);
			break;
		case SS_CHECK_KEPT_NONE:
			break;
		}
		if (error)
			ss_run_say(br->report, SS_RUN_WARNING, "the history of --onto %s is not kept "
				   "for the next run: %s", br->name[b], error);
	}
	for (size_t b = 0; b < br->n; b++)
		if (ss_check_ancestry_walked(br->ck[b]) >= SS_RUN_WALK_HINT) {
			ss_run_say(br->report, SS_RUN_NOTE, "the history of --onto %s (%zu commits) was "
				   "read commit by commit: 'git commit-graph write --reachable' in the "
				   "repository makes it a file read", br->name[b],
				   ss_check_ancestry_walked(br->ck[b]));
			return;
		}
}

void ss_run_branches_free(ss_run_branches *br)
{
	if (!br)
		return;
	for (size_t b = 0; b < br->n; b++) {
		ss_verdicts_free(br->vs[b]);
		ss_carried_free(br->carried[b]);
		ss_check_free(br->ck[b]);
		free(br->name[b]);
	}
	ss_check_blame_cache_free(br->blame_cache);
	free(br);
}

size_t ss_run_branches_count(const ss_run_branches *br)
{
	return br ? br->n : 0;
}

const char *ss_run_branches_name(const ss_run_branches *br, size_t b)
{
	return ss_check_branch_name(br->ck[b]);
}

const char *ss_run_branches_tip(const ss_run_branches *br, size_t b)
{
	return ss_check_branch_id(br->ck[b]);
}

const ss_carried *ss_run_branches_carried(const ss_run_branches *br, size_t b)
{
	return br->carried[b];
}

int ss_run_branches_add(ss_run_branches *br, const ss_commit *c)
{
	int rc;

	for (size_t b = 0; br && b < br->n; b++)
		if ((rc = ss_verdicts_add(br->vs[b], c)))
			return ss_run_fail(rc, "cannot check %s against %s", c->id, br->name[b]);
	return 0;
}

/* What ss_verdicts_decide() asks of a run: the picks, where to report. */
struct deciding {
	ss_strmap *picks;
	const ss_run_report *report;
};

static int is_pick(const char *id, void *ud)
{
	const struct deciding *d = ud;

	return ss_strmap_find(d->picks, id, strlen(id)) != SS_STRMAP_NONE;
}

static void blame_progress(size_t done, size_t total, void *ud)
{
	const struct deciding *d = ud;

	ss_run_progress(d->report, "prerequisites and the queue", done, total);
}

/* Read commit id from the repository and add it to r as a queue's
 * prerequisite; a warning when it cannot be read. */
static int add_extra(ss_run_branches *br, ss_ranking *r, const char *id)
{
	ss_repo *h = br->n ? ss_check_repo(br->ck[0]) : NULL;
	ss_commit *c = NULL;
	int rc;

	/* through the branches' handle (their repository, as given: a
	 * "git:" path is read by the path function, which keeps it) */
	if (h && strcmp(ss_repo_path(h), br->repo))
		h = NULL;
	if ((h ? ss_repo_read_commit(&c, h, id) : ss_source_read_alone(&c, br->repo, id)) < 0) {
		ss_run_say(br->report, SS_RUN_WARNING, "cannot read prerequisite %.12s: %s", id,
			   ss_error_last());
		return 0;
	}
	if (!c)
		return 0;
	rc = ss_ranking_add_extra(r, c);
	ss_commit_free(c);
	return rc;
}

/* The picks of r, by id. */
static int picks_of(ss_strmap **out, ss_ranking *r)
{
	size_t n = ss_ranking_count(r);
	int rc;

	if ((rc = ss_strmap_new(out)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		ss_rank_row w;
		uint32_t id;

		ss_ranking_row(&w, r, i);
		if (w.pick && (rc = ss_strmap_intern(*out, w.id, strlen(w.id), &id)))
			return rc;
	}
	return 0;
}

/* Row i's verdicts, as data; propose and list it as they say. */
static int set_row(ss_run_branches *br, ss_ranking *r, size_t i, unsigned mask, ss_strbuf *detail)
{
	const char *names[SS_RANK_MAX_BRANCHES];
	int any = 0, listed = 0, done = 0, rc;
	ss_strbuf why = SS_STRBUF_INIT;
	ss_rank_row w;

	ss_ranking_row(&w, r, i);
	for (size_t b = 0; b < br->n; b++) {
		const ss_verdict *v = ss_verdicts_get(br->vs[b], w.id);
		ss_verdict_id needs[SS_CHECK_MAX_NEEDS];
		ss_verdict_data vd;

		names[b] = ss_check_branch_name(br->ck[b]);
		if (!v)
			continue;
		if ((rc = ss_verdict_export(&vd, needs, detail, v, names[b])) ||
		    (rc = ss_ranking_set_verdict(r, i, b, &vd))) {
			ss_strbuf_release(&why);
			return rc;
		}
		any |= vd.propose;
		done |= vd.word == SS_VERDICT_ALREADY;
		listed |= (mask >> vd.word) & 1;
		if ((w.flags & SS_RANK_ACCEPTED) && !vd.propose)
			ss_strbuf_addf(&why, "%s%s: %s%s%s%s", why.len ? "; " : "", names[b],
				       ss_verdict_word_name(vd.word), *vd.detail ? " (" : "", vd.detail,
				       *vd.detail ? ")" : "");
	}
	/* an accepted commit the queue cannot carry is said, never dropped
	 * silently: the maintainer backports it by hand */
	if ((w.flags & SS_RANK_ACCEPTED) && !any && !done)
		ss_run_say(br->report, SS_RUN_WARNING, "%.12s (%s) was accepted but is left out of the "
			   "queue: %s; backport it by hand", w.id, w.subject, why.buf ? why.buf : "no verdict");
	ss_strbuf_release(&why);
	/* verdicts change what is proposed, never a score */
	ss_ranking_restrict(r, i, any, !mask || listed);
	return 0;
}

/* The prerequisites a queue needs that r did not rank. */
static int add_extras(ss_run_branches *br, ss_ranking *r, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		if (!w.pick)
			continue;
		for (size_t b = 0; b < w.nverdicts && !rc; b++) {
			for (size_t j = 0; j < w.verdicts[b].nneeds && !rc; j++) {
				/* a copy: adding a row may move the ranking's ids */
				ss_verdict_id id;

				memcpy(id, w.verdicts[b].needs[j], sizeof(id));
				if (ss_ranking_find(r, id) == (size_t)-1)
					rc = add_extra(br, r, id);
				ss_ranking_row(&w, r, i);
			}
		}
	}
	return rc;
}

int ss_run_branches_decide(ss_run_branches *br, ss_ranking *r, unsigned mask, int extras)
{
	const char *names[SS_RANK_MAX_BRANCHES];
	ss_strbuf detail = SS_STRBUF_INIT;
	size_t n = ss_ranking_count(r);
	struct deciding d = { NULL, br->report };
	int rc;

	if ((rc = picks_of(&d.picks, r))) {
		ss_strmap_free(d.picks);
		return rc;
	}
	for (size_t b = 0; b < br->n && !rc; b++) {
		if ((rc = ss_verdicts_decide(br->vs[b], is_pick, blame_progress, &d)))
			rc = ss_run_fail(rc, "cannot decide verdicts for %s", br->name[b]);
		names[b] = ss_check_branch_name(br->ck[b]);
	}
	ss_run_progress_done(br->report);
	ss_strmap_free(d.picks);
	walk_hint(br);
	if (!rc)
		rc = ss_ranking_set_branches(r, names, br->n);
	for (size_t i = 0; i < n && !rc; i++)
		rc = set_row(br, r, i, mask, &detail);
	ss_strbuf_release(&detail);
	if (!rc && extras)
		rc = add_extras(br, r, n);
	return rc;
}

int ss_run_onto_identity(char **out, const ss_run_branches *br, size_t b, const char *onto,
			 const char *asked, ss_index *ix, char *const *hints, size_t nh, size_t n)
{
	char name[256];
	const char *id = ss_run_branches_name(br, b);

	if (asked && ix && !ss_index_branch_identity(name, sizeof(name), ix, asked, NULL))
		id = name;  /* --as-of: the branch asked for, at its commit of then */
	else if (ix && !ss_index_branch_identity(name, sizeof(name), ix, onto,
						 ss_run_branches_tip(br, b)))
		id = name;
	else if (nh == 1 || nh == n)
		id = hints[nh == 1 ? 0 : b];
	ss_error_clear();
	if (!(*out = strdup(id)))
		return ss_error_set("out of memory"), SS_ENOMEM;
	return 0;
}

int ss_run_queue_branch(size_t *out, const char *q, const char *qident, const ss_run_branches *br,
			const char *const *onto, const char *const *asked, char *const *ident,
			size_t n)
{
	char known[512];
	size_t used = 0;

	*out = 0;
	if (!q || !n)
		return 0;
	for (size_t b = 0; b < n; b++) {
		const char *name = ss_run_branches_name(br, b);

		if (!strcmp(q, onto[b]) || (asked[b] && !strcmp(q, asked[b])) ||
		    (name && !strcmp(q, name)) || (ident[b] && !strcmp(q, ident[b])) ||
		    (qident && ident[b] && !strcmp(qident, ident[b]))) {
			*out = b;
			return 0;
		}
	}
	known[0] = '\0';
	for (size_t b = 0; b < n && used < sizeof(known); b++)
		used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s", b ? ", " : "",
					 asked[b] ? asked[b] : onto[b]);
	ss_error_set("--queue-branch %s is none of the --onto branches (%s)", q, known);
	return SS_EINVALID;
}
