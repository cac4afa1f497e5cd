/*
 * git_graph.c - the compact commit walk (see git_graph.h).
 *
 * The walk is libgit2 1.5's revwalk step for step, so that the order is
 * the same to the last tie: the pushed and hidden commits in the order
 * given; limit_list() (commits popped from a list kept in date order,
 * parents inserted after those of the same time, hidden histories marked
 * as they are met, and the walk stopped after SLOP uninteresting commits
 * once nothing interesting is left: git's answer to clock skew); then, for
 * the date order, the topological sort with a binary heap on the
 * committer time (libgit2's pqueue, whose sift rules decide between
 * commits of equal time), reversed.  tests/test_git.c compares every
 * order with libgit2's revwalk.
 *
 * What differs is the memory: one table of nodes (id, time, flags, first
 * parent's place in one array of parent indexes), an open-addressed hash
 * of node indexes by id, and the list cells and queues of the walk, all
 * indexes; commit objects are parsed where they lie and freed at once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/random.h>

#include "source/git.h"
#include "source/git_graph.h"
#include "source/git_impl.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/grow.h"

#define SLOP 5        /* libgit2's: uninteresting commits looked at past the last interesting one */
#define NONE UINT32_MAX

enum {
	F_PARSED = 1,
	F_SEEN = 2,
	F_ADDED = 4,
	F_UNINTERESTING = 8
};

struct node {
	unsigned char id[GIT_OID_RAWSZ];
	uint32_t par;        /* first parent in g->par */
	int64_t time;        /* committer time */
	uint32_t in_degree;  /* the topological sort's */
	uint16_t np;         /* parents */
	uint8_t flags;
};

/* A cell of the walk's linked lists (libgit2's git_commit_list). */
struct cell {
	uint32_t item, next;
};

struct input {
	uint32_t node;
	int hide;
};

struct ss_git_graph {
	git_odb *odb;
	char *path;
	struct node *nodes;
	size_t n, cap;
	uint32_t *par;
	size_t npar, cappar;
	uint32_t *slots;     /* node index + 1; 0: empty */
	size_t mask;         /* slots - 1 (a power of two minus one) */
	struct input *in;    /* pushes and hides of the next walk */
	size_t nin, capin;
	struct cell *cells;
	size_t ncells, capcells;
	uint32_t free_cells;
	uint32_t *stack;     /* mark_uninteresting()'s */
	size_t capstack;
	uint64_t key;        /* id_hash()'s */
	git_oid *grafted;    /* a shallow clone's (ss_git_shallow_ids), sorted */
	size_t ngrafted;
};

/*
 * The slot of an id: every byte of it, mixed with the graph's own random
 * key.  Ids of absent parents are whatever a commit object says, so a
 * fixed hash (the first bytes, as before) let one crafted commit of
 * 65,535 parents sharing a prefix cost 2^31 probes (5 s) before the first
 * was found missing.
 */
static uint32_t id_hash(const ss_git_graph *g, const unsigned char *id)
{
	uint64_t h = g->key, w;
	size_t i;

	for (i = 0; i + 8 <= GIT_OID_RAWSZ; i += 8) {
		memcpy(&w, id + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	memcpy(&w, id + GIT_OID_RAWSZ - 8, 8);
	h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (uint32_t)h;
}

static int oom(ss_git_graph *g)
{
	return ss_error_code(SS_ENOMEM, "out of memory walking '%s'", g->path);
}

static int rehash(ss_git_graph *g, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));
	size_t i, j;

	if (!s)
		return oom(g);
	for (i = 0; i < g->n; i++) {
		j = id_hash(g, g->nodes[i].id) & (nslots - 1);
		while (s[j])
			j = (j + 1) & (nslots - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(g->slots);
	g->slots = s;
	g->mask = nslots - 1;
	return 0;
}

/* The node of id, added (unparsed) when new; NONE when memory is short. */
static uint32_t node_of(ss_git_graph *g, const unsigned char *id)
{
	size_t j;
	uint32_t k;
	struct node *x;

	for (j = id_hash(g, id) & g->mask; (k = g->slots[j]); j = (j + 1) & g->mask)
		if (!memcmp(g->nodes[k - 1].id, id, GIT_OID_RAWSZ))
			return k - 1;
	if (g->n + 1 >= NONE || SS_GROW(g->nodes, g->n + 1, g->cap)) {
		oom(g);
		return NONE;
	}
	x = &g->nodes[g->n];
	memset(x, 0, sizeof(*x));
	memcpy(x->id, id, GIT_OID_RAWSZ);
	g->slots[j] = (uint32_t)++g->n;
	/* at most half full */
	if (g->n * 2 > g->mask + 1 && rehash(g, (g->mask + 1) * 2) < 0)
		return NONE;
	return (uint32_t)g->n - 1;
}

int ss_git_graph_new(ss_git_graph **out, git_repository *repo, const char *path)
{
	ss_git_graph *g = calloc(1, sizeof(*g));
	int err;

	*out = NULL;
	if (!g || !(g->path = strdup(path)) || !(g->slots = calloc(1024, sizeof(*g->slots)))) {
		if (g)
			free(g->path);
		free(g);
		return ss_error_code(SS_ENOMEM, "out of memory walking '%s'", path);
	}
	g->mask = 1023;
	g->free_cells = NONE;
	if (getrandom(&g->key, sizeof(g->key), GRND_NONBLOCK) != sizeof(g->key))
		g->key = (uint64_t)(uintptr_t)g ^ (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
	if (git_repository_odb(&g->odb, repo) < 0) {
		err = ss_error_set("cannot walk history of '%s': %s", path, ss_git_error());
		ss_git_graph_free(g);
		return err;
	}
	/* a shallow clone's grafted commits are roots, as for git log: their
	 * absent parents are never asked for */
	if ((err = ss_git_shallow_ids(&g->grafted, &g->ngrafted, repo, path)) < 0) {
		ss_git_graph_free(g);
		return err;
	}
	*out = g;
	return 0;
}

void ss_git_graph_free(ss_git_graph *g)
{
	if (!g)
		return;
	git_odb_free(g->odb);
	free(g->path);
	free(g->nodes);
	free(g->par);
	free(g->slots);
	free(g->in);
	free(g->cells);
	free(g->stack);
	free(g->grafted);
	free(g);
}

size_t ss_git_graph_size(const ss_git_graph *g)
{
	return g ? g->n : 0;
}

static int add_input(ss_git_graph *g, const git_oid *oid, int hide)
{
	uint32_t k = node_of(g, oid->id);

	if (k == NONE)
		return SS_ENOMEM;
	if (SS_GROW(g->in, g->nin + 1, g->capin))
		return oom(g);
	g->in[g->nin].node = k;
	g->in[g->nin].hide = hide;
	g->nin++;
	return 0;
}

int ss_git_graph_push(ss_git_graph *g, const git_oid *oid)
{
	return add_input(g, oid, 0);
}

int ss_git_graph_hide(ss_git_graph *g, const git_oid *oid)
{
	return add_input(g, oid, 1);
}

/* ------------------------------------------------------------------ */
/* Reading commits. */

static void hex_of(char *hex, const unsigned char *id)
{
	git_oid oid;

	memcpy(oid.id, id, GIT_OID_RAWSZ);
	git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &oid);
}

/* Node k cannot be read (child: the commit that names it as a parent, or
 * NONE for a pushed or hidden commit). */
static int read_failed(ss_git_graph *g, uint32_t k, uint32_t child, const char *why)
{
	char hex[GIT_OID_HEXSZ + 1], chex[GIT_OID_HEXSZ + 1];

	hex_of(hex, g->nodes[k].id);
	if (child == NONE)
		return ss_error_set("cannot walk history of '%s': cannot read commit %s: %s",
				    g->path, hex, why);
	hex_of(chex, g->nodes[child].id);
	return ss_error_set("cannot walk history of '%s': cannot read commit %s, parent of %s: %s",
			    g->path, hex, chex, why);
}

/* ------------------------------------------------------------------ */
/* The commit object's header, as libgit2 1.5's commit parser takes it. */

/* "<hdr><40 hex digits>\n" at p (libgit2's git_oid__parse()). */
static int oid_line(const char *p, const char *end, const char *hdr, size_t hl)
{
	return (size_t)(end - p) >= hl + GIT_OID_HEXSZ + 1 && !memcmp(p, hdr, hl) &&
	       p[hl + GIT_OID_HEXSZ] == '\n' && ss_hexid_is_full(p + hl, GIT_OID_HEXSZ);
}

/* git__strntol64() in base 10 over [p, end): white space, a sign, at
 * least one digit, no overflow; what follows the digits is ignored. */
static int read_time(const char *p, const char *end, int64_t *out)
{
	int64_t t = 0;
	int neg = 0, ndig = 0;

	while (p < end && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
		p++;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	for (; p < end && *p >= '0' && *p <= '9'; p++, ndig++) {
		int d = *p - '0';

		if (neg ? t < (INT64_MIN + d) / 10 : t > (INT64_MAX - d) / 10)
			return -1;
		t = t * 10 + (neg ? -d : d);
	}
	if (!ndig)
		return -1;
	*out = t;
	return 0;
}

/*
 * A signature line "<hdr>name <email> time zone\n" at *p (libgit2's
 * git_signature__parse()): the time is read from the second byte after
 * the last '>' when there is one, else it is 0.  *p moves past the line.
 */
enum { SIG_NO_NEWLINE = 1, SIG_MISSING, SIG_EMAIL, SIG_TIME };

static int signature(const char **p, const char *end, const char *hdr, int64_t *time)
{
	size_t hl = strlen(hdr);
	const char *nl = memchr(*p, '\n', (size_t)(end - *p)), *s, *lt, *gt;

	if (!nl)
		return SIG_NO_NEWLINE;
	if (*p + hl >= nl || memcmp(*p, hdr, hl))
		return SIG_MISSING;
	s = *p + hl;
	lt = memrchr(s, '<', (size_t)(nl - s));
	gt = memrchr(s, '>', (size_t)(nl - s));
	if (!lt || !gt || gt <= lt)
		return SIG_EMAIL;
	*time = 0;
	if (gt + 2 < nl && read_time(gt + 2, nl, time) < 0)
		return SIG_TIME;
	*p = nl + 1;
	return 0;
}

static const char *const author_why[] = {
	NULL, "author line has no newline", "no author line", "author line has a malformed e-mail",
	"author line has a bad time"
};
static const char *const committer_why[] = {
	NULL, "committer line has no newline", "no committer line",
	"committer line has a malformed e-mail", "committer line has a bad time"
};

int ss_git_graph_parse_commit(const char *buf, size_t len, struct ss_git_graph_commit *out,
			      const char **why)
{
	const char *p = buf, *end = buf + (buf ? len : 0);
	int64_t t;
	int w;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (!buf || !oid_line(p, end, "tree ", 5)) {
		*why = "no tree line";
		return SS_EINVALID;
	}
	p += 5 + GIT_OID_HEXSZ + 1;
	out->parents = p + 7;
	while (oid_line(p, end, "parent ", 7)) {
		if (++out->nparents > SS_GIT_GRAPH_MAX_PARENTS) {
			*why = "more than 65,535 parents";
			return SS_EINVALID;
		}
		p += SS_GIT_GRAPH_PARENT_LINE;
	}
	if (!out->nparents)
		out->parents = NULL;
	if ((size_t)(end - p) >= 7 && !memcmp(p, "parent ", 7)) {
		*why = "bad parent line";
		return SS_EINVALID;
	}
	if ((w = signature(&p, end, "author ", &t))) {
		*why = author_why[w];
		return SS_EINVALID;
	}
	/* libgit2 reads further author lines as signatures too, and drops
	 * them (skipping them unread let through commits it refuses: fuzz
	 * bug 14) */
	while ((size_t)(end - p) >= 7 && !memcmp(p, "author ", 7)) {
		if ((w = signature(&p, end, "author ", &t))) {
			*why = author_why[w];
			return SS_EINVALID;
		}
	}
	if ((w = signature(&p, end, "committer ", &out->time))) {
		*why = committer_why[w];
		return SS_EINVALID;
	}
	return 0;
}

int ss_git_graph_parent(const struct ss_git_graph_commit *c, size_t i, unsigned char *id)
{
	git_oid oid;

	if (i >= c->nparents ||
	    git_oid_fromstrn(&oid, c->parents + i * SS_GIT_GRAPH_PARENT_LINE, GIT_OID_HEXSZ) < 0)
		return SS_EINVALID;
	memcpy(id, oid.id, GIT_OID_RAWSZ);
	return 0;
}

/* Read node k's parents and time (once); child as read_failed()'s. */
static int parse(ss_git_graph *g, uint32_t k, uint32_t child)
{
	struct ss_git_graph_commit c;
	unsigned char id[GIT_OID_RAWSZ];
	git_odb_object *obj;
	const char *why;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	size_t i;
	int rc = 0;

	if (g->nodes[k].flags & F_PARSED)
		return 0;
	memcpy(oid.id, g->nodes[k].id, GIT_OID_RAWSZ);
	if (git_odb_read(&obj, g->odb, &oid) < 0)
		return read_failed(g, k, child, ss_git_error());
	if (git_odb_object_type(obj) != GIT_OBJECT_COMMIT) {
		char what[64];

		snprintf(what, sizeof(what), "it is a %s, not a commit",
			 git_object_type2string(git_odb_object_type(obj)));
		git_odb_object_free(obj);
		return read_failed(g, k, child, what);
	}
	if (ss_git_graph_parse_commit(git_odb_object_data(obj), git_odb_object_size(obj), &c,
				      &why) < 0) {
		hex_of(hex, g->nodes[k].id);
		rc = ss_error_code(SS_EINVALID, "cannot walk history of '%s': commit %s: %s",
				   g->path, hex, why);
		goto free_obj;
	}
	/* a shallow clone's grafted commit: a root, as for git log */
	if (ss_git_shallow_grafted_in(g->grafted, g->ngrafted, &oid))
		c.nparents = 0;
	if (SS_GROW(g->par, g->npar + c.nparents, g->cappar)) {
		rc = oom(g);
		goto free_obj;
	}
	for (i = 0; i < c.nparents; i++) {
		uint32_t q;

		ss_git_graph_parent(&c, i, id);
		if ((q = node_of(g, id)) == NONE) {
			rc = SS_ENOMEM;
			goto free_obj;
		}
		g->par[g->npar + i] = q;
	}
	g->nodes[k].par = (uint32_t)g->npar;
	g->nodes[k].np = (uint16_t)c.nparents;
	g->nodes[k].time = c.time;
	g->nodes[k].flags |= F_PARSED;
	g->npar += c.nparents;
free_obj:
	git_odb_object_free(obj);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Lists (libgit2's git_commit_list), as cells in one array. */

static int cell_new(ss_git_graph *g, uint32_t item, uint32_t next, uint32_t *out)
{
	uint32_t c;

	if (g->free_cells != NONE) {
		c = g->free_cells;
		g->free_cells = g->cells[c].next;
	} else {
		if (g->ncells + 1 >= NONE || SS_GROW(g->cells, g->ncells + 1, g->capcells))
			return oom(g);
		c = (uint32_t)g->ncells++;
	}
	g->cells[c].item = item;
	g->cells[c].next = next;
	*out = c;
	return 0;
}

static uint32_t list_pop(ss_git_graph *g, uint32_t *list)
{
	uint32_t c = *list, item;

	if (c == NONE)
		return NONE;
	item = g->cells[c].item;
	*list = g->cells[c].next;
	g->cells[c].next = g->free_cells;
	g->free_cells = c;
	return item;
}

/* libgit2's git_commit_list_insert_by_date(): after every commit of the
 * same time or newer. */
static int list_insert_by_date(ss_git_graph *g, uint32_t *list, uint32_t item)
{
	uint32_t prev = NONE, cur = *list, c;
	int64_t t = g->nodes[item].time;
	int rc;

	while (cur != NONE && g->nodes[g->cells[cur].item].time >= t) {
		prev = cur;
		cur = g->cells[cur].next;
	}
	if ((rc = cell_new(g, item, cur, &c)))
		return rc;
	if (prev == NONE)
		*list = c;
	else
		g->cells[prev].next = c;
	return 0;
}

static void list_free(ss_git_graph *g, uint32_t *list)
{
	while (*list != NONE)
		list_pop(g, list);
}

/* ------------------------------------------------------------------ */
/* The walk (libgit2's revwalk.c, see the top of this file). */

/* Mark the parsed history of k's parents uninteresting, stopping at
 * commits already marked. */
static int mark_uninteresting(ss_git_graph *g, uint32_t k)
{
	size_t n = 0, i;
	uint32_t x;

	for (i = 0; i < g->nodes[k].np; i++) {
		if (SS_GROW(g->stack, n + 1, g->capstack))
			return oom(g);
		g->stack[n++] = g->par[g->nodes[k].par + i];
	}
	while (n) {
		x = g->stack[--n];
		while (x != NONE) {
			struct node *c = &g->nodes[x];

			if (c->flags & F_UNINTERESTING)
				break;
			c->flags |= F_UNINTERESTING;
			if (!(c->flags & F_PARSED))
				break;
			for (i = 0; i < c->np; i++) {
				if (SS_GROW(g->stack, n + 1, g->capstack))
					return oom(g);
				g->stack[n++] = g->par[c->par + i];
			}
			x = c->np ? g->par[c->par] : NONE;
		}
	}
	return 0;
}

static int add_parents(ss_git_graph *g, uint32_t k, uint32_t *list)
{
	uint32_t i, p;
	int rc;

	if (g->nodes[k].flags & F_ADDED)
		return 0;
	g->nodes[k].flags |= F_ADDED;
	for (i = 0; i < g->nodes[k].np; i++) {
		p = g->par[g->nodes[k].par + i];
		if (g->nodes[k].flags & F_UNINTERESTING) {
			g->nodes[p].flags |= F_UNINTERESTING;
			if ((rc = parse(g, p, k)) || (rc = mark_uninteresting(g, p)))
				return rc;
			g->nodes[p].flags |= F_SEEN;
			if ((rc = list_insert_by_date(g, list, p)))
				return rc;
			continue;
		}
		if ((rc = parse(g, p, k)))
			return rc;
		if (!(g->nodes[p].flags & F_SEEN)) {
			g->nodes[p].flags |= F_SEEN;
			if ((rc = list_insert_by_date(g, list, p)))
				return rc;
		}
	}
	return 0;
}

static int still_interesting(ss_git_graph *g, uint32_t list, int64_t time, int slop)
{
	if (list == NONE)
		return 0;
	if (time <= g->nodes[g->cells[list].item].time)
		return SLOP;
	for (; list != NONE; list = g->cells[list].next) {
		const struct node *c = &g->nodes[g->cells[list].item];

		if (!(c->flags & F_UNINTERESTING) || c->time > time)
			return SLOP;
	}
	return slop - 1;
}

/* An array of node indexes that grows. */
struct seq {
	uint32_t *v;
	size_t n, cap;
};

static int seq_add(ss_git_graph *g, struct seq *s, uint32_t k)
{
	if (SS_GROW(s->v, s->n + 1, s->cap))
		return oom(g);
	s->v[s->n++] = k;
	return 0;
}

/* The commits of list, hidden histories taken away, into out; the list
 * is consumed. */
static int limit_list(ss_git_graph *g, uint32_t list, struct seq *out)
{
	int64_t time = INT64_MAX;
	int slop = SLOP, rc = 0;
	uint32_t k;

	while ((k = list_pop(g, &list)) != NONE) {
		if ((rc = add_parents(g, k, &list)))
			break;
		if (g->nodes[k].flags & F_UNINTERESTING) {
			if ((rc = mark_uninteresting(g, k)))
				break;
			slop = still_interesting(g, list, time, slop);
			if (slop)
				continue;
			break;
		}
		time = g->nodes[k].time;
		if ((rc = seq_add(g, out, k)))
			break;
	}
	list_free(g, &list);
	return rc;
}

/* Without a hidden commit and unsorted: every commit reachable. */
static int walk_all(ss_git_graph *g, uint32_t list, struct seq *out)
{
	uint32_t k;
	int rc = 0;

	while ((k = list_pop(g, &list)) != NONE) {
		if ((rc = add_parents(g, k, &list)))
			break;
		if (!(g->nodes[k].flags & F_UNINTERESTING) && (rc = seq_add(g, out, k)))
			break;
	}
	list_free(g, &list);
	return rc;
}

/* libgit2's pqueue on git_commit_list_time_cmp: the newest on top. */
static int newer(const ss_git_graph *g, uint32_t a, uint32_t b)
{
	return g->nodes[a].time > g->nodes[b].time;
}

static int heap_insert(ss_git_graph *g, struct seq *h, uint32_t k)
{
	size_t el, parent;
	int rc;

	if ((rc = seq_add(g, h, k)))
		return rc;
	el = h->n - 1;
	while (el > 0) {
		parent = (el - 1) >> 1;
		/* the parent stays when not older than the new one */
		if (!newer(g, k, h->v[parent]))
			break;
		h->v[el] = h->v[parent];
		el = parent;
	}
	h->v[el] = k;
	return 0;
}

static uint32_t heap_pop(ss_git_graph *g, struct seq *h)
{
	uint32_t top, moved, kid;
	size_t el = 0, kel;

	if (!h->n)
		return NONE;
	top = h->v[0];
	if (h->n == 1) {
		h->n = 0;
		return top;
	}
	moved = h->v[--h->n];
	for (;;) {
		kel = el * 2 + 1;
		if (kel >= h->n)
			break;
		kid = h->v[kel];
		if (kel + 1 < h->n && newer(g, h->v[kel + 1], kid)) {
			kid = h->v[kel + 1];
			kel++;
		}
		if (!newer(g, kid, moved))
			break;
		h->v[el] = kid;
		el = kel;
	}
	h->v[el] = moved;
	return top;
}

/* Sort the commits of list (in place) topologically, newest first among
 * those ready. */
static int topo_sort(ss_git_graph *g, struct seq *list)
{
	struct seq heap = { NULL, 0, 0 }, sorted = { NULL, 0, 0 };
	size_t i, j;
	uint32_t k;
	int rc = 0;

	for (i = 0; i < list->n; i++)
		g->nodes[list->v[i]].in_degree = 1;
	for (i = 0; i < list->n; i++) {
		const struct node *c = &g->nodes[list->v[i]];

		for (j = 0; j < c->np; j++) {
			struct node *p = &g->nodes[g->par[c->par + j]];

			if (p->in_degree)
				p->in_degree++;
		}
	}
	for (i = 0; i < list->n && !rc; i++)
		if (g->nodes[list->v[i]].in_degree == 1)
			rc = heap_insert(g, &heap, list->v[i]);
	if (!rc && !(sorted.v = malloc((list->n ? list->n : 1) * sizeof(*sorted.v))))
		rc = oom(g);
	sorted.cap = list->n;
	while (!rc && (k = heap_pop(g, &heap)) != NONE) {
		for (j = 0; j < g->nodes[k].np && !rc; j++) {
			uint32_t q = g->par[g->nodes[k].par + j];

			if (!g->nodes[q].in_degree)
				continue;
			if (--g->nodes[q].in_degree == 1)
				rc = heap_insert(g, &heap, q);
		}
		g->nodes[k].in_degree = 0;
		if (!rc)
			rc = seq_add(g, &sorted, k);
	}
	free(heap.v);
	/* a commit never ready lies on a cycle or below one: ids are not
	 * checked against contents, so a damaged object store can make one */
	if (!rc && sorted.n != list->n) {
		char hex[GIT_OID_HEXSZ + 1] = "";

		for (i = 0; i < list->n; i++)
			if (g->nodes[list->v[i]].in_degree) {
				hex_of(hex, g->nodes[list->v[i]].id);
				break;
			}
		rc = ss_error_code(SS_EINVALID, "cannot walk history of '%s': history has a cycle "
				   "through commit %s", g->path, hex);
	}
	if (rc) {
		free(sorted.v);
		return rc;
	}
	free(list->v);
	*list = sorted;
	return 0;
}

int ss_git_graph_walk(ss_git_graph *g, enum ss_git_graph_order order, git_oid **out, size_t *n)
{
	struct seq seq = { NULL, 0, 0 };
	uint32_t commits = NONE, c;
	int did_push = 0, limited = order != SS_GIT_GRAPH_UNSORTED, rc = 0;
	git_oid *oids = NULL;
	size_t i, j;

	*out = NULL;
	*n = 0;
	for (i = 0; i < g->n; i++) {
		g->nodes[i].flags &= F_PARSED;
		g->nodes[i].in_degree = 0;
	}
	/* git_revwalk_push/hide: a commit hidden before is not pushed */
	for (i = 0; i < g->nin; i++) {
		struct node *x = &g->nodes[g->in[i].node];

		if (x->flags & F_UNINTERESTING) {
			g->in[i].node = NONE;
			continue;
		}
		if (g->in[i].hide) {
			limited = 1;
			x->flags |= F_UNINTERESTING;
		} else {
			did_push = 1;
			x->flags &= ~F_UNINTERESTING;
		}
	}
	if (!did_push)
		goto free_input;
	/* prepare_walk(): the inputs, newest call first, each commit once,
	 * pushed onto a list, which so starts with the oldest call (libgit2
	 * 1.5; later versions keep the newest first) */
	for (i = g->nin; i-- > 0;) {
		uint32_t k = g->in[i].node;

		if (k == NONE)
			continue;
		if ((rc = parse(g, k, NONE)))
			goto free_list;
		if ((g->nodes[k].flags & F_UNINTERESTING) && (rc = mark_uninteresting(g, k)))
			goto free_list;
		if (g->nodes[k].flags & F_SEEN)
			continue;
		g->nodes[k].flags |= F_SEEN;
		if ((rc = cell_new(g, k, NONE, &c)))
			goto free_list;
		g->cells[c].next = commits;
		commits = c;
	}
	rc = limited ? limit_list(g, commits, &seq) : walk_all(g, commits, &seq);
	commits = NONE;
	if (rc)
		goto free_seq;
	if (order == SS_GIT_GRAPH_DATE_REVERSE && (rc = topo_sort(g, &seq)))
		goto free_seq;
	if (seq.n && !(oids = malloc(seq.n * sizeof(*oids)))) {
		rc = oom(g);
		goto free_seq;
	}
	/* commits marked uninteresting after they were listed are left out */
	for (i = 0, j = 0; i < seq.n; i++) {
		size_t at = order == SS_GIT_GRAPH_DATE_REVERSE ? seq.n - 1 - i : i;
		const struct node *x = &g->nodes[seq.v[at]];

		if (!(x->flags & F_UNINTERESTING))
			memcpy(oids[j++].id, x->id, GIT_OID_RAWSZ);
	}
	*out = oids;
	*n = j;
	if (!j) {
		free(oids);
		*out = NULL;
	}
free_seq:
	free(seq.v);
free_list:
	list_free(g, &commits);
free_input:
	g->nin = 0;
	return rc;
}

/*
 * Which merge brought each commit of a walk into the mainline.  The
 * mainline is the first-parent line of the walk's newest commit; its
 * merges are visited oldest first, and each claims the commits its other
 * parents reach that neither the line nor an older merge has claimed
 * (git log --first-parent's view: what "git log M^1..M" lists), within
 * the walk.  One pass over the walk's commits, each visited once.
 */
int ss_git_graph_groups(ss_git_graph *g, const git_oid *ids, size_t n, size_t *group)
{
	uint32_t *pos = NULL, *line = NULL, *stack = NULL, x;
	size_t nline = 0, nstack = 0, capstack = 0, i, k;
	unsigned char *claimed = NULL;
	int err = 0;

	for (i = 0; i < n; i++)
		group[i] = SIZE_MAX;
	if (!n)
		return 0;
	pos = malloc(g->n * sizeof(*pos));
	line = malloc(n * sizeof(*line));
	claimed = calloc(g->n, 1);
	if (!pos || !line || !claimed) {
		err = oom(g);
		goto free_all;
	}
	for (i = 0; i < g->n; i++)
		pos[i] = NONE;
	for (i = 0; i < n; i++) {
		x = node_of(g, ids[i].id);
		if (x == NONE) {
			err = SS_ENOMEM;
			goto free_all;
		}
		pos[x] = (uint32_t)i;
	}
	/* the first-parent line, newest first, within the walk */
	for (x = node_of(g, ids[n - 1].id); x != NONE && pos[x] != NONE && !claimed[x];) {
		claimed[x] = 1;
		line[nline++] = x;
		x = g->nodes[x].np ? g->par[g->nodes[x].par] : NONE;
	}
	for (k = nline; k-- > 0;) {
		const struct node *m = &g->nodes[line[k]];

		if (m->np < 2)
			continue;
		nstack = 0;
		for (i = 1; i < m->np; i++) {
			if (SS_GROW(stack, nstack + 1, capstack)) {
				err = oom(g);
				goto free_all;
			}
			stack[nstack++] = g->par[m->par + i];
		}
		while (nstack) {
			const struct node *c;

			x = stack[--nstack];
			if (pos[x] == NONE || claimed[x])
				continue;
			claimed[x] = 1;
			group[pos[x]] = pos[line[k]];
			c = &g->nodes[x];
			for (i = 0; i < c->np; i++) {
				if (SS_GROW(stack, nstack + 1, capstack)) {
					err = oom(g);
					goto free_all;
				}
				stack[nstack++] = g->par[c->par + i];
			}
		}
	}
free_all:
	free(pos);
	free(line);
	free(claimed);
	free(stack);
	return err;
}
