/*
 * fuzz_graph.c - libFuzzer target for the compact commit walk
 * (src/source/git_graph.c): the commit-object parser and the walk over
 * hostile histories, each checked against libgit2 1.5, which the walk
 * replaces and which reads the same commits later.
 *
 * Two kinds of input, by the first byte:
 *  - even: the rest is one commit object.  ss_git_graph_parse_commit()
 *    must accept it exactly when libgit2's git_commit_lookup() does, and
 *    then give the same parents and committer time; ss_git_graph_parent()
 *    refuses indexes past the last parent.
 *  - odd: the rest encodes a small history of up to 16 objects: per
 *    object a flags byte (parents 0-3, a blob instead of a commit, a far
 *    time), its parents (some of them absent objects, or younger ones, so
 *    cycles), a time byte (few values: many ties); then up to 8 pushes and
 *    hides.  The walk runs in both orders.  It must end; every id it
 *    lists is a commit of the history, listed once; and when libgit2's
 *    revwalk (GIT_SORT_NONE, and TOPOLOGICAL | TIME | REVERSE) walks the
 *    same acyclic history without error, the lists are equal.
 *
 * Objects are served from memory by an odb backend of a bare repository
 * made at start-up; ids carry a run counter, so that no cache of libgit2
 * hands out an object of an earlier input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <sanitizer/lsan_interface.h>

#include "fuzz_util.h"
#include "source/git_graph.h"
#include "util/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXOBJ 16
#define MAXIN 8

struct object {
	git_oid id;
	git_object_t type;
	const char *data;
	size_t len;
};

static struct object objs[MAXOBJ];
static size_t nobjs;
static git_repository *repo;
static uint32_t run;

static const struct object *find(const git_oid *oid)
{
	size_t i;

	for (i = 0; i < nobjs; i++)
		if (git_oid_equal(&objs[i].id, oid))
			return &objs[i];
	return NULL;
}

static int be_read(void **out, size_t *len, git_object_t *type, git_odb_backend *b,
		   const git_oid *oid)
{
	const struct object *o = find(oid);
	void *buf;

	if (!o)
		return GIT_ENOTFOUND;
	if (!(buf = git_odb_backend_data_alloc(b, o->len + 1)))
		return -1;
	memcpy(buf, o->data, o->len);
	*out = buf;
	*len = o->len;
	*type = o->type;
	return 0;
}

static int be_read_header(size_t *len, git_object_t *type, git_odb_backend *b, const git_oid *oid)
{
	const struct object *o = find(oid);

	(void)b;
	if (!o)
		return GIT_ENOTFOUND;
	*len = o->len;
	*type = o->type;
	return 0;
}

static int be_exists(git_odb_backend *b, const git_oid *oid)
{
	(void)b;
	return find(oid) != NULL;
}

static void be_free(git_odb_backend *b)
{
	free(b);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/fuzz-graph-XXXXXX";
	git_odb_backend *b;
	git_odb *odb;

	(void)argc;
	(void)argv;
	if (git_libgit2_init() < 0 || !mkdtemp(dir) || git_repository_init(&repo, dir, 1) < 0)
		abort();
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
	if (!(b = calloc(1, sizeof(*b))))
		abort();
	git_odb_init_backend(b, GIT_ODB_BACKEND_VERSION);
	b->read = be_read;
	b->read_header = be_read_header;
	b->exists = be_exists;
	b->free = be_free;
	if (git_odb_new(&odb) < 0 || git_odb_add_backend(odb, b, 1) < 0)
		abort();
	git_repository_set_odb(repo, odb);
	git_odb_free(odb);
	return 0;
}

/* Object i of this run: the run counter, then i. */
static void make_id(git_oid *oid, size_t i)
{
	memset(oid->id, 0x5a, GIT_OID_RAWSZ);
	memcpy(oid->id, &run, sizeof(run));
	oid->id[4] = (unsigned char)i;
}

/* ------------------------------------------------------------------ */

static void one_commit(const uint8_t *data, size_t size)
{
	struct ss_git_graph_commit c;
	unsigned char id[GIT_OID_RAWSZ];
	git_commit *lc = NULL;
	const char *why = NULL;
	size_t i;
	int ours, theirs;

	ours = ss_git_graph_parse_commit((const char *)data, size, &c, &why);
	FUZZ_CHECK(ours == 0 || ours == SS_EINVALID);
	FUZZ_CHECK(ours == 0 ? why == NULL : why != NULL && *why && !strchr(why, '\n'));
	if (!ours) {
		FUZZ_CHECK(c.nparents <= SS_GIT_GRAPH_MAX_PARENTS);
		FUZZ_CHECK(!c.nparents == !c.parents);
		if (c.nparents)
			FUZZ_CHECK(c.parents >= (const char *)data &&
				   c.parents + (c.nparents - 1) * SS_GIT_GRAPH_PARENT_LINE +
				   GIT_OID_HEXSZ <= (const char *)data + size);
		for (i = 0; i < c.nparents; i++)
			FUZZ_CHECK(ss_git_graph_parent(&c, i, id) == 0);
		FUZZ_CHECK(ss_git_graph_parent(&c, c.nparents, id) == SS_EINVALID);
	}
	/* libgit2 on the same bytes */
	nobjs = 1;
	make_id(&objs[0].id, 0);
	objs[0].type = GIT_OBJECT_COMMIT;
	objs[0].data = (const char *)data;
	objs[0].len = size;
	theirs = git_commit_lookup(&lc, repo, &objs[0].id);
	FUZZ_CHECK((ours == 0) == (theirs == 0));
	if (!theirs) {
		FUZZ_CHECK(git_commit_parentcount(lc) == c.nparents);
		for (i = 0; i < c.nparents; i++) {
			ss_git_graph_parent(&c, i, id);
			FUZZ_CHECK(!memcmp(id, git_commit_parent_id(lc, (unsigned int)i)->id,
					   GIT_OID_RAWSZ));
		}
		FUZZ_CHECK(git_commit_time(lc) == c.time);
		git_commit_free(lc);
	}
	nobjs = 0;
}

/* ------------------------------------------------------------------ */

struct input {
	size_t obj;
	int hide;
};

/* libgit2's revwalk over the same inputs: 0 and *out, or < 0. */
static int revwalk(const struct input *in, size_t nin, unsigned int sort, git_oid **out,
		   size_t *n)
{
	git_revwalk *w;
	git_oid oid, *v = NULL;
	size_t i, cap = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	/* libgit2 1.5 leaks 32 bytes in git_revwalk_next() when a commit
	 * cannot be read (tests/test_git.c test_corrupt_object): not ours */
	__lsan_disable();
	if (git_revwalk_new(&w, repo) < 0) {
		__lsan_enable();
		return -1;
	}
	git_revwalk_sorting(w, sort);
	for (i = 0; i < nin && !err; i++)
		err = in[i].hide ? git_revwalk_hide(w, &objs[in[i].obj].id)
				 : git_revwalk_push(w, &objs[in[i].obj].id);
	while (!err && !(err = git_revwalk_next(&oid, w))) {
		if (*n == cap) {
			git_oid *bigger = realloc(v, (cap = cap * 2 + 16) * sizeof(*v));

			if (!bigger)
				abort();
			v = bigger;
		}
		v[(*n)++] = oid;
	}
	git_revwalk_free(w);
	__lsan_enable();
	if (err != GIT_ITEROVER) {
		free(v);
		*n = 0;
		return -1;
	}
	*out = v;
	return 0;
}

static void walk(const struct input *in, size_t nin, enum ss_git_graph_order order, int acyclic)
{
	ss_git_graph *g = NULL;
	git_oid *ours = NULL, *theirs = NULL;
	size_t n = 0, nt = 0, i, j;
	int rc;

	if (ss_git_graph_new(&g, repo, "fuzz") < 0)
		abort();
	for (i = 0; i < nin; i++)
		FUZZ_CHECK((in[i].hide ? ss_git_graph_hide(g, &objs[in[i].obj].id)
				       : ss_git_graph_push(g, &objs[in[i].obj].id)) == 0);
	rc = ss_git_graph_walk(g, order, &ours, &n);
	if (rc < 0) {
		const char *msg = ss_error_last();

		FUZZ_CHECK(msg && strstr(msg, "'fuzz'") && !strchr(msg, '\n'));
		FUZZ_CHECK(!ours && !n);
	}
	FUZZ_CHECK(ss_git_graph_size(g) <= MAXOBJ + 3 * MAXOBJ);
	for (i = 0; i < n; i++) {
		const struct object *o = find(&ours[i]);

		FUZZ_CHECK(o && o->type == GIT_OBJECT_COMMIT);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(!git_oid_equal(&ours[i], &ours[j]));
	}
	if (acyclic &&
	    !revwalk(in, nin, order == SS_GIT_GRAPH_UNSORTED ? GIT_SORT_NONE
			     : GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE, &theirs, &nt) &&
	    rc == 0) {
		FUZZ_CHECK(nt == n);
		for (i = 0; i < n; i++)
			FUZZ_CHECK(git_oid_equal(&ours[i], &theirs[i]));
	}
	free(theirs);
	free(ours);
	ss_git_graph_free(g);
}

static void history(const uint8_t *data, size_t size)
{
	static char text[MAXOBJ][512];
	struct input in[MAXIN];
	size_t pos = 0, i, j, nin = 0;
	int acyclic = 1;

	if (!size)
		return;
	nobjs = 1 + data[pos++] % MAXOBJ;
	for (i = 0; i < nobjs; i++)
		make_id(&objs[i].id, i);
	for (i = 0; i < nobjs; i++) {
		unsigned flags = pos < size ? data[pos++] : 0;
		size_t np = flags & 3, len;
		long long t;
		char hex[GIT_OID_HEXSZ + 1];
		git_oid pid;

		len = (size_t)snprintf(text[i], sizeof(text[i]), "tree %040d\n", 0);
		for (j = 0; j < np; j++) {
			/* older objects, an absent one, or a younger one (cycles) */
			size_t p = (pos < size ? data[pos++] : 0) % (nobjs + 2);

			if (p >= nobjs)
				memset(&pid, 0xee - (int)(p - nobjs), sizeof(pid));
			else
				pid = objs[p].id;
			if (p < nobjs && p >= i)
				acyclic = 0;
			git_oid_tostr(hex, sizeof(hex), &pid);
			len += (size_t)snprintf(text[i] + len, sizeof(text[i]) - len, "parent %s\n", hex);
		}
		t = (int8_t)(pos < size ? data[pos++] : 0);
		if (flags & 0x40)
			t *= 1000000000000LL;
		len += (size_t)snprintf(text[i] + len, sizeof(text[i]) - len,
					"author A <a@b> 1 +0000\ncommitter C <c@d> %lld +0000\n\nc%zu\n",
					t, i);
		objs[i].type = flags & 0x80 ? GIT_OBJECT_BLOB : GIT_OBJECT_COMMIT;
		objs[i].data = text[i];
		objs[i].len = len;
	}
	for (; pos < size && nin < MAXIN; pos++) {
		in[nin].hide = data[pos] >> 7;
		in[nin].obj = (data[pos] & 0x7f) % nobjs;
		nin++;
	}
	walk(in, nin, SS_GIT_GRAPH_UNSORTED, acyclic);
	walk(in, nin, SS_GIT_GRAPH_DATE_REVERSE, acyclic);
	nobjs = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run++;
	if (!size)
		return 0;
	if (data[0] & 1)
		history(data + 1, size - 1);
	else
		one_commit(data + 1, size - 1);
	ss_error_clear();
	return 0;
}
