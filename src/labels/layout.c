/*
 * layout.c - a repository's mainline, branch roles and release kinds from
 * its graph (layout.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <git2.h>

#include "history/histidx.h"
#include "labels/layout.h"
#include "labels/upstream.h"
#include "source/git.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/u64map.h"

#define YEAR ((int64_t)365 * 24 * 3600)

static const char *const staging_suffixes[] = { "-staging", "-next", "-rc", "-test", NULL };

const char *ss_layout_role_name(ss_layout_role role)
{
	static const char *const names[] = { "stable", "mainline", "staging", "end-of-life", "copy",
					     "unnamed", "releases" };

	return (unsigned)role < sizeof(names) / sizeof(*names) ? names[role] : "?";
}

void ss_layout_free(ss_layout *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nbranches; i++) {
		free(l->branches[i].name);
		free(l->branches[i].ref);
	}
	for (i = 0; i < l->nreleases; i++)
		free(l->releases[i].tag);
	free(l->branches);
	free(l->releases);
	free(l->mainline);
	free(l->mainline_name);
	free(l->head);
	free(l->note);
	free(l->warning);
	free(l->series);
	free(l->eol_note);
	free(l);
}

static int cmp_branch(const void *a, const void *b)
{
	return strcmp(((const ss_layout_branch *)a)->name, ((const ss_layout_branch *)b)->name);
}

static int cmp_release(const void *a, const void *b)
{
	return strcmp(((const ss_layout_release *)a)->tag, ((const ss_layout_release *)b)->tag);
}

const char *ss_layout_release_kind(const ss_layout *l, const char *tag)
{
	ss_layout_release key, *r;

	if (!l || !l->nreleases)
		return NULL;
	key.tag = (char *)tag;
	r = bsearch(&key, l->releases, l->nreleases, sizeof(key), cmp_release);
	return r ? r->kind : NULL;
}

int ss_layout_is_target(const ss_layout *l, const char *name)
{
	size_t i;

	for (i = 0; l && i < l->nbranches; i++)
		if (!strcmp(l->branches[i].name, name))
			return l->branches[i].role == SS_ROLE_STABLE;
	return 1;
}

/* The local name of a branch: "21.11" of "origin/21.11" (ref refs/remotes/...). */
static const char *local_of(const ss_layout_branch *b)
{
	const char *slash;

	if (strncmp(b->ref, "refs/remotes/", 13))
		return b->name;
	slash = strchr(b->name, '/');
	return slash ? slash + 1 : b->name;
}

static int is_remote(const ss_layout_branch *b)
{
	return !strncmp(b->ref, "refs/remotes/", 13);
}

static int list_branches(ss_layout *l, git_repository *r, const char *repo)
{
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;
	size_t cap = 0;
	int err;

	if (git_branch_iterator_new(&it, r, GIT_BRANCH_ALL) < 0)
		return ss_error_set("cannot list branches of '%s': %s", repo, ss_git_error());
	while (!(err = git_branch_next(&ref, &type, it))) {
		git_object *peeled = NULL;
		const char *name;
		ss_layout_branch *b;

		/* origin/HEAD is an alias, not a branch */
		if (git_reference_type(ref) != GIT_REFERENCE_DIRECT || git_branch_name(&name, ref) < 0 ||
		    git_reference_peel(&peeled, ref, GIT_OBJECT_COMMIT) < 0) {
			git_reference_free(ref);
			continue;
		}
		if (SS_GROW(l->branches, l->nbranches + 1, cap)) {
			err = SS_ENOMEM;
			goto free_ref;
		}
		b = &l->branches[l->nbranches];
		memset(b, 0, sizeof(*b));
		b->name = strdup(name);
		b->ref = strdup(git_reference_name(ref));
		if (!b->name || !b->ref) {
			free(b->name);
			free(b->ref);
			err = SS_ENOMEM;
			goto free_ref;
		}
		git_oid_tostr(b->tip, sizeof(b->tip), git_object_id(peeled));
		b->time = git_commit_time((const git_commit *)peeled);
		l->nbranches++;
free_ref:
		git_object_free(peeled);
		git_reference_free(ref);
		if (err)
			break;
	}
	git_branch_iterator_free(it);
	if (err == SS_ENOMEM)
		return ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'", repo);
	if (err != GIT_ITEROVER)
		return ss_error_set("cannot list branches of '%s': %s", repo, ss_git_error());
	if (l->nbranches)
		qsort(l->branches, l->nbranches, sizeof(*l->branches), cmp_branch);
	return 0;
}

/* Remote-tracking copies, staging areas, --branches, end of life. */
static void assign_roles(ss_layout *l, const char *glob)
{
	size_t i, j, k;
	int64_t newest = 0;

	for (i = 0; i < l->nbranches; i++) {
		ss_layout_branch *b = &l->branches[i];

		if (!is_remote(b))
			continue;
		/* a local branch of the name, else the first remote's
		 * ("origin" first) */
		for (j = 0; j < l->nbranches; j++) {
			ss_layout_branch *c = &l->branches[j];

			if (j == i || strcmp(local_of(c), local_of(b)) || c->role == SS_ROLE_COPY)
				continue;
			if (!is_remote(c) || (strncmp(b->name, "origin/", 7) &&
					      (!strncmp(c->name, "origin/", 7) || j < i))) {
				b->role = SS_ROLE_COPY;
				b->of = j;
				break;
			}
		}
	}
	for (i = 0; i < l->nbranches; i++) {
		ss_layout_branch *b = &l->branches[i];

		if (b->role == SS_ROLE_COPY)
			continue;
		if (glob) {
			if (fnmatch(glob, b->name, 0) && fnmatch(glob, local_of(b), 0))
				b->role = SS_ROLE_UNNAMED;
			continue;
		}
		for (k = 0; staging_suffixes[k]; k++) {
			const char *loc = local_of(b);
			size_t n = strlen(loc), s = strlen(staging_suffixes[k]);

			if (n <= s || strcmp(loc + n - s, staging_suffixes[k]))
				continue;
			for (j = 0; j < l->nbranches; j++) {
				const char *o = local_of(&l->branches[j]);

				if (j != i && l->branches[j].role != SS_ROLE_COPY && strlen(o) == n - s &&
				    !strncmp(o, loc, n - s)) {
					b->role = SS_ROLE_STAGING;
					b->of = j;
					break;
				}
			}
		}
	}
	for (i = 0; i < l->nbranches; i++)
		if (l->branches[i].role != SS_ROLE_COPY && l->branches[i].time > newest)
			newest = l->branches[i].time;
	l->newest = newest;
}

/* Key of a commit in the map (non-zero): FNV-1a over the whole id, so
 * that ids sharing their first bytes do not collide. */
static uint64_t oid_key(const git_oid *oid)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < GIT_OID_RAWSZ; i++)
		h = (h ^ oid->id[i]) * 1099511628211ULL;
	return h ? h : 1;
}

struct gnode {
	git_oid id;
	size_t pstart;      /* its parents: parents[pstart .. pstart + np) */
	uint32_t np, nchild;
	int ok;             /* the commit could be read */
};

struct paint {
	ss_u64map map;
	uint64_t *masks;    /* [n][nw] */
	size_t n, nw;
	struct gnode *nodes;
	size_t cap;
	size_t *parents;
	size_t nparents, capparents;
};

static int node(struct paint *p, const git_oid *oid, size_t *out, int *fresh)
{
	int rc = ss_u64map_find_or_put(&p->map, oid_key(oid), p->n, out);

	*fresh = 0;
	if (rc < 0)
		return rc;
	if (rc == 0) {
		if (SS_GROW(p->nodes, p->n + 1, p->cap))
			return SS_ENOMEM;
		memset(&p->nodes[p->n], 0, sizeof(*p->nodes));
		git_oid_cpy(&p->nodes[p->n].id, oid);
		*out = p->n++;
		*fresh = 1;
	}
	return 0;
}

#define HAS(p, i, b) (((p)->masks[(i) * (p)->nw + (b) / 64] >> ((b) % 64)) & 1)

/*
 * Mark every commit with the tips (tips[t]) reaching it, and count the
 * commits each reaches.  Tolerant, as the layout only guides: a commit
 * that cannot be read (a shallow clone's missing parent, a damaged or
 * hostile object) ends its line of history, a cycle is left unpainted;
 * the index's own walk says what is wrong with them.
 */
static int paint(struct paint *p, git_repository *r, const char *repo, char (*tips)[41],
		 size_t ntips, size_t *commits)
{
	size_t *stack = NULL, nstack = 0, capstack = 0, t, i, b, k;
	git_oid oid;
	int rc = 0, fresh;

	p->nw = (ntips + 63) / 64;
	if (!p->nw)
		return 0;
	for (t = 0; t < ntips; t++) {
		if (git_oid_fromstr(&oid, tips[t]) < 0)
			continue;
		if ((rc = node(p, &oid, &i, &fresh)))
			goto free_stack;
		if (fresh) {
			if (SS_GROW(stack, nstack + 1, capstack)) {
				rc = SS_ENOMEM;
				goto free_stack;
			}
			stack[nstack++] = i;
		}
	}
	/* every commit the tips reach, each with its parents */
	while (nstack) {
		git_commit *c = NULL;
		unsigned np;

		i = stack[--nstack];
		if (git_commit_lookup(&c, r, &p->nodes[i].id) < 0) {
			git_error_clear();
			continue;
		}
		p->nodes[i].ok = 1;
		np = git_commit_parentcount(c);
		p->nodes[i].pstart = p->nparents;
		for (k = 0; k < np; k++) {
			const git_oid *pid = git_commit_parent_id(c, (unsigned)k);
			size_t j;

			if (!pid)
				continue;
			if ((rc = node(p, pid, &j, &fresh)) ||
			    SS_GROW(p->parents, p->nparents + 1, p->capparents) ||
			    (fresh && SS_GROW(stack, nstack + 1, capstack))) {
				git_commit_free(c);
				rc = rc ? rc : SS_ENOMEM;
				goto free_stack;
			}
			p->parents[p->nparents++] = j;
			p->nodes[i].np++;
			p->nodes[j].nchild++;
			if (fresh)
				stack[nstack++] = j;
		}
		git_commit_free(c);
	}
	if (p->n && !(p->masks = calloc(p->n * p->nw, sizeof(*p->masks)))) {
		rc = SS_ENOMEM;
		goto free_stack;
	}
	for (t = 0; t < ntips; t++)
		if (!git_oid_fromstr(&oid, tips[t]) && ss_u64map_get(&p->map, oid_key(&oid), &i))
			p->masks[i * p->nw + t / 64] |= (uint64_t)1 << (t % 64);
	/* children before parents (Kahn): a commit's mask is complete when
	 * the last of its children has passed it on */
	for (i = 0; i < p->n; i++)
		if (!p->nodes[i].nchild) {
			if (SS_GROW(stack, nstack + 1, capstack)) {
				rc = SS_ENOMEM;
				goto free_stack;
			}
			stack[nstack++] = i;
		}
	while (nstack) {
		const struct gnode *g;

		i = stack[--nstack];
		g = &p->nodes[i];
		for (b = 0; g->ok && b < ntips; b++)
			commits[b] += HAS(p, i, b);
		for (k = 0; k < g->np; k++) {
			size_t j = p->parents[g->pstart + k];

			for (b = 0; b < p->nw; b++)
				p->masks[j * p->nw + b] |= p->masks[i * p->nw + b];
			if (!--p->nodes[j].nchild) {
				if (SS_GROW(stack, nstack + 1, capstack)) {
					rc = SS_ENOMEM;
					goto free_stack;
				}
				stack[nstack++] = j;
			}
		}
	}
free_stack:
	free(stack);
	return rc == SS_ENOMEM ? ss_error_code(SS_ENOMEM, "out of memory walking '%s'", repo) : rc;
}

/* The mask row of commit sha, or SIZE_MAX when no tip reaches it. */
static size_t painted(const struct paint *p, const char *sha)
{
	git_oid oid;
	size_t i;

	if (!p->nw || git_oid_fromstr(&oid, sha) < 0 || !ss_u64map_get(&p->map, oid_key(&oid), &i))
		return SIZE_MAX;
	return i;
}

/* The length of the stem of a branch named "<stem>-<word>" with a word
 * of letters only ("v4-20-" of "v4-20-test"), 0 when it is not so named
 * ("linux-6.6.y", "22.11"). */
static size_t series_stem(const ss_layout_branch *b)
{
	const char *loc = local_of(b), *dash = strrchr(loc, '-'), *q;

	if (!dash || dash == loc || !dash[1])
		return 0;
	for (q = dash + 1; *q; q++)
		if (!isalpha((unsigned char)*q))
			return 0;
	return (size_t)(dash - loc) + 1;
}

static int staging_named(const ss_layout_branch *b)
{
	const char *loc = local_of(b);
	size_t k, n = strlen(loc);

	for (k = 0; staging_suffixes[k]; k++)
		if (n > strlen(staging_suffixes[k]) &&
		    !strcmp(loc + n - strlen(staging_suffixes[k]), staging_suffixes[k]))
			return 1;
	return 0;
}

/* Whether tips a and b are one line of history: equal, one reaching the
 * other, or sharing a commit that no other tip reaches. */
static int one_series(const struct paint *p, const char *tipa, const char *tipb, size_t a,
		      size_t b)
{
	size_t ra = painted(p, tipa), rb = painted(p, tipb), k, w;

	if (!strcmp(tipa, tipb) || (ra != SIZE_MAX && HAS(p, ra, b)) ||
	    (rb != SIZE_MAX && HAS(p, rb, a)))
		return 1;
	for (k = 0; k < p->n; k++) {
		int others = 0;

		if (!HAS(p, k, a) || !HAS(p, k, b))
			continue;
		for (w = 0; w < p->nw && !others; w++) {
			uint64_t m = p->masks[k * p->nw + w];

			if (a / 64 == w)
				m &= ~((uint64_t)1 << (a % 64));
			if (b / 64 == w)
				m &= ~((uint64_t)1 << (b % 64));
			others = m != 0;
		}
		if (!others)
			return 1;
	}
	return 0;
}

/* The commits tip a reaches and tip b does not (*own), and how many of
 * them name an upstream commit (cherry-picks, backport lines). */
static size_t own_backports(size_t *own, git_repository *r, const struct paint *p,
			    const ss_upstream *up, size_t a, size_t b)
{
	size_t k, n = 0;

	*own = 0;
	for (k = 0; k < p->n; k++) {
		git_commit *c = NULL;
		const char *msg;
		char sha[1][41];

		if (!p->nodes[k].ok || !HAS(p, k, a) || HAS(p, k, b))
			continue;
		++*own;
		if (git_commit_lookup(&c, r, &p->nodes[k].id) < 0) {
			git_error_clear();
			continue;
		}
		msg = git_commit_message(c);
		n += msg && ss_upstream_find(up, msg, sha, 1) > 0;
		git_commit_free(c);
	}
	return n;
}

/*
 * Release series kept on two branches named "<stem>-<word>" (v4-20-test
 * and v4-20-stable) that are one line of history: the one that takes
 * the backports stays a stable branch, the series' target; the other
 * holds the releases (moved up to it at release time) and is read, no
 * target (SS_ROLE_RELEASES).  The one that takes them: the one with
 * more backport lines the other has not (the other gets them only at a
 * release); when both have as many (equal tips after a release), the one
 * named as a staging area (-test, -staging, -next, -rc); else the one
 * ahead (more commits of its own).  When none of these tells, both stay
 * stable branches.  Systemd's v255-stable (no -test beside it), Linux's
 * linux-6.6.y (no word of letters) and DPDK's 22.11 are no such pair.
 */
static int series_pairs(ss_layout *l, git_repository *r, const struct paint *p,
			const size_t *tipof)
{
	ss_upstream *up = NULL;
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i, j, k, npairs = 0;
	int rc = 0;

	for (i = 0; i < l->nbranches; i++) {
		ss_layout_branch *a = &l->branches[i], *b = NULL, *take, *rel;
		size_t stem = series_stem(a), same = 0, ba, bb, oa, ob;

		j = 0;
		char why[64];

		if (!stem || a->role != SS_ROLE_STABLE || tipof[i] == SIZE_MAX)
			continue;
		for (k = 0; k < l->nbranches; k++) {
			const ss_layout_branch *c = &l->branches[k];

			if (k == i || c->role == SS_ROLE_COPY || series_stem(c) != stem ||
			    strncmp(local_of(c), local_of(a), stem))
				continue;
			same++;
			j = k;
		}
		/* a pair, once, of two stable branches */
		if (same != 1 || j < i || l->branches[j].role != SS_ROLE_STABLE ||
		    tipof[j] == SIZE_MAX)
			continue;
		b = &l->branches[j];
		if (!one_series(p, a->tip, b->tip, tipof[i], tipof[j]))
			continue;
		if (!up && (rc = ss_upstream_new(&up, NULL, 0)))
			goto free_up;
		ba = own_backports(&oa, r, p, up, tipof[i], tipof[j]);
		bb = own_backports(&ob, r, p, up, tipof[j], tipof[i]);
		if (ba != bb) {
			take = ba > bb ? a : b;
			snprintf(why, sizeof(why), "%zu backport%s the other has not",
				 ba > bb ? ba - bb : bb - ba, (ba > bb ? ba - bb : bb - ba) > 1 ? "s" : "");
		} else if (staging_named(a) != staging_named(b)) {
			take = staging_named(a) ? a : b;
			snprintf(why, sizeof(why), "as many backports: its name");
		} else if (oa != ob) {
			take = oa > ob ? a : b;
			snprintf(why, sizeof(why), "as many backports: %zu commit%s ahead",
				 oa > ob ? oa - ob : ob - oa, (oa > ob ? oa - ob : ob - oa) > 1 ? "s" : "");
		} else {
			continue;
		}
		rel = take == a ? b : a;
		rel->role = SS_ROLE_RELEASES;
		rel->of = take == a ? i : j;
		if (npairs++ < 3)
			ss_strbuf_addf(&sb, "%s%s over %s (%s)", npairs > 1 ? ", " : "", take->name,
				       rel->name, why);
	}
	if (npairs && asprintf(&l->series, "%zu release series on two branches: the one taking the "
			       "backports is the target, the other holds the releases and is read, no "
			       "target: %s%s (name the targets with --branches)", npairs, sb.buf,
			       npairs > 3 ? " and more" : "") < 0)
		l->series = NULL;
free_up:
	ss_upstream_free(up);
	ss_strbuf_release(&sb);
	return rc;
}

/* Release tags with their commits' rows; shared[t]: reached by 2+ tips
 * (a tip with skip[t] set, a branch holding a series' releases, not
 * counted as one: skip NULL counts all). */
static int list_releases(ss_layout *l, git_repository *r, const char *repo, const char *glob,
			 struct paint *p, size_t ntips, size_t mtipno, const unsigned char *skip,
			 size_t *tags, size_t *shared)
{
	git_strarray names = { NULL, 0 };
	size_t i, b, cap = 0;
	int rc = 0;

	if (git_tag_list(&names, r) < 0)
		return ss_error_set("cannot list tags of '%s': %s", repo, ss_git_error());
	for (i = 0; i < names.count && !rc; i++) {
		const char *name = names.strings[i];
		git_object *obj = NULL, *peeled = NULL;
		ss_release_version v;
		char ref[1100];
		int isrel = !ss_release_version_parse(&v, name);
		ss_layout_release *rel;
		size_t row, reach = 0;

		if (glob ? fnmatch(glob, name, 0) != 0 : !isrel)
			continue;
		snprintf(ref, sizeof(ref), "refs/tags/%s", name);
		if (git_revparse_single(&obj, r, ref) < 0 ||
		    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
			git_object_free(obj);
			continue;
		}
		if (SS_GROW(l->releases, l->nreleases + 1, cap) ||
		    !(l->releases[l->nreleases].tag = strdup(name))) {
			rc = ss_error_code(SS_ENOMEM, "out of memory listing tags of '%s'", repo);
		} else {
			rel = &l->releases[l->nreleases++];
			git_oid_tostr(rel->sha, sizeof(rel->sha), git_object_id(peeled));
			rel->time = git_commit_time((const git_commit *)peeled);
			row = painted(p, rel->sha);
			for (b = 0; row != SIZE_MAX && b < ntips; b++)
				if (HAS(p, row, b)) {
					tags[b]++;
					reach += !skip || !skip[b];
				}
			for (b = 0; reach > 1 && b < ntips; b++)
				shared[b] += HAS(p, row, b);
			if ((isrel && v.rc) || (!isrel && strstr(name, "rc")))
				rel->kind = "rc";
			else if (row != SIZE_MAX && mtipno != SIZE_MAX && HAS(p, row, mtipno))
				rel->kind = "mainline";
			else
				rel->kind = "stable";
		}
		git_object_free(peeled);
		git_object_free(obj);
	}
	git_strarray_dispose(&names);
	if (l->nreleases)
		qsort(l->releases, l->nreleases, sizeof(*l->releases), cmp_release);
	return rc;
}

/*
 * A series that forks from the mainline at its release candidates
 * (v4-20-test from name-4.20.0rc1) has its first release, "x.y.0", off
 * the mainline: that release is the series' mainline release all the
 * same, when its name says ".0" (three parts: not systemd's v255.1) and
 * no release of x.y is on the mainline (DPDK's v22.11, Linux's v6.6 are).
 */
static void series_first_releases(ss_layout *l, const struct paint *p, size_t mtipno)
{
	size_t i, k;

	for (i = 0; i < l->nreleases; i++) {
		ss_layout_release *rel = &l->releases[i];
		ss_release_version v, w;
		int onmain = 0;

		if (strcmp(rel->kind, "stable") || ss_release_version_parse(&v, rel->tag) ||
		    !v.patch[0] || !ss_release_version_is_mainline(&v))
			continue;
		for (k = 0; k < l->nreleases && !onmain; k++) {
			size_t row = painted(p, l->releases[k].sha);

			onmain = row != SIZE_MAX && HAS(p, row, mtipno) &&
				 !ss_release_version_parse(&w, l->releases[k].tag) && !w.rc &&
				 !strcmp(w.major, v.major) && !strcmp(w.minor, v.minor);
		}
		if (!onmain)
			rel->kind = "mainline";
	}
}

static int preferred_name(const char *n)
{
	return !strcmp(n, "main") || !strcmp(n, "master") || !strcmp(n, "trunk");
}

/*
 * The candidate (an index of l->branches) that stands out as the
 * mainline, or SIZE_MAX with the message set naming the candidates.
 */
static size_t choose_mainline(ss_layout *l, const struct paint *p, const size_t *shared,
			      const char *repo)
{
	size_t best = SIZE_MAX, i, k;
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t nclose = 0;

	for (i = 0; i < l->nbranches; i++) {
		const ss_layout_branch *b = &l->branches[i], *c;

		if (b->role == SS_ROLE_COPY || b->role == SS_ROLE_STAGING ||
		    b->role == SS_ROLE_RELEASES)
			continue;
		if (best == SIZE_MAX) {
			best = i;
			continue;
		}
		c = &l->branches[best];
		if (b->commits != c->commits ? b->commits > c->commits
		    : (l->head && !strcmp(b->name, l->head)) ? 1
		    : (l->head && !strcmp(c->name, l->head)) ? 0
		    : preferred_name(local_of(b)) > preferred_name(local_of(c)) ? 1
		    : preferred_name(local_of(b)) < preferred_name(local_of(c)) ? 0
		    : is_remote(c) && !is_remote(b))
			best = i;
	}
	if (best == SIZE_MAX) {
		ss_error_code(SS_EINVALID, "'%s' has no branch to take as the mainline: name one with "
			      "--mainline REF", repo);
		return SIZE_MAX;
	}
	/* another candidate as long as the best: HEAD may break the tie
	 * (whether it did or not, another HEAD could) */
	for (i = 0; i < l->nbranches; i++) {
		const ss_layout_branch *b = &l->branches[i];

		if (i != best && b->role != SS_ROLE_COPY && b->role != SS_ROLE_STAGING &&
		    b->role != SS_ROLE_RELEASES && b->commits == l->branches[best].commits)
			l->head_decided = 1;
	}
	/* its own commits against each other's: more than twice theirs */
	for (i = 0; i < l->nbranches; i++) {
		const ss_layout_branch *b = &l->branches[i];
		size_t mine = 0, theirs = 0;

		if (i == best || b->role == SS_ROLE_COPY || b->role == SS_ROLE_STAGING ||
		    b->role == SS_ROLE_RELEASES || !strcmp(b->tip, l->branches[best].tip))
			continue;
		for (k = 0; k < p->n; k++) {
			int x = (int)HAS(p, k, best), y = (int)HAS(p, k, i);

			mine += x && !y;
			theirs += y && !x;
		}
		if ((mine > 2 * theirs || (mine > theirs && l->branches[best].tags > b->tags)) &&
		    shared[best] >= shared[i])
			continue;
		if (nclose++ < 4)
			ss_strbuf_addf(&sb, ", %s (%zu commits, %zu release tags)", b->name, b->commits,
				       b->tags);
	}
	if (nclose) {
		/* none stands out: HEAD's branch, when it is one, decides;
		 * else stop */
		for (i = 0; l->head && i < l->nbranches; i++)
			if (!strcmp(l->branches[i].name, l->head) && !is_remote(&l->branches[i]) &&
			    l->branches[i].role != SS_ROLE_STAGING &&
			    l->branches[i].role != SS_ROLE_RELEASES)
				break;
		if (l->head && i < l->nbranches) {
			l->head_decided = 1;
			if (asprintf(&l->note, "no branch stands out as the mainline (%s: %zu commits, "
				     "%zu release tags%s%s could be): HEAD's branch %s is taken (name "
				     "another with --mainline)", l->branches[best].name,
				     l->branches[best].commits, l->branches[best].tags, sb.buf,
				     nclose > 4 ? " and more" : "", l->head) < 0)
				l->note = NULL;
			ss_strbuf_release(&sb);
			return i;
		}
		ss_error_code(SS_EINVALID, "cannot tell the mainline of '%s': %s (%zu commits, %zu "
			      "release tags)%s%s could be; name it with --mainline REF", repo,
			      l->branches[best].name, l->branches[best].commits, l->branches[best].tags,
			      sb.buf, nclose > 4 ? " and more" : "");
		ss_strbuf_release(&sb);
		return SIZE_MAX;
	}
	ss_strbuf_release(&sb);
	return best;
}

/* An age in seconds (-1: never), or -2 when s is none. */
static int64_t parse_age(const char *s)
{
	static const char units[] = "dwmy";
	static const int64_t days[] = { 1, 7, 30, 365 };
	const char *u;
	char *end;
	long long n;

	if (s && !strcmp(s, "never"))
		return -1;
	if (!s || !isdigit((unsigned char)*s))
		return -2;
	n = strtoll(s, &end, 10);
	if (!*end || end[1] || !(u = strchr(units, *end)) || n > 100000)
		return -2;
	return (int64_t)n * days[u - units] * 24 * 3600;
}

#define BAD_AGE "bad age '%s': digits and d, w, m or y (\"180d\", \"2y\"), or never"

int ss_layout_parse_age(int64_t *out, const char *s)
{
	if ((*out = parse_age(s)) == -2)
		return ss_error_code(SS_EINVALID, BAD_AGE, s ? s : "");
	return 0;
}

/* HEAD's branch (short) into l->head, NULL when detached or no branch. */
static int read_head(ss_layout *l, git_repository *r)
{
	git_reference *ref = NULL;
	int rc = 0;

	if (!git_repository_head_detached(r) && git_repository_head(&ref, r) == 0 &&
	    git_reference_is_branch(ref) && !(l->head = strdup(git_reference_shorthand(ref))))
		rc = SS_ENOMEM;
	git_reference_free(ref);
	git_error_clear();
	return rc;
}

/* The stable branches' glob (--branches, else git config
 * stablesel.branches) and, without --eol, git config stablesel.eol: NULL
 * when not set. */
static int read_config(git_repository *r, const ss_layout_options *o, char **glob, char **eol)
{
	git_config *cfg = NULL;
	const char *v;

	*glob = NULL;
	*eol = NULL;
	if (o->branches) {
		*glob = strdup(o->branches);
	} else if (!git_repository_config_snapshot(&cfg, r) &&
		   !git_config_get_string(&v, cfg, "stablesel.branches") && *v) {
		*glob = strdup(v);
	}
	if (!o->eol && (cfg || !git_repository_config_snapshot(&cfg, r)) &&
	    !git_config_get_string(&v, cfg, "stablesel.eol") && *v && !(*eol = strdup(v))) {
		git_config_free(cfg);
		free(*glob);
		*glob = NULL;
		return SS_ENOMEM;
	}
	git_config_free(cfg);
	git_error_clear();
	if ((o->branches || *glob) && !*glob) {
		free(*eol);
		*eol = NULL;
		return SS_ENOMEM;
	}
	return 0;
}

static int head_and_config(ss_layout *l, git_repository *r, const ss_layout_options *o,
			   char **glob, char **eol)
{
	int rc = read_head(l, r);

	*glob = NULL;
	*eol = NULL;
	return rc ? rc : read_config(r, o, glob, eol);
}

/* One warning for the branches that a tag shares a name with. */
static int tag_clashes(ss_layout *l, git_repository *r)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < l->nbranches; i++) {
		git_reference *ref = NULL;
		char name[1100];

		if (is_remote(&l->branches[i]))
			continue;
		snprintf(name, sizeof(name), "refs/tags/%s", l->branches[i].name);
		if (git_reference_lookup(&ref, r, name) == 0 && n++ < 3)
			ss_strbuf_addf(&sb, "%s'%s'", n > 1 ? ", " : "", l->branches[i].name);
		git_reference_free(ref);
	}
	git_error_clear();
	if (n && asprintf(&l->warning, "%s %s%s both a branch and a tag: the branch is read "
			  "(refs/heads/)", sb.buf, n > 3 ? "and more " : "", n > 1 ? "are" : "is") < 0)
		l->warning = NULL;
	ss_strbuf_release(&sb);
	return 0;
}

/*
 * The release tag of the line a branch is named for ("23.11": "v23.11",
 * "23.11" or "v23.11.0"), when it is not the branch's tip: the branch is
 * then that release's stable branch.  A mirror of stable branches only
 * (DPDK's dpdk-stable: 16.11 ... 23.11 and a 2-commit "default") has no
 * mainline branch, and the branch reaching the most commits is the newest
 * stable branch; the mainline is the release it forks from.  NULL when
 * the branch is named for no release line.
 */
static const char *line_release(const ss_layout *l, const ss_layout_branch *b)
{
	const char *name = local_of(b);
	size_t i;

	for (i = 0; i < l->nreleases; i++) {
		const ss_layout_release *rel = &l->releases[i];
		ss_release_version v;
		char line[20];

		if (ss_release_version_parse(&v, rel->tag) || v.rc ||
		    !ss_release_version_is_mainline(&v))
			continue;
		snprintf(line, sizeof(line), "%s.%s", v.major, v.minor);
		if (!strcmp(name, line) && strcmp(rel->sha, b->tip))
			return rel->tag;
	}
	return NULL;
}

/*
 * Stable branches with no commit for a year before the newest branch tip
 * become end of life; with a setting (what, named by from), those with
 * no commit for its age before the newest stable release (the newest
 * tip when there is none), none with "never", said in l->eol_note.
 */
static int end_of_life(ss_layout *l, const char *what, const char *from)
{
	int64_t age = YEAR, ref = l->newest;
	const char *newest = NULL;
	size_t i, n = 0;
	char date[32];
	time_t t;
	struct tm tm;

	if (what) {
		if ((age = parse_age(what)) == -2)
			return ss_error_code(SS_EINVALID, "%s: " BAD_AGE, from, what);
		for (i = 0; i < l->nreleases; i++)
			if (!strcmp(l->releases[i].kind, "stable") &&
			    (!newest || l->releases[i].time > ref)) {
				ref = l->releases[i].time;
				newest = l->releases[i].tag;
			}
	}
	for (i = 0; age >= 0 && i < l->nbranches; i++)
		if (l->branches[i].role == SS_ROLE_STABLE && ref - l->branches[i].time > age) {
			l->branches[i].role = SS_ROLE_EOL;
			n++;
		}
	if (!what)
		return 0;
	t = (time_t)ref;
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	if ((age < 0 ? asprintf(&l->eol_note, "no branch is end of life (%s never)", from)
	     : asprintf(&l->eol_note, "end of life: no commit in %s before %s%s (%s; %s): %zu "
			"branch%s", what, newest ? "the newest stable release " : "the newest branch tip",
			newest ? newest : "", date, from, n, n == 1 ? "" : "es")) < 0)
		l->eol_note = NULL;
	return 0;
}

/* What HEAD alone makes of a found mainline, in l->note when nothing
 * else is said there (choose_mainline() took HEAD's branch: it is the
 * mainline; a release's line: it says so). */
static void head_note(ss_layout *l)
{
	if (l->note)
		return;
	if (!l->head && asprintf(&l->note, "HEAD is no branch: the mainline is %s, the branch "
				 "reaching the most commits and release tags (name another with "
				 "--mainline)", l->mainline_name) < 0)
		l->note = NULL;
	if (l->head && strcmp(l->head, l->mainline_name) &&
	    asprintf(&l->note, "HEAD is %s, the mainline is %s: the branch reaching the most "
		     "commits and release tags (name another with --mainline)", l->head,
		     l->mainline_name) < 0)
		l->note = NULL;
	l->note_from_head = l->note != NULL;
}

int ss_layout_find(ss_layout **out, const char *repo, const ss_layout_options *o)
{
	ss_repo *r;
	int rc;

	*out = NULL;
	if ((rc = ss_repo_open(&r, repo)))
		return rc;
	rc = ss_layout_find_repo(out, r, o);
	ss_repo_free(r);
	return rc;
}

int ss_layout_find_repo(ss_layout **out, ss_repo *repo, const ss_layout_options *o)
{
	static const ss_layout_options defaults = SS_LAYOUT_OPTIONS_INIT;
	git_repository *r = ss_repo_git(repo);
	ss_layout *l;
	struct paint p;
	char (*tips)[41] = NULL;
	size_t *commits = NULL, *tags = NULL, *shared = NULL, ntips = 0, i, mtipno = SIZE_MAX;
	size_t *tipof = NULL;
	unsigned char *skip = NULL;
	const char *path = ss_repo_path(repo);
	char *glob = NULL, *eolcfg = NULL, *redo = NULL, *redo_branch = NULL, key[41];
	int rc, head_decided = 0;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	if (!o)
		o = &defaults;
	/* the inputs' key before the inputs: a ref that moves meanwhile
	 * makes the next key another one, never this layout another's */
	if ((rc = ss_layout_key(key, repo, o)))
		return rc;
	if (!(l = calloc(1, sizeof(*l))))
		return SS_ENOMEM;
	if ((rc = head_and_config(l, r, o, &glob, &eolcfg)) || (rc = list_branches(l, r, path)))
		goto free_all;
	l->explicit_branches = glob != NULL;
	assign_roles(l, glob);
	tips = calloc(l->nbranches + 1, sizeof(*tips));
	tipof = calloc(l->nbranches + 1, sizeof(*tipof));
	commits = calloc(l->nbranches + 1, sizeof(*commits));
	tags = calloc(l->nbranches + 1, sizeof(*tags));
	shared = calloc(l->nbranches + 1, sizeof(*shared));
	skip = calloc(l->nbranches + 1, sizeof(*skip));
	if (!tips || !tipof || !commits || !tags || !shared || !skip) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	for (i = 0; i < l->nbranches; i++) {
		tipof[i] = SIZE_MAX;
		if (l->branches[i].role == SS_ROLE_COPY)
			continue;
		tipof[i] = ntips;
		memcpy(tips[ntips++], l->branches[i].tip, 41);
	}
	if (o->mainline) {
		char ref[1100];
		git_object *obj = NULL, *peeled = NULL;

		/* a branch's name is the branch, also when a tag has it */
		for (i = 0; i < l->nbranches; i++)
			if (!strcmp(l->branches[i].name, o->mainline) ||
			    !strcmp(l->branches[i].ref, o->mainline))
				break;
		if (i < l->nbranches && l->branches[i].role == SS_ROLE_COPY)
			i = l->branches[i].of;
		if (i < l->nbranches) {
			l->mainline = strdup(l->branches[i].ref);
			l->mainline_name = strdup(l->branches[i].name);
			memcpy(l->mtip, l->branches[i].tip, 41);
			mtipno = tipof[i];
			l->branches[i].role = SS_ROLE_MAINLINE;
		} else {
			snprintf(ref, sizeof(ref), "%s", o->mainline);
			if (git_revparse_single(&obj, r, ref) < 0 ||
			    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
				git_object_free(obj);
				rc = ss_error_code(SS_ENOTFOUND, "no commit '%s' in '%s'", o->mainline,
						   path);
				goto free_all;
			}
			git_oid_tostr(l->mtip, sizeof(l->mtip), git_object_id(peeled));
			git_object_free(peeled);
			git_object_free(obj);
			l->mainline = strdup(o->mainline);
			l->mainline_name = strdup(o->mainline);
			mtipno = ntips;
			memcpy(tips[ntips++], l->mtip, 41);
		}
		if (!l->mainline || !l->mainline_name) {
			rc = SS_ENOMEM;
			goto free_all;
		}
	}
	if ((rc = paint(&p, r, path, tips, ntips, commits)))
		goto free_all;
	for (i = 0; i < l->nbranches; i++)
		if (tipof[i] != SIZE_MAX)
			l->branches[i].commits = commits[tipof[i]];
	/* a series' branch of releases beside its branch of backports */
	if (!glob && (rc = series_pairs(l, r, &p, tipof)))
		goto free_all;
	for (i = 0; i < l->nbranches; i++)
		if (tipof[i] != SIZE_MAX)
			skip[tipof[i]] = l->branches[i].role == SS_ROLE_RELEASES;
	/* the tags before the mainline is known: shared counts need no
	 * mainline; kinds are set again below once it is */
	if ((rc = list_releases(l, r, path, o->release_tags, &p, ntips, mtipno, skip, tags,
				shared)))
		goto free_all;
	for (i = 0; i < l->nbranches; i++)
		if (tipof[i] != SIZE_MAX)
			l->branches[i].tags = tags[tipof[i]];
	if (!o->mainline) {
		size_t *sh = calloc(l->nbranches + 1, sizeof(*sh)), best;

		if (!sh) {
			rc = SS_ENOMEM;
			goto free_all;
		}
		/* choose_mainline works on branch indexes: a row per branch */
		for (i = 0; i < l->nbranches; i++)
			sh[i] = tipof[i] != SIZE_MAX ? shared[tipof[i]] : 0;
		best = SIZE_MAX;
		{
			/* masks are by tip; branch i's bit is tipof[i] */
			struct paint byb = p;
			uint64_t *m = NULL;
			size_t nw = (l->nbranches + 63) / 64, k, b;

			if (p.n && !(m = calloc(p.n * nw, sizeof(*m)))) {
				free(sh);
				rc = SS_ENOMEM;
				goto free_all;
			}
			for (k = 0; k < p.n; k++)
				for (b = 0; b < l->nbranches; b++)
					if (tipof[b] != SIZE_MAX && HAS(&p, k, tipof[b]))
						m[k * nw + b / 64] |= (uint64_t)1 << (b % 64);
			byb.masks = m;
			byb.nw = nw;
			best = choose_mainline(l, &byb, sh, path);
			free(m);
		}
		free(sh);
		if (best == SIZE_MAX) {
			rc = SS_EINVALID;
			goto free_all;
		}
		{
			const char *tag = line_release(l, &l->branches[best]);

			if (tag) {
				/* read again with the release as the mainline */
				redo = strdup(tag);
				redo_branch = strdup(l->branches[best].name);
				head_decided = l->head_decided;
				rc = redo && redo_branch ? 0 : SS_ENOMEM;
				goto free_all;
			}
		}
		l->found = 1;
		l->branches[best].role = SS_ROLE_MAINLINE;
		l->mainline = strdup(l->branches[best].ref);
		l->mainline_name = strdup(l->branches[best].name);
		memcpy(l->mtip, l->branches[best].tip, 41);
		mtipno = tipof[best];
		if (!l->mainline || !l->mainline_name) {
			rc = SS_ENOMEM;
			goto free_all;
		}
		head_note(l);
	}
	for (i = 0; i < l->nreleases; i++) {
		ss_layout_release *rel = &l->releases[i];
		size_t row = painted(&p, rel->sha);

		ss_release_version v;
		size_t b, reached = 0;

		if (!strcmp(rel->kind, "rc"))
			continue;
		for (b = 0; row != SIZE_MAX && b < ntips; b++)
			reached += HAS(&p, row, b);
		/* a tag no branch reaches: its name says (as without a graph) */
		if (!reached)
			rel->kind = !ss_release_version_parse(&v, rel->tag) &&
				    !ss_release_version_is_mainline(&v) ? "stable" : "mainline";
		else
			rel->kind = mtipno != SIZE_MAX && HAS(&p, row, mtipno) ? "mainline" : "stable";
	}
	if (mtipno != SIZE_MAX)
		series_first_releases(l, &p, mtipno);
	/* end of life: no commit for a year before the newest tip, or as
	 * the setting says before the newest stable release */
	if (!l->explicit_branches && (rc = end_of_life(l, o->eol ? o->eol : eolcfg,
						      o->eol ? "--eol" : "git config stablesel.eol")))
		goto free_all;
	rc = tag_clashes(l, r);
free_all:
	if (rc == SS_ENOMEM)
		rc = ss_error_code(SS_ENOMEM, "out of memory reading the layout of '%s'", path);
	free(glob);
	free(eolcfg);
	free(tips);
	free(tipof);
	free(commits);
	free(tags);
	free(shared);
	free(skip);
	free(p.masks);
	free(p.nodes);
	free(p.parents);
	ss_u64map_release(&p.map);
	if (!rc && redo) {
		ss_layout_options o2 = *o;

		ss_layout_free(l);
		l = NULL;
		o2.mainline = redo;
		/* the same handle: the repository is opened once */
		if (!(rc = ss_layout_find_repo(&l, repo, &o2))) {
			l->found = 1;
			l->head_decided |= head_decided;
			free(l->note);
			l->note_from_head = 0;
			if (asprintf(&l->note, "no branch is the mainline: %s is the stable branch of "
				     "release %s, the newest the branches fork from; the mainline is "
				     "read up to %s (name another with --mainline)", redo_branch, redo,
				     redo) < 0)
				l->note = NULL;
		}
	}
	free(redo);
	free(redo_branch);
	if (rc) {
		ss_layout_free(l);
		return rc;
	}
	memcpy(l->key, key, sizeof(l->key));
	*out = l;
	return 0;
}

char *ss_layout_describe(const ss_layout *l)
{
	size_t kinds[3] = { 0, 0, 0 }, roles[SS_ROLE_RELEASES + 1] = { 0 }, i;
	ss_strbuf sb = SS_STRBUF_INIT;
	int first = 1;

	for (i = 0; i < l->nreleases; i++)
		kinds[!strcmp(l->releases[i].kind, "mainline") ? 0
		      : !strcmp(l->releases[i].kind, "stable") ? 1 : 2]++;
	for (i = 0; i < l->nbranches; i++)
		roles[l->branches[i].role]++;
	ss_strbuf_addf(&sb, "mainline %s (%s", l->mainline_name,
		       l->found ? "found" : "named");
	if (l->found)
		ss_strbuf_addf(&sb, "; HEAD %s%s", l->head ? "is " : "is no branch",
			       l->head ? l->head : "");
	ss_strbuf_addf(&sb, "), %zu release tags: %zu mainline, %zu stable, %zu rc; branches:",
		       l->nreleases, kinds[0], kinds[1], kinds[2]);
	for (i = 0; i <= SS_ROLE_RELEASES; i++) {
		if (i == SS_ROLE_MAINLINE || !roles[i])
			continue;
		ss_strbuf_addf(&sb, "%s %zu %s", first ? "" : ",", roles[i],
			       ss_layout_role_name((ss_layout_role)i));
		first = 0;
	}
	if (first)
		ss_strbuf_addf(&sb, " none but the mainline");
	return ss_strbuf_detach(&sb, NULL);
}

/* "name -\n" for NULL, else "name <length>:<bytes>\n": no value can
 * pass for another. */
static int key_field(ss_strbuf *sb, const char *name, const char *v)
{
	return v ? ss_strbuf_addf(sb, "%s %zu:%s\n", name, strlen(v), v)
		 : ss_strbuf_addf(sb, "%s -\n", name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every branch and tag ref with what it points to, one line each,
 * sorted, onto sb. */
static int key_refs(ss_strbuf *sb, git_repository *r, const char *repo)
{
	static const char *const spaces[] = { "refs/heads/", "refs/remotes/", "refs/tags/" };
	git_reference_iterator *it = NULL;
	git_reference *ref;
	char **lines = NULL, hex[GIT_OID_HEXSZ + 1];
	size_t n = 0, cap = 0, i;
	int rc = 0, err;

	if (git_reference_iterator_new(&it, r) < 0)
		return ss_error_set("cannot list the refs of '%s': %s", repo, ss_git_error());
	while (!rc && !(err = git_reference_next(&ref, it))) {
		const char *name = git_reference_name(ref);
		char *line = NULL;

		for (i = 0; i < sizeof(spaces) / sizeof(*spaces); i++)
			if (!strncmp(name, spaces[i], strlen(spaces[i])))
				break;
		if (i < sizeof(spaces) / sizeof(*spaces)) {
			if (git_reference_type(ref) == GIT_REFERENCE_DIRECT)
				git_oid_tostr(hex, sizeof(hex), git_reference_target(ref));
			if ((git_reference_type(ref) == GIT_REFERENCE_DIRECT
			     ? asprintf(&line, "%s %s", name, hex)
			     : asprintf(&line, "%s -> %s", name, git_reference_symbolic_target(ref)
					? git_reference_symbolic_target(ref) : "")) < 0)
				rc = SS_ENOMEM;
			else if (SS_GROW(lines, n + 1, cap)) {
				free(line);
				rc = SS_ENOMEM;
			} else {
				lines[n++] = line;
			}
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	if (!rc && err != GIT_ITEROVER)
		rc = ss_error_set("cannot list the refs of '%s': %s", repo, ss_git_error());
	if (n)
		qsort(lines, n, sizeof(*lines), cmp_str);
	for (i = 0; i < n; i++) {
		if (!rc && key_field(sb, "ref", lines[i]))
			rc = SS_ENOMEM;
		free(lines[i]);
	}
	free(lines);
	return rc;
}

int ss_layout_key(char out[41], ss_repo *repo, const ss_layout_options *o)
{
	static const ss_layout_options defaults = SS_LAYOUT_OPTIONS_INIT;
	git_repository *r = ss_repo_git(repo);
	const char *path = ss_repo_path(repo);
	ss_strbuf sb = SS_STRBUF_INIT, shallow = SS_STRBUF_INIT;
	char *glob = NULL, *eol = NULL, hex[GIT_OID_HEXSZ + 1] = "";
	git_oid oid;
	FILE *f;
	int rc;

	out[0] = '\0';
	if (!o)
		o = &defaults;
	if ((rc = read_config(r, o, &glob, &eol)))
		goto free_all;
	if (o->mainline) {
		git_object *obj = NULL, *peeled = NULL;

		if (!git_revparse_single(&obj, r, o->mainline) &&
		    !git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT))
			git_oid_tostr(hex, sizeof(hex), git_object_id(peeled));
		git_object_free(peeled);
		git_object_free(obj);
		git_error_clear();
	}
	/* a shallow clone deepened reaches more commits from the same refs */
	if (ss_strbuf_addf(&shallow, "%sshallow", git_repository_commondir(r))) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	if ((f = fopen(shallow.buf, "rb"))) {
		char buf[4096];
		size_t got;

		ss_strbuf_reset(&shallow);
		while (!rc && (got = fread(buf, 1, sizeof(buf), f)))
			rc = ss_strbuf_add(&shallow, buf, got);
		fclose(f);
	} else {
		ss_strbuf_reset(&shallow);
	}
	if (rc || ss_strbuf_addf(&sb, "stablesel layout key %d\n", SS_LAYOUT_VERSION) ||
	    key_field(&sb, "mainline", o->mainline) || key_field(&sb, "mainline-commit", hex) ||
	    key_field(&sb, "branches", glob) || key_field(&sb, "release-tags", o->release_tags) ||
	    key_field(&sb, "eol", o->eol ? o->eol : eol) || key_field(&sb, "shallow", shallow.buf)) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	if ((rc = key_refs(&sb, r, path)))
		goto free_all;
	if (git_odb_hash(&oid, sb.buf, sb.len, GIT_OBJECT_BLOB) < 0) {
		rc = ss_error_set("cannot hash the refs of '%s': %s", path, ss_git_error());
		goto free_all;
	}
	git_oid_tostr(out, 41, &oid);
free_all:
	if (rc == SS_ENOMEM)
		rc = ss_error_code(SS_ENOMEM, "out of memory reading the refs of '%s'", path);
	free(glob);
	free(eol);
	ss_strbuf_release(&shallow);
	ss_strbuf_release(&sb);
	return rc;
}

/* s (NULL: "-") as one field of a line of ss_layout_save(): "+" and s
 * with '\\', tab and newline escaped. */
static int save_str(ss_strbuf *sb, const char *s)
{
	int rc = ss_strbuf_addch(sb, '\t');

	if (!s)
		return rc ? rc : ss_strbuf_addch(sb, '-');
	rc = rc ? rc : ss_strbuf_addch(sb, '+');
	for (; *s && !rc; s++)
		rc = *s == '\\' ? ss_strbuf_adds(sb, "\\\\")
		     : *s == '\t' ? ss_strbuf_adds(sb, "\\t")
		     : *s == '\n' ? ss_strbuf_adds(sb, "\\n") : ss_strbuf_addch(sb, *s);
	return rc;
}

/*
 * The text: a header line "stablesel layout <version> <key>", then one
 * line a field, a branch or a release, fields separated by tabs:
 * strings as save_str() writes them, numbers in decimal; last "end" with
 * the number of branches and releases.
 */
char *ss_layout_save(const ss_layout *l)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	int rc;
	size_t i;

	rc = ss_strbuf_addf(&sb, "stablesel layout %d %s\nmainline", SS_LAYOUT_VERSION, l->key);
	rc = rc ? rc : save_str(&sb, l->mainline);
	rc = rc ? rc : ss_strbuf_adds(&sb, "\nname");
	rc = rc ? rc : save_str(&sb, l->mainline_name);
	rc = rc ? rc : ss_strbuf_adds(&sb, "\nmtip");
	rc = rc ? rc : save_str(&sb, l->mtip);
	rc = rc ? rc : ss_strbuf_adds(&sb, "\nnote");
	rc = rc ? rc : save_str(&sb, l->note_from_head ? NULL : l->note);
	rc = rc ? rc : ss_strbuf_adds(&sb, "\nwarning");
	rc = rc ? rc : save_str(&sb, l->warning);
	rc = rc ? rc : ss_strbuf_adds(&sb, "\nseries");
	rc = rc ? rc : save_str(&sb, l->series);
	rc = rc ? rc : ss_strbuf_adds(&sb, "\neol");
	rc = rc ? rc : save_str(&sb, l->eol_note);
	rc = rc ? rc : ss_strbuf_addf(&sb, "\nflags\t%d\t%d\t%d\t%" PRId64 "\n", l->found,
				      l->explicit_branches, l->head_decided, l->newest);
	for (i = 0; !rc && i < l->nbranches; i++) {
		const ss_layout_branch *b = &l->branches[i];

		rc = ss_strbuf_adds(&sb, "branch");
		rc = rc ? rc : save_str(&sb, b->name);
		rc = rc ? rc : save_str(&sb, b->ref);
		rc = rc ? rc : ss_strbuf_addf(&sb, "\t%s\t%" PRId64 "\t%d\t%zu\t%zu\t%zu\n", b->tip,
					      b->time, (int)b->role, b->of, b->commits, b->tags);
	}
	for (i = 0; !rc && i < l->nreleases; i++) {
		const ss_layout_release *rel = &l->releases[i];

		rc = ss_strbuf_adds(&sb, "release");
		rc = rc ? rc : save_str(&sb, rel->tag);
		rc = rc ? rc : ss_strbuf_addf(&sb, "\t%s\t%" PRId64 "\t%s\n", rel->sha, rel->time,
					      rel->kind);
	}
	/* a text cut at a line's end (a damaged file) is told by its end */
	rc = rc ? rc : ss_strbuf_addf(&sb, "end\t%zu\t%zu\n", l->nbranches, l->nreleases);
	if (rc) {
		ss_strbuf_release(&sb);
		return NULL;
	}
	return ss_strbuf_detach(&sb, NULL);
}

/* The next tab-separated field of *s (a line, NUL-terminated), cut in
 * place; NULL when there is none. */
static char *next_field(char **s)
{
	char *f = *s, *tab;

	if (!f)
		return NULL;
	if ((tab = strchr(f, '\t'))) {
		*tab = '\0';
		*s = tab + 1;
	} else {
		*s = NULL;
	}
	return f;
}

/* A field of save_str() into *out (malloc'd; NULL for "-"): 0, 1 when
 * it is no such field, SS_ENOMEM. */
static int load_str(char **out, char **s)
{
	char *f = next_field(s), *o;

	*out = NULL;
	if (!f || (f[0] != '-' && f[0] != '+') || (f[0] == '-' && f[1]))
		return 1;
	if (f[0] == '-')
		return 0;
	if (!(o = *out = malloc(strlen(f))))
		return SS_ENOMEM;
	for (f++; *f; f++) {
		if (*f != '\\') {
			*o++ = *f;
			continue;
		}
		f++;
		if (*f != '\\' && *f != 't' && *f != 'n') {
			free(*out);
			*out = NULL;
			return 1;
		}
		*o++ = *f == 't' ? '\t' : *f == 'n' ? '\n' : '\\';
	}
	*o = '\0';
	return 0;
}

/* A decimal field (an optional '-' for signed ones) within [min, max]:
 * 0, or 1 when it is none. */
static int load_num(int64_t *out, char **s, int64_t min, int64_t max)
{
	char *f = next_field(s), *end;
	long long v;

	if (!f || !*f || (!isdigit((unsigned char)*f) && *f != '-'))
		return 1;
	errno = 0;
	v = strtoll(f, &end, 10);
	if (errno || *end || v < min || v > max)
		return 1;
	*out = v;
	return 0;
}

/* A full id field into out: 0, or 1 when it is none. */
static int load_id(char out[41], char **s)
{
	char *f = next_field(s);
	size_t i;

	if (!f || strlen(f) != 40)
		return 1;
	for (i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)f[i]) || isupper((unsigned char)f[i]))
			return 1;
	memcpy(out, f, 41);
	return 0;
}

/* One line of the text into l: 0, 1 when it is not a line of a saved
 * layout, SS_ENOMEM. */
static int load_line(ss_layout *l, char *line, size_t *capb, size_t *capr)
{
	char *s = line, *what = next_field(&s), **str = NULL;
	int64_t v[5];
	int rc;

	if (!strcmp(what, "mainline"))
		str = &l->mainline;
	else if (!strcmp(what, "name"))
		str = &l->mainline_name;
	else if (!strcmp(what, "note"))
		str = &l->note;
	else if (!strcmp(what, "warning"))
		str = &l->warning;
	else if (!strcmp(what, "series"))
		str = &l->series;
	else if (!strcmp(what, "eol"))
		str = &l->eol_note;
	if (str) {
		if (*str)
			return 1;  /* twice */
		rc = load_str(str, &s);
		return rc ? rc : s != NULL;
	}
	if (!strcmp(what, "mtip")) {
		char *t = NULL;

		if ((rc = load_str(&t, &s)))
			return rc;
		/* one id, checked as the others */
		rc = !t || s ? 1 : (s = t, load_id(l->mtip, &s));
		free(t);
		return rc;
	}
	if (!strcmp(what, "flags")) {
		if (load_num(&v[0], &s, 0, 1) || load_num(&v[1], &s, 0, 1) || load_num(&v[2], &s, 0, 1) ||
		    load_num(&v[3], &s, INT64_MIN, INT64_MAX) || s)
			return 1;
		l->found = (int)v[0];
		l->explicit_branches = (int)v[1];
		l->head_decided = (int)v[2];
		l->newest = v[3];
		return 0;
	}
	if (!strcmp(what, "branch")) {
		ss_layout_branch *b;

		if (SS_GROW(l->branches, l->nbranches + 1, *capb))
			return SS_ENOMEM;
		b = &l->branches[l->nbranches];
		memset(b, 0, sizeof(*b));
		/* counted at once: ss_layout_free() frees what was read */
		l->nbranches++;
		if ((rc = load_str(&b->name, &s)) || (rc = load_str(&b->ref, &s)))
			return rc;
		if (!b->name || !b->ref || load_id(b->tip, &s) ||
		    load_num(&v[0], &s, INT64_MIN, INT64_MAX) ||
		    load_num(&v[1], &s, 0, SS_ROLE_RELEASES) || load_num(&v[2], &s, 0, INT64_MAX) ||
		    load_num(&v[3], &s, 0, INT64_MAX) || load_num(&v[4], &s, 0, INT64_MAX) || s)
			return 1;
		b->time = v[0];
		b->role = (ss_layout_role)v[1];
		b->of = (size_t)v[2];
		b->commits = (size_t)v[3];
		b->tags = (size_t)v[4];
		return 0;
	}
	if (!strcmp(what, "release")) {
		static const char *const kinds[] = { "mainline", "stable", "rc" };
		ss_layout_release *rel;
		const char *kind;
		size_t k;

		if (SS_GROW(l->releases, l->nreleases + 1, *capr))
			return SS_ENOMEM;
		rel = &l->releases[l->nreleases];
		memset(rel, 0, sizeof(*rel));
		l->nreleases++;
		if ((rc = load_str(&rel->tag, &s)))
			return rc;
		if (!rel->tag || load_id(rel->sha, &s) || load_num(&v[0], &s, INT64_MIN, INT64_MAX))
			return 1;
		rel->time = v[0];
		if (!(kind = next_field(&s)) || s)
			return 1;
		for (k = 0; k < sizeof(kinds) / sizeof(*kinds); k++)
			if (!strcmp(kind, kinds[k]))
				rel->kind = kinds[k];
		return !rel->kind;
	}
	return 1;
}

int ss_layout_load(ss_layout **out, const char *text, const char *key, ss_repo *repo)
{
	ss_layout *l = NULL;
	char *copy = NULL, *line, *nl, header[128];
	size_t capb = 0, capr = 0, i;
	int rc = 0, ended = 0;

	*out = NULL;
	snprintf(header, sizeof(header), "stablesel layout %d %s\n", SS_LAYOUT_VERSION, key);
	if (!key[0] || strncmp(text, header, strlen(header)))
		return ss_error_code(SS_ENOTFOUND, "the layout kept was found from other refs");
	if (!(copy = strdup(text + strlen(header))) || !(l = calloc(1, sizeof(*l)))) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	for (line = copy; !rc && line && *line; line = nl) {
		if ((nl = strchr(line, '\n')))
			*nl++ = '\0';
		if (!strncmp(line, "end\t", 4)) {
			char *s = line + 4;
			int64_t nb, nr;

			/* the last line, with the counts of what came before */
			rc = load_num(&nb, &s, 0, INT64_MAX) || load_num(&nr, &s, 0, INT64_MAX) || s ||
			     (nl && *nl) || (size_t)nb != l->nbranches || (size_t)nr != l->nreleases;
			ended = 1;
			continue;
		}
		rc = load_line(l, line, &capb, &capr);
	}
	if (rc || (rc = !ended))
		goto free_all;
	/* what the rest of stablesel takes for granted of a layout */
	rc = !l->mainline || !l->mainline_name || !l->mtip[0];
	for (i = 0; !rc && i < l->nbranches; i++)
		rc = l->branches[i].of >= l->nbranches ||
		     (i && strcmp(l->branches[i - 1].name, l->branches[i].name) >= 0);
	for (i = 1; !rc && i < l->nreleases; i++)
		rc = strcmp(l->releases[i - 1].tag, l->releases[i].tag) >= 0;
	if (rc)
		goto free_all;
	memcpy(l->key, key, sizeof(l->key));
	if ((rc = read_head(l, ss_repo_git(repo))))
		goto free_all;
	if (l->head_decided && (!l->head || strcmp(l->head, l->mainline_name))) {
		rc = ss_error_code(SS_ENOTFOUND, "HEAD decided the layout kept, and is not its "
				   "mainline now");
		goto free_all;
	}
	if (l->found)
		head_note(l);
free_all:
	free(copy);
	if (rc == 1)
		rc = ss_error_code(SS_EINVALID, "the layout kept is damaged");
	else if (rc == SS_ENOMEM)
		rc = ss_error_code(SS_ENOMEM, "out of memory reading the layout kept");
	if (rc) {
		ss_layout_free(l);
		return rc;
	}
	*out = l;
	return 0;
}
