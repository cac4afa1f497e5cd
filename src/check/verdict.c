/*
 * verdict.c - one verdict per pick per branch (see verdict.h): the facts
 * gathered as the batch streams by (check_apply.c's placement, targets, what
 * the branch carries), decided once the picks are known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/verdict.h"
#include "commit/patch.h"
#include "commit/patchid.h"
#include "commit/series.h"
#include "history/histidx.h"
#include "queue/queue.h"
#include "source/diff.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/strmap.h"

struct rec;
static int shares_path(const struct rec *p, const uint32_t *set, size_t n);

struct target {
	char id[41];
	int revert;        /* "This reverts commit", else Fixes: */
	int in_branch;     /* 1 ancestor, 0 not, -1 not in the repository */
	const char *carried; /* the branch commit carrying it, or NULL */
};

struct rec {
	ss_verdict v;
	int queued;         /* in the queue (check_queue) */
	int failed;         /* does not apply after the queue before it */
	uint64_t patch;
	struct target t[SS_HISTIDX_MAX_TARGETS];
	size_t nt;          /* found targets */
	size_t nwritten;    /* targets written, found or not */
	/* a commit the repository does not have (mail): its diff, so that
	 * the queue can apply it after those before it (malloc'd; NULL for
	 * a commit of the repository or a capped diff) */
	char *diff;
	size_t difflen;
	uint32_t series;    /* its series (v->series_keys), or SS_STRMAP_NONE */
	unsigned series_num;   /* its number there (ordering) */
	unsigned series_total; /* m of a mail's "n/m", 0 unknown */
	uint32_t *paths;    /* the paths it changes (v->paths), series only */
	size_t npaths;
	int series_over;    /* more earlier patches needed than needs holds */
};

/* A prerequisite from outside the batch, placed on the branch once. */
struct outside {
	char id[41];
	ss_apply_status apply;
	char path[512];
	int queued;          /* in the queue (check_queue) */
	size_t order;        /* the order of the first queued pick needing it */
	int failed;          /* does not apply after the queue before it */
};

struct ss_verdicts {
	ss_check *ck;
	struct outside *out;
	size_t nout, outcap;
	const ss_carried *cr;
	ss_strmap *ids;     /* id -> index into recs, in order added */
	ss_strmap *series_keys; /* series keys, interned */
	ss_strmap *paths;   /* the paths series members change, interned */
	struct rec *recs;
	size_t n, cap;
};

int ss_verdicts_new(ss_verdicts **out, ss_check *ck, const ss_carried *cr)
{
	ss_verdicts *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v || ss_strmap_new(&v->ids) || ss_strmap_new(&v->series_keys) ||
	    ss_strmap_new(&v->paths)) {
		ss_verdicts_free(v);
		return ss_error_code(SS_ENOMEM, "out of memory for verdicts");
	}
	v->ck = ck;
	v->cr = cr;
	ss_check_set_carried(ck, cr);
	*out = v;
	return 0;
}

void ss_verdicts_free(ss_verdicts *v)
{
	if (!v)
		return;
	ss_strmap_free(v->ids);
	ss_strmap_free(v->series_keys);
	ss_strmap_free(v->paths);
	for (size_t i = 0; i < v->n; i++) {
		free(v->recs[i].paths);
		free(v->recs[i].diff);
	}
	free(v->recs);
	free(v->out);
	free(v);
}

/* Record the series of c in r: key, number, the paths it changes. */
static int add_series(ss_verdicts *v, struct rec *r, const ss_commit *c)
{
	ss_series se;

	r->series = SS_STRMAP_NONE;
	if (!ss_series_of(&se, c))
		return 0;
	if (ss_strmap_intern(v->series_keys, se.key, strlen(se.key), &r->series))
		goto nomem;
	r->series_num = se.n;
	r->series_total = se.total;
	r->paths = malloc((2 * c->nfiles + 1) * sizeof(*r->paths));
	if (!r->paths)
		goto nomem;
	for (size_t i = 0; i < c->nfiles; i++) {
		const char *two[2] = { c->files[i].old_path, c->files[i].new_path };

		for (int k = 0; k < 2; k++)
			if (two[k] && (!k || !two[0] || strcmp(two[0], two[1])) &&
			    ss_strmap_intern(v->paths, two[k], strlen(two[k]), &r->paths[r->npaths++]))
				goto nomem;
	}
	return 0;
nomem:
	return ss_error_code(SS_ENOMEM, "out of memory for a series");
}

static struct rec *rec_of(const ss_verdicts *v, const char *id)
{
	uint32_t k = ss_strmap_find(v->ids, id, strlen(id));

	return k == SS_STRMAP_NONE ? NULL : &v->recs[k];
}

/*
 * Did target d (a mainline commit, not in the branch's history, no
 * backport line naming it, not of the batch) reach the branch as a
 * cherry-pick without a line?  Its patch id says: d->carried is then the
 * branch commit, as for a line.  The table holds the same patch ids read
 * from the branch or from the index, so both give the same verdict.  (A
 * target of the batch is looked up as its own commit is: its "already".)
 */
static int carried_patch(ss_verdicts *v, struct target *d)
{
	ss_commit *c = NULL;
	uint64_t key;
	int rc = ss_check_read_commit(&c, v->ck, d->id);

	if (rc == SS_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	if ((key = ss_commit_patch_key(c)))
		ss_carried_find(&d->carried, v->cr, NULL, key);
	ss_commit_free(c);
	return 0;
}

int ss_verdicts_add(ss_verdicts *v, const ss_commit *c)
{
	ss_histidx *idx = ss_check_history(v->ck);
	ss_histidx_facts facts;
	struct rec *r;
	const char *carried;
	ss_carried_how how;
	uint32_t k;
	int rc;

	if (rec_of(v, c->id))
		return 0;
	if (SS_GROW(v->recs, v->n + 1, v->cap) || ss_strmap_intern(v->ids, c->id, strlen(c->id), &k))
		return ss_error_code(SS_ENOMEM, "out of memory for verdicts");
	r = &v->recs[v->n];
	memset(r, 0, sizeof(*r));
	snprintf(r->v.id, sizeof(r->v.id), "%s", c->id);
	r->v.order = v->n;
	r->v.time = c->committer.time ? c->committer.time : c->author.time;
	r->v.needed = -1;
	r->patch = ss_commit_patch_key(c);
	v->n++;   /* counted now: its paths are freed with the set */
	if ((rc = add_series(v, r, c)))
		return rc;
	/* later commits of the batch find this one as a target, mail included */
	if ((rc = ss_histidx_add_commit(idx, c)))
		return rc;
	/* the targets check resolved for the bug, used again below */
	if ((rc = ss_check_commit_facts(&r->v.check, &facts, v->ck, c)))
		return rc;
	if (r->v.check.in_branch) {
		r->v.already_how = SS_CARRIED_LINE;   /* its own id: the strongest */
		snprintf(r->v.already, sizeof(r->v.already), "%s", c->id);
	} else if (v->cr &&
		   (how = ss_carried_find(&carried, v->cr, c->id, r->patch)) != SS_CARRIED_NONE) {
		r->v.already_how = how;
		snprintf(r->v.already, sizeof(r->v.already), "%s", carried);
	}
	if (!c->truncated && !r->v.check.in_repo) {
		ss_strbuf sb = SS_STRBUF_INIT;

		if (ss_patch_diff(&sb, c, 0, NULL)) {
			ss_strbuf_release(&sb);
			return ss_error_code(SS_ENOMEM, "out of memory for verdicts");
		}
		r->diff = ss_strbuf_detach(&sb, &r->difflen);
	}
	r->nwritten = facts.ntargets + facts.ndropped;
	for (size_t i = 0; i < facts.ntargets; i++) {
		const ss_histidx_target *t = &facts.targets[i];
		struct target *d;

		if (!t->found || t->how == SS_ORIGIN_BLAME)
			continue;
		d = &r->t[r->nt++];
		snprintf(d->id, sizeof(d->id), "%s", t->commit.id);
		d->revert = t->how == SS_ORIGIN_REVERT;
		d->in_branch = ss_check_in_branch(v->ck, d->id, NULL, NULL);
		if (v->cr && d->in_branch != 1 &&
		    ss_carried_find(&d->carried, v->cr, d->id, 0) == SS_CARRIED_NONE &&
		    d->in_branch == 0 && !rec_of(v, d->id) && (rc = carried_patch(v, d)))
			return rc;
	}
	return 0;
}

/* Is the bug of r in the branch?  Sets needed and why; 1 when it changed. */
static int decide_needed(ss_verdicts *v, struct rec *r)
{
	const char *name = ss_check_branch_name(v->ck);
	int needed = -1;
	size_t absent = 0;
	char why[200] = "";

	if (!r->nwritten) {
		needed = r->v.check.files_in_branch ? 1 : -1;
		snprintf(why, sizeof(why), r->v.check.files_in_branch ?
			 "no Fixes: target; the files it changes are in %s" :
			 "no Fixes: target; some file it changes is not in %s", name);
	}
	for (size_t i = 0; i < r->nt && needed != 1; i++) {
		const struct target *t = &r->t[i];
		const struct rec *tr = rec_of(v, t->id);
		const char *what = t->revert ? "reverts" : "fixes";

		if (t->in_branch == 1) {
			needed = 1;
			snprintf(why, sizeof(why), "%s %.12s, which is in %s", what, t->id, name);
		} else if (t->carried) {
			needed = 1;
			snprintf(why, sizeof(why), "%s %.12s, which reached %s as %.12s", what, t->id,
				 name, t->carried);
		} else if (tr && tr->v.already[0]) {
			needed = 1;
			snprintf(why, sizeof(why), "%s %.12s, which reached %s as %.12s", what, t->id,
				 name, tr->v.already);
		} else if (tr && tr->v.proposed && ss_verdict_proposes(&tr->v)) {
			needed = 1;
			snprintf(why, sizeof(why), "%s %.12s, proposed for %s in this batch", what,
				 t->id, name);
		} else {
			absent++;
			if (!why[0])
				snprintf(why, sizeof(why), "%s %.12s, which is not in %s%s", what, t->id,
					 name, tr ? " and not proposed for it" : "");
		}
	}
	/* not needed only when every target written was found and is absent */
	if (needed != 1 && r->nwritten && absent == r->nt && r->nt == r->nwritten)
		needed = 0;
	else if (needed != 1 && r->nwritten && r->nt < r->nwritten)
		snprintf(why, sizeof(why), "a target it names is not in the repository");
	if (needed == r->v.needed && !strcmp(why, r->v.why))
		return 0;
	r->v.needed = needed;
	snprintf(r->v.why, sizeof(r->v.why), "%s", why);
	return 1;
}

static void decide_word(struct rec *r)
{
	ss_verdict *v = &r->v;

	if (v->already[0])
		v->word = SS_VERDICT_ALREADY;
	else if (v->reverted_by[0])
		v->word = SS_VERDICT_NO_REVERTED;
	else if (v->needed == 0)
		v->word = SS_VERDICT_NO_BUG;
	else if (v->needed < 0 || v->blocked[0])
		v->word = SS_VERDICT_UNKNOWN;
	else if (v->check.apply == SS_APPLY_CLEAN && !v->check.nneeds)
		v->word = SS_VERDICT_YES;
	else if ((v->check.apply == SS_APPLY_CONFLICT || v->check.apply == SS_APPLY_CLEAN) &&
		 v->check.nneeds && !v->blocked[0])
		v->word = SS_VERDICT_YES_NEEDS;
	else
		v->word = SS_VERDICT_UNKNOWN;
}

/*
 * Is p, a prerequisite of r that conflicts on the branch as it is, an
 * earlier patch of r's series whose conflict an even earlier patch r
 * also needs explains (it changes the conflicting file)?  Then the two
 * go in the queue in order, and the queue's own check (check_queue)
 * says whether they apply one after the other.
 */
static int series_explains(const ss_verdicts *v, const struct rec *r, const struct rec *p)
{
	uint32_t path;

	if (r->series == SS_STRMAP_NONE || p->series != r->series || !p->v.check.path[0] ||
	    (path = ss_strmap_find(v->paths, p->v.check.path, strlen(p->v.check.path))) ==
		    SS_STRMAP_NONE)
		return 0;
	for (int k = 0; k < r->v.check.nneeds; k++) {
		const struct rec *q = rec_of(v, r->v.check.needs[k]);

		if (q && q->series == r->series && q->series_num < p->series_num &&
		    shares_path(q, &path, 1))
			return 1;
	}
	return 0;
}

/* Place prerequisite id from outside the batch on the branch (once). */
static int outside_of(const struct outside **out, ss_verdicts *v, const char *id)
{
	ss_check_result res;
	ss_commit *c = NULL;
	struct outside *o;
	int rc;

	for (size_t i = 0; i < v->nout; i++)
		if (!strcmp(v->out[i].id, id)) {
			*out = &v->out[i];
			return 0;
		}
	if (SS_GROW(v->out, v->nout + 1, v->outcap))
		return ss_error_code(SS_ENOMEM, "out of memory for prerequisites");
	o = &v->out[v->nout];
	memset(o, 0, sizeof(*o));
	snprintf(o->id, sizeof(o->id), "%s", id);
	o->apply = SS_APPLY_UNKNOWN;
	rc = ss_check_read_commit(&c, v->ck, id);
	if (rc && rc != SS_ENOTFOUND)
		return rc;
	if (c) {
		if ((rc = ss_check_commit(&res, v->ck, c))) {
			ss_commit_free(c);
			return rc;
		}
		o->apply = res.apply;
		snprintf(o->path, sizeof(o->path), "%s", res.path);
		ss_commit_free(c);
	}
	v->nout++;
	*out = o;
	return 0;
}

/*
 * Does every prerequisite of the proposed pick r stand?  One of the batch
 * must be proposed or already there; one from outside must apply to the
 * branch as it is.  Sets r->v.blocked; 1 when it changed.
 */
static int check_prereqs(ss_verdicts *v, struct rec *r)
{
	const char *name = ss_check_branch_name(v->ck);
	char blocked[200] = "";
	int rc;

	if (r->series_over)
		snprintf(blocked, sizeof(blocked),
			 "series %u/%u needs more than %d earlier patches", r->v.series_n,
			 r->v.series_total, SS_CHECK_MAX_NEEDS);
	for (int k = 0; k < r->v.check.nneeds && !blocked[0]; k++) {
		const char *id = r->v.check.needs[k];
		const struct rec *p = rec_of(v, id);
		const struct outside *o = NULL;

		/* one of the batch: there already, proposed itself, or (not
		 * stable material on its own, the queue says so) applying to
		 * the branch as it is */
		if (p) {
			if (p->v.already[0] || (p->v.proposed && ss_verdict_proposes(&p->v)) ||
			    p->v.check.apply == SS_APPLY_CLEAN ||
			    (p->v.check.apply == SS_APPLY_CONFLICT && series_explains(v, r, p)))
				continue;
			if (p->v.reverted_by[0])
				snprintf(blocked, sizeof(blocked), "needs %.12s, which %.12s reverts", id,
					 p->v.reverted_by);
			else
				snprintf(blocked, sizeof(blocked),
					 "needs %.12s, which does not apply to %s (%s%s%.100s)", id, name,
					 ss_apply_status_name(p->v.check.apply), p->v.check.path[0] ? " " : "",
					 p->v.check.path);
			continue;
		}
		if ((rc = outside_of(&o, v, id)) < 0)
			return rc;
		if (o->apply != SS_APPLY_CLEAN)
			snprintf(blocked, sizeof(blocked), "needs %.12s, which does not apply to %s (%s%s%.100s)",
				 id, name, ss_apply_status_name(o->apply), o->path[0] ? " " : "", o->path);
	}
	if (!strcmp(blocked, r->v.blocked))
		return 0;
	snprintf(r->v.blocked, sizeof(r->v.blocked), "%s", blocked);
	return 1;
}

/* A series member, sorted by series, number, then as added. */
struct member {
	uint32_t series;
	unsigned num;
	size_t i;           /* index into recs, also the order added */
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Does p change a path of set[0..n)? */
static int shares_path(const struct rec *p, const uint32_t *set, size_t n)
{
	for (size_t i = 0; i < p->npaths; i++)
		for (size_t k = 0; k < n; k++)
			if (p->paths[i] == set[k])
				return 1;
	return 0;
}

/*
 * The earlier patches of r's series (members m[g0..at), numbered below
 * it) that r needs: walking back from the one before it, each the branch
 * does not carry and that changes a file r, or one already needed,
 * changes.  They join r's needs.
 */
static int series_needs(ss_verdicts *v, struct rec *r, const struct member *m, size_t g0, size_t at)
{
	uint32_t *set;
	size_t nset = r->npaths, cap = r->npaths + 1;
	unsigned last = 0;

	if (!(set = malloc(cap * sizeof(*set))))
		return ss_error_code(SS_ENOMEM, "out of memory for a series");
	memcpy(set, r->paths, r->npaths * sizeof(*set));
	for (size_t j = at; j-- > g0;) {
		struct rec *p = &v->recs[m[j].i];
		int k;

		if (p->series_num >= r->series_num || p->series_num == last)
			continue;   /* not before it, or a copy of one looked at */
		last = p->series_num;
		if (p->v.already[0] || !shares_path(p, set, nset))
			continue;
		if (SS_GROW(set, nset + p->npaths, cap)) {
			free(set);
			return ss_error_code(SS_ENOMEM, "out of memory for a series");
		}
		memcpy(set + nset, p->paths, p->npaths * sizeof(*set));
		nset += p->npaths;
		for (k = 0; k < r->v.check.nneeds; k++)
			if (!strcmp(r->v.check.needs[k], p->v.id))
				break;
		if (k == r->v.check.nneeds) {
			if (k == SS_CHECK_MAX_NEEDS) {
				r->series_over = 1;
				continue;
			}
			snprintf(r->v.check.needs[r->v.check.nneeds++], 41, "%s", p->v.id);
		}
		r->v.series_needs++;
	}
	free(set);
	return 0;
}

/* Does r, queued as a prerequisite of a pick without being proposed
 * itself, conflict on the branch but apply in the queue after the commits
 * before it?  Then it reads as a pick would: what it needs, and its word. */
static int queued_prereq(const struct rec *r)
{
	return r->queued && !r->v.proposed && !r->failed && !r->v.already[0] &&
	       !r->v.reverted_by[0] && r->v.check.apply == SS_APPLY_CONFLICT;
}

/*
 * Each series member's place ("series 2/5": its number among the
 * distinct numbers added, or the subject's n/m), and for the proposed
 * picks (prereqs: for the queued prerequisites, queued_prereq()) the
 * earlier patches they need.
 */
static int series_decide(ss_verdicts *v, int prereqs)
{
	struct member *m = malloc((v->n + 1) * sizeof(*m));
	size_t nm = 0;
	int rc = 0;

	if (!m)
		return ss_error_code(SS_ENOMEM, "out of memory for a series");
	for (size_t i = 0; i < v->n; i++)
		if (v->recs[i].series != SS_STRMAP_NONE)
			m[nm++] = (struct member){ v->recs[i].series, v->recs[i].series_num, i };
	qsort(m, nm, sizeof(*m), cmp_member);
	for (size_t g0 = 0, g1; g0 < nm && !rc; g0 = g1) {
		unsigned distinct = 0, last = 0, total = 0;

		for (g1 = g0; g1 < nm && m[g1].series == m[g0].series; g1++) {
			const struct rec *r = &v->recs[m[g1].i];

			distinct += r->series_num != last;
			last = r->series_num;
			if (r->series_total > total)
				total = r->series_total;
		}
		/* one patch read of a series nothing numbers: a single patch */
		if (distinct < 2 && total < 2)
			continue;
		last = 0;
		for (size_t j = g0, pos = 0; j < g1 && !rc; j++) {
			struct rec *r = &v->recs[m[j].i];

			pos += r->series_num != last;
			last = r->series_num;
			r->v.series_n = total ? r->series_num : (unsigned)pos;
			r->v.series_total = total ? total : distinct;
			if (prereqs ? queued_prereq(r)
				    : r->v.proposed && !r->v.already[0] && !r->v.reverted_by[0])
				rc = series_needs(v, r, m, g0, j);
		}
	}
	free(m);
	return rc;
}

/* Is id (a prerequisite) one that failed in the queue? */
static int failed_id(const ss_verdicts *v, const char *id)
{
	const struct rec *p = rec_of(v, id);

	if (p)
		return p->failed;
	for (size_t i = 0; i < v->nout; i++)
		if (!strcmp(v->out[i].id, id))
			return v->out[i].failed;
	return 0;
}

/* The commit of r, which only mail holds, rebuilt from its kept diff. */
static int mail_commit(ss_commit **out, const struct rec *r)
{
	ss_commit *c = ss_commit_new();
	int rc;

	*out = NULL;
	if (!c)
		return ss_error_code(SS_ENOMEM, "out of memory for a queue");
	snprintf(c->id, sizeof(c->id), "%s", r->v.id);
	if ((rc = ss_commit_parse_patch(c, r->diff, r->difflen, 0))) {
		ss_commit_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* The index of a prerequisite read apart, id, among v->out, or -1. */
static size_t out_of(const ss_verdicts *v, const char *id)
{
	for (size_t j = 0; j < v->nout; j++)
		if (!strcmp(v->out[j].id, id))
			return j;
	return (size_t)-1;
}

/*
 * Item i of the queue: the batch (v->recs, 0..n), then the prerequisites
 * read apart (v->out, n..n+nout), which have no place of their own.
 */
static int queue_item(ss_queue_item *item, ss_queue_lists *l, size_t i, void *ud)
{
	const ss_verdicts *v = ud;
	const ss_verdict *w;
	int proposes, rc = 0;

	if (i >= v->n) {
		*item = (ss_queue_item){ 0, 0, 0, 0, 1, NULL, 0, NULL, 0 };
		return 0;
	}
	w = &v->recs[i].v;
	proposes = ss_verdict_proposes(w);
	*item = (ss_queue_item){ w->order, 0, w->proposed && proposes, proposes, 0,
				 NULL, 0, NULL, 0 };
	for (int k = 0; k < w->check.nneeds && !rc; k++) {
		const struct rec *p = rec_of(v, w->check.needs[k]);
		size_t j = p ? (size_t)(p - v->recs) : out_of(v, w->check.needs[k]);

		if (p || j != (size_t)-1)
			rc = ss_queue_need(l, p ? j : v->n + j);
	}
	for (int k = 0; k < w->nfollowups && !rc; k++) {
		const struct rec *f = rec_of(v, w->followups[k]);

		if (f)
			rc = ss_queue_followup(l, (size_t)(f - v->recs));
	}
	return rc;
}

/*
 * Which commits are queued and in which order (queue/queue.h), over the
 * items queue_item() describes; *out lists the queued ones in the order
 * they apply.
 */
static int queue_order(size_t **out, size_t *nout, ss_verdicts *v)
{
	size_t n = v->n + v->nout;
	ss_queue_role *roles = calloc(n + 1, sizeof(*roles));
	size_t *queue = malloc((n + 1) * sizeof(*queue));
	int rc;

	*out = NULL;
	if (!roles || !queue) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a queue");
		goto free_all;
	}
	if ((rc = ss_queue_build_from(roles, queue, nout, n, queue_item, v)))
		goto free_all;
	for (size_t i = 0; i < v->n; i++)
		v->recs[i].queued = roles[i].kind != SS_QUEUE_NONE;
	for (size_t j = 0; j < v->nout; j++) {
		v->out[j].queued = roles[v->n + j].kind != SS_QUEUE_NONE;
		if (v->out[j].queued)
			v->out[j].order = roles[v->n + j].at;
	}
	*out = queue;
	queue = NULL;
free_all:
	free(queue);
	free(roles);
	return rc;
}

/*
 * The queue as rank writes it (the proposed picks, what they need first,
 * the follow-ups whose verdict proposes them), applied in memory in
 * upstream order, one after another (check.h's series): a commit that
 * does not apply after those before it leaves the queue and is unknown,
 * and so is every commit that needs it.  What is left git am applies.
 * A commit the repository does not have (mail) is applied from the diff
 * ss_verdicts_add() kept.
 */
static int check_queue(ss_verdicts *v, void (*progress)(size_t, size_t, void *), void *ud)
{
	const char *name = ss_check_branch_name(v->ck);
	size_t *items = NULL;
	ss_check_series *series = NULL;
	size_t n = 0;
	int rc;

	if ((rc = queue_order(&items, &n, v)))
		return rc;
	if ((rc = ss_check_series_new(&series, v->ck)))
		goto free_items;
	for (size_t i = 0; i < n && !rc; i++) {
		struct rec *r = items[i] < v->n ? &v->recs[items[i]] : NULL;
		struct outside *o = r ? NULL : &v->out[items[i] - v->n];
		const char *id = r ? r->v.id : o->id;
		char because[200] = "";
		ss_check_result res;
		ss_commit *c = NULL;
		int k;

		if (progress)
			progress(i + 1, n, ud);
		/* what it needs failed: it cannot go either */
		for (k = 0; r && k < r->v.check.nneeds && !because[0]; k++)
			if (failed_id(v, r->v.check.needs[k]))
				snprintf(because, sizeof(because),
					 "needs %.12s, which does not apply after the queue before it",
					 r->v.check.needs[k]);
		if (!because[0]) {
			if (r && r->diff)
				rc = mail_commit(&c, r);
			else
				rc = ss_check_read_commit(&c, v->ck, id);
			if (rc == SS_ENOTFOUND) {
				rc = 0;
				continue;   /* not in the repository: cannot try */
			}
			if (rc)
				break;
			rc = ss_check_series_apply(&res, series, c);
			ss_commit_free(c);
			if (rc < 0)
				break;
			if (rc == 1)
				snprintf(because, sizeof(because),
					 "does not apply to %s after the %zu commits queued before it (%s%s%.100s)",
					 name, i, ss_apply_status_name(res.apply), res.path[0] ? " " : "", res.path);
			rc = 0;
		}
		if (!because[0])
			continue;
		if (r) {
			r->failed = 1;
			snprintf(r->v.blocked, sizeof(r->v.blocked), "%s", because);
			decide_word(r);
		} else {
			o->failed = 1;
		}
	}
	ss_check_series_free(series);
free_items:
	free(items);
	return rc;
}

/* Is id queued, applying in the queue, before the batch commit at order? */
static int queued_before(const ss_verdicts *v, const char *id, size_t order)
{
	const struct rec *p = rec_of(v, id);

	if (p)
		return p->queued && !p->failed && p->v.order < order;
	for (size_t i = 0; i < v->nout; i++)
		if (!strcmp(v->out[i].id, id))
			return v->out[i].queued && !v->out[i].failed && v->out[i].order <= order;
	return 0;
}

/*
 * A commit of the batch queued only as a prerequisite of a pick (not
 * proposed itself) that conflicts on the branch as it is but applied in
 * the queue after the commits before it (queued_prereq()) reads as a pick
 * would: its prerequisites found as a pick's are (the blame of its
 * conflict, the earlier patches of its series), kept when they are queued
 * before it, and its word from its facts: "applies, needs <ids>" when its bug
 * is in the branch, where "unknown (conflict)" said nothing of the queue
 * that makes it apply.  The queue does not change: what it names is in
 * it already.
 */
static int prereq_words(ss_verdicts *v)
{
	int rc, any = 0;

	for (size_t i = 0; i < v->n; i++) {
		struct rec *r = &v->recs[i];

		if (!queued_prereq(r))
			continue;
		any = 1;
		if ((rc = ss_check_needs(&r->v.check, v->ck, r->v.id)))
			return rc;
	}
	if (!any)
		return 0;
	if ((rc = series_decide(v, 1)))
		return rc;
	for (size_t i = 0; i < v->n; i++) {
		struct rec *r = &v->recs[i];
		int kept = 0;

		if (!queued_prereq(r))
			continue;
		for (int k = 0; k < r->v.check.nneeds; k++)
			if (queued_before(v, r->v.check.needs[k], r->v.order))
				memmove(r->v.check.needs[kept++], r->v.check.needs[k], 41);
		r->v.check.nneeds = kept;
		if (!kept)
			r->v.series_needs = 0;
		decide_needed(v, r);
		decide_word(r);
	}
	return 0;
}

/*
 * Can r's bug be in the branch, whatever the other picks' verdicts turn
 * out to be?  decide_needed() with every proposed target of the batch
 * taken as yes: when this says no, r ends as "unaffected: bug not in branch" or
 * "unknown", and what it needs first would never be shown or queued.
 */
static int may_be_needed(const ss_verdicts *v, const struct rec *r)
{
	if (!r->nwritten)
		return r->v.check.files_in_branch;
	for (size_t i = 0; i < r->nt; i++) {
		const struct target *t = &r->t[i];
		const struct rec *tr = rec_of(v, t->id);

		if (t->in_branch == 1 || t->carried || (tr && (tr->v.already[0] || tr->v.proposed)))
			return 1;
	}
	return 0;
}

/* Does the pick r need its prerequisites blamed: proposed, conflicting,
 * neither there already nor reverted, its bug possibly in the branch? */
static int wants_needs(const ss_verdicts *v, const struct rec *r)
{
	return r->v.proposed && r->v.check.apply == SS_APPLY_CONFLICT && !r->v.already[0] &&
	       !r->v.reverted_by[0] && may_be_needed(v, r);
}

int ss_verdicts_decide(ss_verdicts *v, int (*proposed)(const char *id, void *ud),
		       void (*progress)(size_t done, size_t total, void *ud), void *ud)
{
	size_t conflicts = 0, done = 0;
	int rc, changed;

	for (size_t i = 0; i < v->n; i++) {
		struct rec *r = &v->recs[i];

		r->v.proposed = proposed ? proposed(r->v.id, ud) : 1;
		r->v.reverted_by[0] = '\0';
		r->v.nfollowups = 0;
		r->v.check.nneeds = 0;
		r->v.blocked[0] = '\0';
		r->v.series_n = r->v.series_total = 0;
		r->v.series_needs = 0;
		r->series_over = 0;
	}
	/* reverts and follow-ups: later commits naming a commit of the batch */
	for (size_t i = 0; i < v->n; i++) {
		struct rec *r = &v->recs[i];

		for (size_t k = 0; k < r->nt; k++) {
			struct rec *tr = rec_of(v, r->t[k].id);

			if (!tr || tr == r)
				continue;
			if (r->t[k].revert && !tr->v.reverted_by[0])
				snprintf(tr->v.reverted_by, sizeof(tr->v.reverted_by), "%s", r->v.id);
			else if (!r->t[k].revert && tr->v.nfollowups < SS_VERDICT_MAX_FOLLOWUPS)
				snprintf(tr->v.followups[tr->v.nfollowups++], 41, "%s", r->v.id);
		}
	}
	/* the prerequisites of the conflicting picks whose bug may be there:
	 * the one slow step (a blame each), so only for them */
	for (size_t i = 0; i < v->n; i++)
		conflicts += wants_needs(v, &v->recs[i]);
	if (conflicts) {
		/* announced: their history is walked once for all of them */
		const char **ids = malloc(conflicts * sizeof(*ids));
		const char **paths = malloc(conflicts * sizeof(*paths));
		size_t k = 0;

		if (!ids || !paths) {
			free(ids);
			free(paths);
			return ss_error_code(SS_ENOMEM, "out of memory for the picks' history");
		}
		for (size_t i = 0; i < v->n; i++)
			if (wants_needs(v, &v->recs[i])) {
				ids[k] = v->recs[i].v.id;
				paths[k++] = v->recs[i].v.check.path;
			}
		rc = ss_check_plan_needs(v->ck, ids, paths, k);
		free(ids);
		free(paths);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < v->n; i++) {
		struct rec *r = &v->recs[i];

		if (!wants_needs(v, r))
			continue;
		if ((rc = ss_check_needs(&r->v.check, v->ck, r->v.id)))
			return rc;
		if (progress)
			progress(++done, conflicts, ud);
	}
	/* the earlier patches of their series the picks need */
	if ((rc = series_decide(v, 0)))
		return rc;
	/* fix-of-fix chains: a target proposed with yes makes its fixes
	 * needed; upstream order settles a chain in one pass, the loop
	 * catches a batch read in another order */
	for (size_t pass = 0; pass <= v->n; pass++) {
		changed = 0;
		for (size_t i = 0; i < v->n; i++) {
			struct rec *r = &v->recs[i];

			changed |= decide_needed(v, r);
			decide_word(r);
			if (r->v.proposed && r->v.check.nneeds && r->v.needed == 1 && !r->v.already[0] &&
			    !r->v.reverted_by[0] && (r->v.check.apply == SS_APPLY_CONFLICT ||
						     r->v.check.apply == SS_APPLY_CLEAN)) {
				if ((rc = check_prereqs(v, r)) < 0)
					return rc;
				changed |= rc;
				decide_word(r);
			}
		}
		if (!changed)
			break;
	}
	for (size_t i = 0; i < v->n; i++)
		v->recs[i].failed = 0;
	for (size_t i = 0; i < v->nout; i++)
		v->out[i].failed = 0;
	if ((rc = check_queue(v, progress, ud)))
		return rc;
	return prereq_words(v);
}

const ss_verdict *ss_verdicts_get(const ss_verdicts *v, const char *id)
{
	const struct rec *r = rec_of(v, id);

	return r ? &r->v : NULL;
}

size_t ss_verdicts_count(const ss_verdicts *v)
{
	return v->n;
}

const ss_verdict *ss_verdicts_at(const ss_verdicts *v, size_t i)
{
	return i < v->n ? &v->recs[i].v : NULL;
}

const char *ss_verdicts_branch(const ss_verdicts *v)
{
	return ss_check_branch_name(v->ck);
}

int ss_verdict_series_shown(const ss_verdict *v)
{
	return v->word == SS_VERDICT_YES_NEEDS && v->series_needs && v->series_n;
}

int ss_verdict_proposes(const ss_verdict *v)
{
	return ss_verdict_word_proposes(v->word);
}
