/*
 * git.c - the git repository source (libgit2) and branch listing.
 *
 * Revisions are taken the way git log takes them ("A..B", "A...B", "^C",
 * "D"; none means HEAD).  Commits come oldest first in the order of
 * `git log --reverse --date-order --no-merges`: libgit2's topological sort
 * with GIT_SORT_TIME keeps a time-ordered queue of ready commits, which is
 * git's --date-order; its --topo-order (a LIFO) has no libgit2 equivalent
 * with the same tie-breaking.  Merges are counted and skipped.
 *
 * Diffs are first parent (or the empty tree) to commit, with rename
 * detection always on and the rename limit fixed, so that features do not
 * depend on the user's diff.renames/diff.renameLimit.
 *
 * Speed (bench/git-ingest.sh) needs three things libgit2 1.5 does not do:
 *  - git_diff_tree_to_tree() opens every subtree of both commits even when
 *    their ids are equal; we walk the two trees ourselves, descending only
 *    where ids differ, and hand libgit2 the changed paths as an exact
 *    pathspec, which its tree iterators use to skip everything else;
 *  - reading oldest first, every blob sits deep in a delta chain whose
 *    bases (newer versions) libgit2's 16 MiB flush-all base cache has long
 *    dropped; a small read-only pack backend in front of libgit2's own,
 *    with an LRU cache of resolved objects like git's delta base cache,
 *    resolves each chain link about once (packs it cannot read, loose
 *    objects and alternates fall through to libgit2);
 *  - every object read is re-hashed (GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION);
 *    git log does not do that either, so it is switched off.
 * The last is a process-wide setting (it only saves work, for every
 * libgit2 user).  libgit2's object cache (256 MiB by default, also
 * process-wide) is left alone although it mostly duplicates the pack
 * store: 16 MiB would cut peak RSS by a quarter for 5% of speed, but
 * would slow other users of libgit2 in the process.
 *
 * The walk is done at open time (a topological sort needs all commits
 * anyway), which also reports bad revisions before the first commit.
 * When diffs are wanted, reading is spread over worker threads, each with
 * its own git_repository (libgit2 objects must not be shared between
 * threads) and one shared pack store.  Commit i is built into slot
 * i % GIT_QUEUE of a ring by whichever worker claimed it, and next() takes
 * slots strictly in order, so the output does not depend on scheduling.
 * SS_GIT_THREADS=N in the environment sets the number of workers (0: read
 * in the caller's thread).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <iconv.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include "source/diff.h"
#include "source/git.h"
#include "source/impl.h"
#include "util/error.h"

enum {
	GIT_MAX_WORKERS = 4,
	GIT_QUEUE = 16,           /* commits read ahead, across all workers */
	GIT_RENAME_LIMIT = 1000,  /* git's default diff.renameLimit */
	GIT_BACKEND_PRIORITY = 100, /* above libgit2's pack (2) and loose (1) */
	GIT_WALK_PRIORITY = 1000   /* the walk backend: above everything */
};

/* Resolved objects kept by the pack store; git's delta base cache is 96 MiB. */
#define GIT_BASE_CACHE ((size_t)64 << 20)
/* The cache is split in shards with a lock and an LRU each, so that
 * workers seldom wait for each other; a shard holds 1/GIT_SHARDS of it. */
#define GIT_SHARDS 8
#define GIT_SHARD_BUCKETS 8192

/* ------------------------------------------------------------------ */
/* A read-only pack store: pack indexes, and an LRU of resolved objects. */

struct pack {
	unsigned char *idx, *data;  /* whole files, mapped */
	size_t idx_len, data_len;
	uint32_t n;                 /* objects */
	const unsigned char *names, *off32, *off64;
	size_t n64;
};

struct lru_node {
	struct lru_node *prev, *next;
};

/* A resolved object in the LRU, keyed by pack and entry offset. */
struct base {
	struct lru_node node;       /* first: a node is its base */
	struct base *hnext;
	const struct pack *pack;
	uint64_t off;
	git_object_t type;
	size_t len;
	unsigned char data[];
};

struct shard {
	pthread_mutex_t lock;
	struct base *buckets[GIT_SHARD_BUCKETS];
	struct lru_node lru;        /* lru.next is the most recently used */
	size_t used;
};

struct pack_store {
	struct pack *packs;         /* read-only once opened */
	size_t npacks;
	size_t limit;               /* bytes per shard */
	struct shard shards[GIT_SHARDS];
	size_t nshards;             /* initialised, for pack_store_free() */
};

/* What libgit2 sees: one per git_repository, all sharing one store. */
struct pack_backend {
	git_odb_backend parent;
	struct pack_store *store;
};

/* One link of a delta chain: the entry at off, its delta data at pos. */
struct link {
	uint64_t off, pos;
	size_t size;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return p;
}

static void pack_close(struct pack *p)
{
	if (p->idx)
		munmap(p->idx, p->idx_len);
	if (p->data)
		munmap(p->data, p->data_len);
	memset(p, 0, sizeof(*p));
}

/* Map a version 2 index and its pack; -1 leaves the pack to libgit2. */
static int pack_open(struct pack *p, const char *idx_path)
{
	size_t len = strlen(idx_path), min;
	char *pack_path;

	memset(p, 0, sizeof(*p));
	p->idx = map_file(idx_path, &p->idx_len);
	if (!p->idx || p->idx_len < 8 + 1024 + 40 || memcmp(p->idx, "\377tOc", 4) ||
	    be32(p->idx + 4) != 2)
		goto close_pack;
	p->n = be32(p->idx + 8 + 255 * 4);
	min = 8 + 1024 + (size_t)p->n * 28 + 40;
	if (p->idx_len < min || (p->idx_len - min) % 8)
		goto close_pack;
	p->names = p->idx + 8 + 1024;
	p->off32 = p->names + (size_t)p->n * 24;  /* past the names and CRCs */
	p->off64 = p->off32 + (size_t)p->n * 4;
	p->n64 = (p->idx_len - min) / 8;
	pack_path = malloc(len + 2);
	if (!pack_path)
		goto close_pack;
	memcpy(pack_path, idx_path, len - 4);
	strcpy(pack_path + len - 4, ".pack");
	p->data = map_file(pack_path, &p->data_len);
	free(pack_path);
	if (!p->data || p->data_len < 12 + 20 || memcmp(p->data, "PACK", 4) ||
	    be32(p->data + 8) != p->n)
		goto close_pack;
	return 0;
close_pack:
	pack_close(p);
	return -1;
}

/* Offset of the object named sha: 0, 1 when absent, -1 when the index is bad. */
static int pack_find(const struct pack *p, const unsigned char *sha, uint64_t *off)
{
	const unsigned char *fan = p->idx + 8;
	uint32_t lo = sha[0] ? be32(fan + (sha[0] - 1) * 4) : 0, hi = be32(fan + sha[0] * 4);
	uint32_t o;

	if (hi > p->n || lo > hi)
		return -1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = memcmp(p->names + (size_t)mid * 20, sha, 20);

		if (c < 0) {
			lo = mid + 1;
			continue;
		}
		if (c > 0) {
			hi = mid;
			continue;
		}
		o = be32(p->off32 + (size_t)mid * 4);
		if (!(o & 0x80000000u)) {
			*off = o;
		} else {
			o &= 0x7fffffffu;
			if (o >= p->n64)
				return -1;
			*off = (uint64_t)be32(p->off64 + (size_t)o * 8) << 32 |
			       be32(p->off64 + (size_t)o * 8 + 4);
		}
		return *off >= 12 && *off < p->data_len - 20 ? 0 : -1;
	}
	return 1;
}

/* Type and size of the entry at off, and where its data starts. */
static int entry_header(const struct pack *p, uint64_t off, int *type, size_t *size,
			uint64_t *pos)
{
	uint64_t end = p->data_len - 20, i = off;
	unsigned shift = 4, c;

	if (i >= end)
		return -1;
	c = p->data[i++];
	*type = (c >> 4) & 7;
	*size = c & 15;
	while (c & 0x80) {
		if (i >= end || shift > 57)
			return -1;
		c = p->data[i++];
		*size += (size_t)(c & 0x7f) << shift;
		shift += 7;
	}
	*pos = i;
	return 0;
}

/* The size bytes deflated at pos, NUL-terminated; NULL when corrupt. */
static unsigned char *inflate_at(const struct pack *p, uint64_t pos, size_t size)
{
	unsigned char *out;
	z_stream z;
	int rc;

	if (size >= UINT32_MAX || !(out = malloc(size + 1)))
		return NULL;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = p->data + pos;
	z.avail_in = (uInt)(p->data_len - pos > UINT32_MAX ? UINT32_MAX : p->data_len - pos);
	z.next_out = out;
	z.avail_out = (uInt)size + 1;  /* room to notice a too long stream */
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (rc != Z_STREAM_END || z.total_out != size) {
		free(out);
		return NULL;
	}
	out[size] = '\0';
	return out;
}

static int delta_varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
	unsigned shift = 0, c;
	size_t v = 0;

	do {
		if (*p >= end || shift > 63)
			return -1;
		c = *(*p)++;
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	return 0;
}

/* Apply a git delta (copy and insert instructions) to base. */
static unsigned char *delta_apply(const unsigned char *base, size_t blen,
				  const unsigned char *delta, size_t dlen, size_t *olen)
{
	const unsigned char *d = delta, *end = delta + dlen;
	unsigned char *out, *o;
	size_t src, dst;

	if (delta_varint(&d, end, &src) || src != blen || delta_varint(&d, end, &dst) ||
	    dst >= SIZE_MAX || !(out = malloc(dst + 1)))
		return NULL;
	o = out;
	while (d < end) {
		unsigned c = *d++;
		size_t room = dst - (size_t)(o - out);

		if (c & 0x80) {
			size_t off = 0, n = 0;
			int i;

			for (i = 0; i < 4; i++)
				if (c & (1u << i)) {
					if (d >= end)
						goto free_out;
					off |= (size_t)*d++ << (8 * i);
				}
			for (i = 0; i < 3; i++)
				if (c & (0x10u << i)) {
					if (d >= end)
						goto free_out;
					n |= (size_t)*d++ << (8 * i);
				}
			if (!n)
				n = 0x10000;
			if (off > blen || n > blen - off || n > room)
				goto free_out;
			memcpy(o, base + off, n);
			o += n;
		} else if (c) {
			if (c > (size_t)(end - d) || c > room)
				goto free_out;
			memcpy(o, d, c);
			o += c;
			d += c;
		} else {
			goto free_out;  /* opcode 0 is reserved */
		}
	}
	if ((size_t)(o - out) != dst)
		goto free_out;
	out[dst] = '\0';
	*olen = dst;
	return out;
free_out:
	free(out);
	return NULL;
}

static uint64_t base_hash(const struct pack *p, uint64_t off)
{
	return (off ^ (uint64_t)(uintptr_t)p) * 0x9e3779b97f4a7c15ull;
}

static struct shard *base_shard(struct pack_store *s, const struct pack *p, uint64_t off)
{
	return &s->shards[(base_hash(p, off) >> 40) % GIT_SHARDS];
}

static struct base **base_bucket(struct shard *sh, const struct pack *p, uint64_t off)
{
	return &sh->buckets[(base_hash(p, off) >> 20) % GIT_SHARD_BUCKETS];
}

static void lru_unlink(struct base *e)
{
	e->node.prev->next = e->node.next;
	e->node.next->prev = e->node.prev;
}

static void lru_push(struct shard *sh, struct base *e)
{
	e->node.next = sh->lru.next;
	e->node.prev = &sh->lru;
	sh->lru.next->prev = &e->node;
	sh->lru.next = &e->node;
}

/* With the shard's lock held. */
static struct base *cache_find(struct shard *sh, const struct pack *p, uint64_t off)
{
	struct base *e;

	for (e = *base_bucket(sh, p, off); e; e = e->hnext)
		if (e->off == off && e->pack == p) {
			lru_unlink(e);
			lru_push(sh, e);
			return e;
		}
	return NULL;
}

/* With the shard's lock held. */
static void cache_drop(struct shard *sh, struct base *e)
{
	struct base **pp = base_bucket(sh, e->pack, e->off);

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	lru_unlink(e);
	sh->used -= sizeof(*e) + e->len;
	free(e);
}

/* A copy of the cached object at off (NUL-terminated), or NULL. */
static unsigned char *cache_get(struct pack_store *s, const struct pack *p, uint64_t off,
				git_object_t *type, size_t *len)
{
	struct shard *sh = base_shard(s, p, off);
	unsigned char *copy = NULL;
	struct base *e;

	pthread_mutex_lock(&sh->lock);
	e = cache_find(sh, p, off);
	if (e && (copy = malloc(e->len + 1))) {
		memcpy(copy, e->data, e->len);
		copy[e->len] = '\0';
		*type = e->type;
		*len = e->len;
	}
	pthread_mutex_unlock(&sh->lock);
	return copy;
}

/* Remember a resolved object; failing to is not an error. */
static void cache_put(struct pack_store *s, const struct pack *p, uint64_t off,
		      git_object_t type, const unsigned char *data, size_t len)
{
	struct shard *sh = base_shard(s, p, off);
	struct base *e, **bucket;

	if (len > s->limit / 2 || !(e = malloc(sizeof(*e) + len)))
		return;
	e->pack = p;
	e->off = off;
	e->type = type;
	e->len = len;
	memcpy(e->data, data, len);
	pthread_mutex_lock(&sh->lock);
	if (cache_find(sh, p, off)) {
		/* another worker resolved it too */
		pthread_mutex_unlock(&sh->lock);
		free(e);
		return;
	}
	bucket = base_bucket(sh, p, off);
	e->hnext = *bucket;
	*bucket = e;
	lru_push(sh, e);
	sh->used += sizeof(*e) + len;
	while (sh->used > s->limit && sh->lru.prev != &e->node)
		cache_drop(sh, (struct base *)sh->lru.prev);
	pthread_mutex_unlock(&sh->lock);
}

/* For the delta entry at cur of type t whose header ends at pos: the offset
 * of its base and where its delta data starts. */
static int delta_base(const struct pack *p, uint64_t cur, int t, uint64_t pos,
		      uint64_t *base, uint64_t *data)
{
	uint64_t end = p->data_len - 20, rel;
	unsigned c;

	if (t == GIT_OBJECT_REF_DELTA) {
		if (pos + 20 > end || pack_find(p, p->data + pos, base))
			return -1;
		*data = pos + 20;
		return 0;
	}
	if (t != GIT_OBJECT_OFS_DELTA || pos >= end)
		return -1;
	c = p->data[pos++];
	rel = c & 127;
	while (c & 128) {
		if (pos >= end || rel >> 56)
			return -1;
		c = p->data[pos++];
		rel = ((rel + 1) << 7) | (c & 127);
	}
	if (!rel || rel > cur)
		return -1;
	*base = cur - rel;
	*data = pos;
	return 0;
}

/* Follow the delta chain of the entry at off down to a cached or whole
 * object, then apply the deltas back up, caching every object on the way
 * (the next version of a file is one of them).  NULL when unreadable. */
static unsigned char *pack_resolve(struct pack_store *s, const struct pack *p, uint64_t off,
				   git_object_t *type, size_t *len)
{
	struct link small[64], *chain = small, *grown;
	size_t n = 0, cap = 64, blen = 0, size;
	unsigned char *base = NULL, *delta, *next;
	uint64_t cur = off, pos;
	git_object_t btype = GIT_OBJECT_INVALID;
	int t;

	for (;;) {
		if ((base = cache_get(s, p, cur, &btype, &blen)))
			break;
		if (entry_header(p, cur, &t, &size, &pos))
			goto free_chain;
		if (t >= GIT_OBJECT_COMMIT && t <= GIT_OBJECT_TAG) {
			if (!(base = inflate_at(p, pos, size)))
				goto free_chain;
			blen = size;
			btype = (git_object_t)t;
			cache_put(s, p, cur, btype, base, blen);
			break;
		}
		if (n == cap) {
			cap *= 2;
			if (cap > (size_t)1 << 20)
				goto free_chain;  /* a cycle in a corrupt pack */
			grown = chain == small ? malloc(cap * sizeof(*chain)) :
				realloc(chain, cap * sizeof(*chain));
			if (!grown)
				goto free_chain;
			if (chain == small)
				memcpy(grown, small, sizeof(small));
			chain = grown;
		}
		chain[n].off = cur;
		chain[n].size = size;
		if (delta_base(p, cur, t, pos, &cur, &chain[n].pos))
			goto free_chain;
		n++;
	}
	while (n > 0) {
		n--;
		if (!(delta = inflate_at(p, chain[n].pos, chain[n].size)))
			goto free_chain;
		next = delta_apply(base, blen, delta, chain[n].size, &blen);
		free(delta);
		free(base);
		if (!(base = next))
			goto free_chain;
		cache_put(s, p, chain[n].off, btype, base, blen);
	}
	if (chain != small)
		free(chain);
	*type = btype;
	*len = blen;
	return base;
free_chain:
	if (chain != small)
		free(chain);
	free(base);
	return NULL;
}

/* Type and size of the object at off without building it: the size of a
 * delta is in the first bytes of its data, the type is its base's. */
static int pack_header(struct pack_store *s, const struct pack *p, uint64_t off,
		       git_object_t *type, size_t *len)
{
	struct shard *sh = base_shard(s, p, off);
	unsigned char head[32];
	const unsigned char *h = head;
	uint64_t cur = off, pos, data;
	size_t size, src, depth;
	struct base *e;
	z_stream z;
	int t, rc;

	pthread_mutex_lock(&sh->lock);
	if ((e = cache_find(sh, p, off))) {
		*type = e->type;
		*len = e->len;
	}
	pthread_mutex_unlock(&sh->lock);
	if (e)
		return 0;
	if (entry_header(p, cur, &t, &size, &pos))
		return -1;
	*len = size;
	for (depth = 0; t < GIT_OBJECT_COMMIT || t > GIT_OBJECT_TAG; depth++) {
		if (depth > ((size_t)1 << 20) || delta_base(p, cur, t, pos, &cur, &data))
			return -1;
		if (!depth) {
			memset(&z, 0, sizeof(z));
			if (inflateInit(&z) != Z_OK)
				return -1;
			z.next_in = p->data + data;
			/* enough input for the largest deflate block header */
			z.avail_in = (uInt)(p->data_len - data > 4096 ? 4096 : p->data_len - data);
			z.next_out = head;
			z.avail_out = sizeof(head);
			rc = inflate(&z, Z_SYNC_FLUSH);
			inflateEnd(&z);
			if ((rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) ||
			    delta_varint(&h, head + z.total_out, &src) ||
			    delta_varint(&h, head + z.total_out, len))
				return -1;
		}
		if (entry_header(p, cur, &t, &size, &pos))
			return -1;
	}
	*type = (git_object_t)t;
	return 0;
}

static int backend_read(void **out, size_t *len, git_object_t *type,
			git_odb_backend *backend, const git_oid *oid)
{
	struct pack_store *s = ((struct pack_backend *)backend)->store;
	unsigned char *data;
	uint64_t off;
	size_t i;
	void *buf;

	for (i = 0; i < s->npacks; i++) {
		if (pack_find(&s->packs[i], oid->id, &off))
			continue;
		data = pack_resolve(s, &s->packs[i], off, type, len);
		if (!data)
			return GIT_PASSTHROUGH;  /* libgit2's own reader will say why */
		buf = git_odb_backend_data_alloc(backend, *len + 1);
		if (!buf) {
			free(data);
			return -1;
		}
		memcpy(buf, data, *len + 1);
		free(data);
		*out = buf;
		return 0;
	}
	return GIT_ENOTFOUND;
}

/* libgit2 asks for the size of every blob it diffs before reading it. */
static int backend_read_header(size_t *len, git_object_t *type, git_odb_backend *backend,
			       const git_oid *oid)
{
	struct pack_store *s = ((struct pack_backend *)backend)->store;
	uint64_t off;
	size_t i;

	for (i = 0; i < s->npacks; i++)
		if (!pack_find(&s->packs[i], oid->id, &off))
			return pack_header(s, &s->packs[i], off, type, len) ? GIT_PASSTHROUGH : 0;
	return GIT_ENOTFOUND;
}

static int backend_exists(git_odb_backend *backend, const git_oid *oid)
{
	struct pack_store *s = ((struct pack_backend *)backend)->store;
	uint64_t off;
	size_t i;

	for (i = 0; i < s->npacks; i++)
		if (!pack_find(&s->packs[i], oid->id, &off))
			return 1;
	return 0;
}

static void backend_free(git_odb_backend *backend)
{
	free(backend);
}

static void pack_store_free(struct pack_store *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nshards; i++) {
		while (s->shards[i].lru.next != &s->shards[i].lru)
			cache_drop(&s->shards[i], (struct base *)s->shards[i].lru.next);
		pthread_mutex_destroy(&s->shards[i].lock);
	}
	for (i = 0; i < s->npacks; i++)
		pack_close(&s->packs[i]);
	free(s->packs);
	free(s);
}

/* Map the packs of repo; NULL when there are none or memory is short
 * (libgit2 then reads everything itself, only slower). */
static struct pack_store *pack_store_new(git_repository *repo, size_t limit)
{
	struct pack_store *s = calloc(1, sizeof(*s));
	struct dirent *de;
	char dir[4096], path[4352];
	struct pack *grown;
	DIR *d = NULL;
	size_t len;
	int n;

	if (!s)
		return NULL;
	s->limit = limit / GIT_SHARDS;
	for (; s->nshards < GIT_SHARDS; s->nshards++) {
		struct shard *sh = &s->shards[s->nshards];

		if (pthread_mutex_init(&sh->lock, NULL))
			goto free_store;
		sh->lru.next = sh->lru.prev = &sh->lru;
	}
	n = snprintf(dir, sizeof(dir), "%sobjects/pack", git_repository_commondir(repo));
	if (n < 0 || (size_t)n >= sizeof(dir) || !(d = opendir(dir)))
		goto free_store;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".idx"))
			continue;
		if (!(grown = realloc(s->packs, (s->npacks + 1) * sizeof(*grown))))
			break;
		s->packs = grown;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!pack_open(&s->packs[s->npacks], path))
			s->npacks++;
	}
	closedir(d);
	if (s->npacks)
		return s;
free_store:
	pack_store_free(s);
	return NULL;
}

/* Put the store in front of repo's own backends; on failure repo reads as before. */
static void pack_store_attach(struct pack_store *s, git_repository *repo)
{
	struct pack_backend *b;
	git_odb *odb = NULL;

	if (!s || !(b = calloc(1, sizeof(*b))))
		return;
	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = backend_read;
	b->parent.read_header = backend_read_header;
	b->parent.exists = backend_exists;
	b->parent.free = backend_free;
	b->store = s;
	if (git_repository_odb(&odb, repo) < 0 ||
	    git_odb_add_backend(odb, &b->parent, GIT_BACKEND_PRIORITY) < 0)
		free(b);
	git_odb_free(odb);
}

/* ------------------------------------------------------------------ */
/* Commits. */

struct slot {
	int ready;
	int merge;       /* a merge commit: skipped, no commit */
	int err;         /* < 0: reading failed, msg says why */
	char *msg;
	ss_commit *c;
};

struct git_source;

struct worker {
	pthread_t thread;
	git_repository *repo;
	struct git_source *src;
	int started;
};

struct git_source {
	git_repository *repo;
	struct pack_store *store;  /* shared by every repository handle; may be NULL */
	char *path;
	int with_diff;
	size_t max_lines;
	ss_source_stats *stats;

	/* a shallow clone: the grafted commits of .git/shallow (read as
	 * roots, as git log does) and those of their parents that are absent
	 * (the walk's boundary); both sorted, NULL when not shallow */
	git_oid *grafted, *cut;
	size_t ngrafted, ncut;
	struct walk_backend *walk_backend;  /* owned by src->repo's odb */

	git_oid *oids;       /* every commit to read, in output order */
	size_t noids;
	size_t next;         /* next oid index next() takes; written under lock */
	size_t index;        /* commits yielded so far */
	int failed;          /* sticky fatal error code */

	/* the read-ahead pipeline (nworkers == 0: none) */
	struct worker workers[GIT_MAX_WORKERS];
	size_t nworkers;
	pthread_mutex_t lock;
	pthread_cond_t ready_cond, space_cond;
	size_t claimed;      /* next oid index a worker takes */
	int stop;
	struct slot slots[GIT_QUEUE];
};

/* Paths that differ between two trees (a growable array of malloc'd strings). */
struct changes {
	char **paths;
	size_t n, cap;
	char prefix[4096];
	size_t plen;
};

/*
 * The walk's own backend, in front of every other on the walking
 * repository only.  It serves the absent parents of a shallow clone's
 * grafted commits as parentless commits (dated 1970, empty tree), which
 * the walk hides: libgit2 1.5 knows no shallow clones and would otherwise
 * fail on the first missing parent where git log stops.  And it notes the
 * last object libgit2 asked for, so that a failing walk can name the
 * commit it could not read (libgit2's message seldom does).
 */
struct walk_backend {
	git_odb_backend parent;
	const struct git_source *src;
	git_oid last;        /* last object asked for (zero: none yet) */
};

static const char boundary_commit[] =
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
	"author shallow boundary <> 0 +0000\n"
	"committer shallow boundary <> 0 +0000\n\n";

static int cmp_oid(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static int oid_in(const git_oid *set, size_t n, const git_oid *oid)
{
	return n && bsearch(oid, set, n, sizeof(*set), cmp_oid) != NULL;
}

static int walk_read(void **out, size_t *len, git_object_t *type, git_odb_backend *backend,
		     const git_oid *oid)
{
	struct walk_backend *b = (struct walk_backend *)backend;
	void *buf;

	if (!oid_in(b->src->cut, b->src->ncut, oid)) {
		git_oid_cpy(&b->last, oid);
		return GIT_PASSTHROUGH;
	}
	if (!(buf = git_odb_backend_data_alloc(backend, sizeof(boundary_commit))))
		return -1;
	memcpy(buf, boundary_commit, sizeof(boundary_commit));
	*out = buf;
	*len = sizeof(boundary_commit) - 1;
	*type = GIT_OBJECT_COMMIT;
	return 0;
}

static int walk_read_header(size_t *len, git_object_t *type, git_odb_backend *backend,
			    const git_oid *oid)
{
	struct walk_backend *b = (struct walk_backend *)backend;

	if (!oid_in(b->src->cut, b->src->ncut, oid)) {
		git_oid_cpy(&b->last, oid);
		return GIT_PASSTHROUGH;
	}
	*len = sizeof(boundary_commit) - 1;
	*type = GIT_OBJECT_COMMIT;
	return 0;
}

static int walk_exists(git_odb_backend *backend, const git_oid *oid)
{
	struct walk_backend *b = (struct walk_backend *)backend;

	return oid_in(b->src->cut, b->src->ncut, oid);
}

static void walk_backend_free(git_odb_backend *backend)
{
	free(backend);
}

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown error";
}

static int open_repo(git_repository **out, const char *path)
{
	if (git_repository_open_ext(out, path, 0, NULL) < 0)
		return ss_error_code(SS_ENOTFOUND, "cannot open repository '%s': %s",
				     path, git_msg());
	return 0;
}

/*
 * Re-encode text from a commit's declared encoding to UTF-8, as git log
 * does.  Returns s itself when no conversion is needed or possible.
 */
static const char *to_utf8(ss_arena *a, const char *s, size_t *len, const char *enc)
{
	iconv_t cd;
	char *in = (char *)s, *buf, *o;
	size_t inleft = *len, cap, oleft;

	if (!enc || !strcasecmp(enc, "utf-8") || !strcasecmp(enc, "utf8"))
		return s;
	cd = iconv_open("UTF-8", enc);
	if (cd == (iconv_t)-1)
		return s;
	cap = *len * 4 + 1;
	buf = ss_arena_alloc(a, cap);
	if (!buf)
		goto close_cd;
	o = buf;
	oleft = cap - 1;
	if (iconv(cd, &in, &inleft, &o, &oleft) == (size_t)-1) {
		buf = NULL;
		goto close_cd;
	}
	*o = '\0';
	*len = (size_t)(o - buf);
close_cd:
	iconv_close(cd);
	return buf ? buf : s;
}

static int set_person(ss_person *p, ss_arena *a, const git_signature *sig, const char *enc)
{
	size_t len;
	const char *name;

	if (!sig)
		return 0;
	len = strlen(sig->name);
	name = to_utf8(a, sig->name, &len, enc);
	p->name = ss_arena_strndup(a, name, len);
	p->email = ss_arena_strdup(a, sig->email);
	p->time = sig->when.time;
	p->tz = sig->when.offset;
	return p->name && p->email ? 0 : SS_ENOMEM;
}

static int changes_add(struct changes *ch, const char *name)
{
	size_t len = strlen(name);
	char **grown, *path;

	if (ch->n == ch->cap) {
		ch->cap = ch->cap ? ch->cap * 2 : 64;
		if (!(grown = realloc(ch->paths, ch->cap * sizeof(*grown))))
			return SS_ENOMEM;
		ch->paths = grown;
	}
	if (!(path = malloc(ch->plen + len + 1)))
		return SS_ENOMEM;
	memcpy(path, ch->prefix, ch->plen);
	memcpy(path + ch->plen, name, len + 1);
	ch->paths[ch->n++] = path;
	return 0;
}

static void changes_clear(struct changes *ch)
{
	size_t i;

	for (i = 0; i < ch->n; i++)
		free(ch->paths[i]);
	free(ch->paths);
	memset(ch, 0, sizeof(*ch));
}

/* Order of entries in a git tree: names compared as if trees ended in '/'. */
static int entry_cmp(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *x = git_tree_entry_name(a), *y = git_tree_entry_name(b);
	size_t lx = strlen(x), ly = strlen(y), l = lx < ly ? lx : ly;
	unsigned char cx, cy;
	int c = memcmp(x, y, l);

	if (c)
		return c;
	cx = lx > l ? (unsigned char)x[l] : git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	cy = ly > l ? (unsigned char)y[l] : git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return cx < cy ? -1 : cx > cy;
}

static int tree_changes(struct changes *ch, git_repository *repo, git_tree *a, git_tree *b);

/* Descend into the subtree(s) named by ea/eb (either may be NULL). */
static int subtree_changes(struct changes *ch, git_repository *repo,
			   const git_tree_entry *ea, const git_tree_entry *eb)
{
	const char *name = git_tree_entry_name(ea ? ea : eb);
	size_t len = strlen(name), plen = ch->plen;
	git_tree *ta = NULL, *tb = NULL;
	int err = SS_EINVALID;

	if (plen + len + 2 > sizeof(ch->prefix))
		return ss_error_code(SS_EINVALID, "path too long: %s%s", ch->prefix, name);
	if ((ea && git_tree_lookup(&ta, repo, git_tree_entry_id(ea)) < 0) ||
	    (eb && git_tree_lookup(&tb, repo, git_tree_entry_id(eb)) < 0)) {
		err = ss_error_set("cannot read tree '%s%s': %s", ch->prefix, name, git_msg());
		goto free_trees;
	}
	memcpy(ch->prefix + plen, name, len);
	ch->prefix[plen + len] = '/';
	ch->plen = plen + len + 1;
	err = tree_changes(ch, repo, ta, tb);
	ch->plen = plen;
free_trees:
	git_tree_free(ta);
	git_tree_free(tb);
	return err;
}

/* The paths of files that differ between trees a and b (either may be NULL). */
static int tree_changes(struct changes *ch, git_repository *repo, git_tree *a, git_tree *b)
{
	size_t i = 0, j = 0, na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
	const git_tree_entry *ea, *eb;
	int c, err = 0, ta, tb;

	ch->prefix[ch->plen] = '\0';
	while (!err && (i < na || j < nb)) {
		ea = i < na ? git_tree_entry_byindex(a, i) : NULL;
		eb = j < nb ? git_tree_entry_byindex(b, j) : NULL;
		c = !ea ? 1 : !eb ? -1 : entry_cmp(ea, eb);
		if (c < 0) {
			eb = NULL;
			i++;
		} else if (c > 0) {
			ea = NULL;
			j++;
		} else {
			i++;
			j++;
			if (git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb) &&
			    git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)))
				continue;
		}
		ta = ea && git_tree_entry_type(ea) == GIT_OBJECT_TREE;
		tb = eb && git_tree_entry_type(eb) == GIT_OBJECT_TREE;
		if (ta || tb)
			err = subtree_changes(ch, repo, ea, eb);
		else
			err = changes_add(ch, git_tree_entry_name(ea ? ea : eb));
		ch->prefix[ch->plen] = '\0';
	}
	return err;
}

/* root: diff against the empty tree whatever the parents (a grafted commit). */
static int add_diff(ss_commit *c, git_repository *repo, git_commit *commit, int root,
		    size_t max_lines)
{
	git_diff_options dopts;
	git_diff_find_options fopts;
	git_tree *old_tree = NULL, *new_tree = NULL;
	git_commit *parent = NULL;
	git_diff *diff = NULL;
	struct changes ch;
	int err = 0;

	memset(&ch, 0, sizeof(ch));
	if (git_commit_tree(&new_tree, commit) < 0 ||
	    (!root && git_commit_parentcount(commit) > 0 &&
	     (git_commit_parent(&parent, commit, 0) < 0 ||
	      git_commit_tree(&old_tree, parent) < 0))) {
		err = ss_error_set("cannot read commit %s in '%s': %s", c->id, c->source, git_msg());
		goto free_trees;
	}
	if ((err = tree_changes(&ch, repo, old_tree, new_tree)) < 0) {
		if (err == SS_ENOMEM)
			ss_error_code(err, "out of memory reading '%s'", c->source);
		goto free_trees;
	}
	if (!ch.n)
		goto free_trees;  /* an empty commit */

	/* the _INIT macros leave fields to zero-fill, which -Wextra flags */
	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	dopts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	dopts.pathspec.strings = ch.paths;
	dopts.pathspec.count = ch.n;
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = GIT_RENAME_LIMIT;
	if (git_diff_tree_to_tree(&diff, repo, old_tree, new_tree, &dopts) < 0 ||
	    git_diff_find_similar(diff, &fopts) < 0) {
		err = ss_error_set("cannot diff commit %s in '%s': %s", c->id,
				   c->source, git_msg());
		goto free_trees;
	}
	err = ss_commit_add_diff(c, diff, max_lines);
free_trees:
	changes_clear(&ch);
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_commit_free(parent);
	return err;
}

/*
 * Read one commit.  A merge yields *out == NULL and *merge = 1 without
 * building anything.  Safe in any thread that owns repo.
 */
static int read_commit(ss_commit **out, int *merge, git_repository *repo,
		       const git_oid *oid, const struct git_source *src)
{
	git_commit *commit = NULL;
	ss_commit *c = NULL;
	const char *msg, *enc;
	size_t len;
	int err = 0, root;

	*out = NULL;
	*merge = 0;
	if (git_commit_lookup(&commit, repo, oid) < 0) {
		char hex[GIT_OID_HEXSZ + 1];

		return ss_error_set("cannot read commit %s in '%s': %s",
				    git_oid_tostr(hex, sizeof(hex), oid), src->path, git_msg());
	}
	/* a grafted commit of a shallow clone has no parents, for git log */
	root = oid_in(src->grafted, src->ngrafted, oid);
	if (!root && git_commit_parentcount(commit) > 1) {
		*merge = 1;
		goto free_commit;
	}
	c = ss_commit_new();
	if (!c || !(c->source = ss_arena_strdup(c->arena, src->path))) {
		err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
		goto free_commit;
	}
	git_oid_tostr(c->id, sizeof(c->id), oid);
	enc = git_commit_message_encoding(commit);
	if (set_person(&c->author, c->arena, git_commit_author(commit), enc) < 0 ||
	    set_person(&c->committer, c->arena, git_commit_committer(commit), enc) < 0) {
		err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", src->path);
		goto free_commit;
	}
	msg = git_commit_message(commit);
	if (!msg)
		msg = "";
	len = strlen(msg);
	msg = to_utf8(c->arena, msg, &len, enc);
	err = ss_commit_set_message(c, msg, len);
	if (err < 0)
		goto free_commit;
	if (src->with_diff)
		err = add_diff(c, repo, commit, root, src->max_lines);
	/* a damaged object spoils this commit, not the ones after it */
	if (err < 0 && err != SS_ENOMEM) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", ss_error_last());
		err = ss_error_code(SS_ESKIP, "commit %s in '%s' skipped: %s",
				    c->id, src->path, why);
	}
free_commit:
	git_commit_free(commit);
	if (err < 0) {
		ss_commit_free(c);
		return err;
	}
	*out = c;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct git_source *src = w->src;
	struct slot *s;
	ss_commit *c;
	size_t i;
	int err, merge;

	pthread_mutex_lock(&src->lock);
	for (;;) {
		if (src->stop || src->claimed >= src->noids)
			break;
		i = src->claimed;
		/* slot i % GIT_QUEUE is free once next() has taken i - GIT_QUEUE */
		if (i >= src->next + GIT_QUEUE) {
			pthread_cond_wait(&src->space_cond, &src->lock);
			continue;
		}
		src->claimed++;
		pthread_mutex_unlock(&src->lock);

		err = read_commit(&c, &merge, w->repo, &src->oids[i], src);

		pthread_mutex_lock(&src->lock);
		s = &src->slots[i % GIT_QUEUE];
		s->c = c;
		s->merge = merge;
		s->err = err;
		s->msg = err < 0 ? strdup(ss_error_last()) : NULL;
		s->ready = 1;
		pthread_cond_signal(&src->ready_cond);  /* only next() waits on it */
	}
	pthread_mutex_unlock(&src->lock);
	return NULL;
}

/* Take the result for oid index src->next, in order, and move on. */
static int take(ss_commit **out, int *merge, struct git_source *src)
{
	struct slot *s = &src->slots[src->next % GIT_QUEUE];
	int err;

	if (!src->nworkers) {
		err = read_commit(out, merge, src->repo, &src->oids[src->next], src);
		src->next++;
		return err;
	}
	pthread_mutex_lock(&src->lock);
	while (!s->ready)
		pthread_cond_wait(&src->ready_cond, &src->lock);
	*out = s->c;
	*merge = s->merge;
	err = s->err;
	if (err < 0)
		ss_error_code(err, "%s", s->msg ? s->msg : "out of memory");
	free(s->msg);
	memset(s, 0, sizeof(*s));
	src->next++;
	pthread_cond_signal(&src->space_cond);  /* one slot for one worker */
	pthread_mutex_unlock(&src->lock);
	return err;
}

static int git_next(ss_commit **out, void *impl)
{
	struct git_source *src = impl;
	ss_commit *c;
	int err, merge;

	*out = NULL;
	if (src->failed)
		return ss_error_code(src->failed, "repository '%s' cannot be read after an error",
				     src->path);
	while (src->next < src->noids) {
		err = take(&c, &merge, src);
		if (err == SS_ESKIP) {
			src->stats->malformed++;
			return err;
		}
		if (err < 0) {
			src->failed = err;
			return err;
		}
		if (merge) {
			src->stats->skipped_merges++;
			continue;
		}
		c->index = src->index++;
		*out = c;
		return 0;
	}
	return SS_ITEROVER;
}

static void stop_workers(struct git_source *src)
{
	size_t i;

	if (!src->nworkers)
		return;
	pthread_mutex_lock(&src->lock);
	src->stop = 1;
	pthread_cond_broadcast(&src->space_cond);
	pthread_mutex_unlock(&src->lock);
	for (i = 0; i < src->nworkers; i++)
		if (src->workers[i].started)
			pthread_join(src->workers[i].thread, NULL);
	for (i = 0; i < GIT_QUEUE; i++) {
		ss_commit_free(src->slots[i].c);
		free(src->slots[i].msg);
	}
	for (i = 0; i < src->nworkers; i++)
		git_repository_free(src->workers[i].repo);
	pthread_cond_destroy(&src->ready_cond);
	pthread_cond_destroy(&src->space_cond);
	pthread_mutex_destroy(&src->lock);
	src->nworkers = 0;
}

static void git_source_free(void *impl)
{
	struct git_source *src = impl;

	if (!src)
		return;
	stop_workers(src);
	free(src->oids);
	free(src->grafted);
	free(src->cut);
	free(src->path);
	git_repository_free(src->repo);
	pack_store_free(src->store);  /* after every repository that reads from it */
	free(src);
	git_libgit2_shutdown();
}

/* ------------------------------------------------------------------ */
/* Revisions. */

/* A revision that names an absent parent of a shallow clone's grafted
 * commit: beyond its history, as git says ("unknown revision"). */
static int beyond_shallow(const struct git_source *src, const git_oid *oid)
{
	if (!oid_in(src->cut, src->ncut, oid))
		return 0;
	git_error_set_str(GIT_ERROR_REFERENCE, "it lies beyond the history of this shallow clone "
			  "(run 'git fetch --unshallow' there)");
	return GIT_ENOTFOUND;
}

static int peel_commit(git_oid *out, const struct git_source *src, const char *spec)
{
	git_object *obj = NULL, *peeled = NULL;
	int err = git_revparse_single(&obj, src->repo, spec);

	if (!err)
		err = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (!err)
		git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return err ? err : beyond_shallow(src, out);
}

/* "A..B", and "A...B": both sides minus their merge bases, as git does. */
static int add_range(git_revwalk *walk, const struct git_source *src, const char *rev)
{
	git_repository *repo = src->repo;
	git_revspec spec = { NULL, NULL, 0 };
	git_oidarray bases = { NULL, 0 };
	git_object *from = NULL, *to = NULL;
	git_oid a, b;
	size_t i;
	int err;

	/* on failure git_revparse may leave spec.from set */
	if ((err = git_revparse(&spec, repo, rev)) < 0 ||
	    (err = git_object_peel(&from, spec.from, GIT_OBJECT_COMMIT)) < 0 ||
	    (err = git_object_peel(&to, spec.to, GIT_OBJECT_COMMIT)) < 0)
		goto free_objects;
	git_oid_cpy(&a, git_object_id(from));
	git_oid_cpy(&b, git_object_id(to));
	if ((err = beyond_shallow(src, &a)) < 0 || (err = beyond_shallow(src, &b)) < 0)
		goto free_objects;
	if (!(spec.flags & GIT_REVSPEC_MERGE_BASE)) {
		if (!(err = git_revwalk_hide(walk, &a)))
			err = git_revwalk_push(walk, &b);
		goto free_objects;
	}
	if ((err = git_revwalk_push(walk, &a)) < 0 ||
	    (err = git_revwalk_push(walk, &b)) < 0)
		goto free_objects;
	err = git_merge_bases(&bases, repo, &a, &b);
	if (err == GIT_ENOTFOUND) {
		err = 0;  /* unrelated histories: nothing to subtract */
		goto free_objects;
	}
	for (i = 0; !err && i < bases.count; i++)
		err = git_revwalk_hide(walk, &bases.ids[i]);
free_objects:
	git_oidarray_dispose(&bases);
	git_object_free(from);
	git_object_free(to);
	git_object_free(spec.from);
	git_object_free(spec.to);
	return err;
}

static int add_rev(git_revwalk *walk, const struct git_source *src, const char *rev)
{
	git_oid oid;
	int err;

	if (rev[0] == '^' && rev[1]) {
		err = peel_commit(&oid, src, rev + 1);
		return err < 0 ? err : git_revwalk_hide(walk, &oid);
	}
	if (strstr(rev, ".."))
		return add_range(walk, src, rev);
	err = peel_commit(&oid, src, rev);
	return err < 0 ? err : git_revwalk_push(walk, &oid);
}

/*
 * A shallow clone: read the grafted commits of its shallow file and find
 * which of their parents are absent (src->cut), then put the walk backend
 * (see struct walk_backend) in front of src->repo's others.  The backend
 * is attached to every repository, shallow or not, for the names of
 * failing objects.
 */
static int load_shallow(struct git_source *src)
{
	char path[4352], line[128];
	struct walk_backend *b;
	git_odb *odb = NULL;
	git_commit *commit;
	git_oid oid, *grown;
	size_t cap = 0, ccap = 0;
	unsigned int i, np;
	FILE *f = NULL;
	int err = 0;

	if (git_repository_odb(&odb, src->repo) < 0)
		return ss_error_set("cannot read objects of '%s': %s", src->path, git_msg());
	snprintf(path, sizeof(path), "%sshallow", git_repository_commondir(src->repo));
	if (git_repository_is_shallow(src->repo) == 1 && !(f = fopen(path, "r"))) {
		err = ss_error_set("cannot read '%s': %s", path, strerror(errno));
		goto free_odb;
	}
	while (f && fgets(line, sizeof(line), f)) {
		if (git_oid_fromstrn(&oid, line, GIT_OID_HEXSZ) < 0)
			continue;
		if (src->ngrafted == cap) {
			cap = cap ? cap * 2 : 16;
			if (!(grown = realloc(src->grafted, cap * sizeof(*grown))))
				goto no_memory;
			src->grafted = grown;
		}
		git_oid_cpy(&src->grafted[src->ngrafted++], &oid);
		if (git_commit_lookup(&commit, src->repo, &oid) < 0)
			continue;  /* a grafted commit no revision reaches */
		np = git_commit_parentcount(commit);
		for (i = 0; i < np; i++) {
			const git_oid *p = git_commit_parent_id(commit, i);

			if (git_odb_exists(odb, p))
				continue;
			if (src->ncut == ccap) {
				ccap = ccap ? ccap * 2 : 16;
				if (!(grown = realloc(src->cut, ccap * sizeof(*grown)))) {
					git_commit_free(commit);
					goto no_memory;
				}
				src->cut = grown;
			}
			git_oid_cpy(&src->cut[src->ncut++], p);
		}
		git_commit_free(commit);
	}
	if (src->ngrafted)
		qsort(src->grafted, src->ngrafted, sizeof(*src->grafted), cmp_oid);
	if (src->ncut)
		qsort(src->cut, src->ncut, sizeof(*src->cut), cmp_oid);
	if (!(b = calloc(1, sizeof(*b))))
		goto no_memory;
	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = walk_read;
	b->parent.read_header = walk_read_header;
	b->parent.exists = walk_exists;
	b->parent.free = walk_backend_free;
	b->src = src;
	if (git_odb_add_backend(odb, &b->parent, GIT_WALK_PRIORITY) < 0) {
		free(b);
		err = ss_error_set("cannot read objects of '%s': %s", src->path, git_msg());
		goto free_odb;
	}
	src->walk_backend = b;
	goto free_odb;
no_memory:
	err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", path);
free_odb:
	if (f)
		fclose(f);
	git_odb_free(odb);
	return err;
}

static int walk_history(struct git_source *src, const ss_source_options *opts)
{
	static const char *head[] = { "HEAD" };
	const char **revs = opts->nrevs ? opts->revs : head;
	size_t nrevs = opts->nrevs ? opts->nrevs : 1, i, cap = 0;
	git_revwalk *walk = NULL;
	git_oid oid, *grown;
	int err;

	if (git_revwalk_new(&walk, src->repo) < 0) {
		err = ss_error_set("cannot walk history of '%s': %s", src->path, git_msg());
		goto free_walk;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE);
	/* the shallow boundary: where the walk stops, as git log's does */
	for (i = 0; i < src->ncut; i++)
		if (git_revwalk_hide(walk, &src->cut[i]) < 0) {
			err = ss_error_set("cannot walk history of '%s': %s", src->path, git_msg());
			goto free_walk;
		}
	for (i = 0; i < nrevs; i++) {
		if (!revs[i] || !revs[i][0] || add_rev(walk, src, revs[i]) < 0) {
			err = ss_error_code(SS_EINVALID, "bad revision '%s' in '%s': %s",
					    revs[i] ? revs[i] : "(null)", src->path,
					    revs[i] && revs[i][0] ? git_msg() : "empty revision");
			goto free_walk;
		}
	}
	if (src->walk_backend)
		memset(&src->walk_backend->last, 0, sizeof(src->walk_backend->last));
	while (!(err = git_revwalk_next(&oid, walk))) {
		if (src->noids == cap) {
			cap = cap ? cap * 2 : 1024;
			grown = realloc(src->oids, cap * sizeof(*grown));
			if (!grown) {
				err = ss_error_code(SS_ENOMEM, "out of memory walking '%s'", src->path);
				goto free_walk;
			}
			src->oids = grown;
		}
		git_oid_cpy(&src->oids[src->noids++], &oid);
	}
	if (err != GIT_ITEROVER) {
		char hex[GIT_OID_HEXSZ + 1] = "";

		/* libgit2's own words, and the commit it was reading */
		if (src->walk_backend && !git_oid_is_zero(&src->walk_backend->last))
			git_oid_tostr(hex, sizeof(hex), &src->walk_backend->last);
		err = ss_error_set("cannot walk history of '%s': %s%s%s%s", src->path,
				   hex[0] ? "cannot read commit " : "", hex, hex[0] ? ": " : "",
				   git_msg());
		goto free_walk;
	}
	err = 0;
free_walk:
	git_revwalk_free(walk);
	return err;
}

static size_t worker_count(const struct git_source *src)
{
	const char *env = getenv("SS_GIT_THREADS");
	long n;

	if (env && *env) {
		n = strtol(env, NULL, 10);
		return n < 0 ? 0 : n > GIT_MAX_WORKERS ? GIT_MAX_WORKERS : (size_t)n;
	}
	/* without diffs a commit is too cheap to be worth a hand-off */
	if (!src->with_diff || src->noids < 2)
		return 0;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n <= 1)
		return 0;
	return n > GIT_MAX_WORKERS ? GIT_MAX_WORKERS : (size_t)n;
}

static int start_workers(struct git_source *src, size_t n)
{
	size_t i;
	int err = 0;

	if (!n)
		return 0;
	if ((err = pthread_mutex_init(&src->lock, NULL)))
		return ss_error_set("cannot start readers for '%s': %s", src->path, strerror(err));
	pthread_cond_init(&src->ready_cond, NULL);
	pthread_cond_init(&src->space_cond, NULL);
	src->nworkers = n;
	for (i = 0; i < n; i++) {
		src->workers[i].src = src;
		if ((err = open_repo(&src->workers[i].repo, src->path)) < 0)
			goto stop_readers;
		pack_store_attach(src->store, src->workers[i].repo);
	}
	for (i = 0; i < n; i++) {
		struct worker *w = &src->workers[i];

		if ((err = pthread_create(&w->thread, NULL, worker_main, w))) {
			err = ss_error_set("cannot start readers for '%s': %s", src->path,
					   strerror(err));
			goto stop_readers;
		}
		w->started = 1;
	}
	return 0;
stop_readers:
	stop_workers(src);
	return err;
}

int ss_git_open(void **out, ss_source_ops *ops, const char *repo,
		const ss_source_options *opts, ss_source_stats *stats)
{
	struct git_source *src;
	int err;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", git_msg());
	/* process-wide; see the top of this file */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	src = calloc(1, sizeof(*src));
	if (!src || !(src->path = strdup(repo))) {
		free(src);
		git_libgit2_shutdown();
		return ss_error_code(SS_ENOMEM, "out of memory opening '%s'", repo);
	}
	src->with_diff = opts->with_diff;
	src->max_lines = opts->max_lines;
	src->stats = stats;
	if ((err = open_repo(&src->repo, repo)) < 0)
		goto free_source;
	src->store = pack_store_new(src->repo, GIT_BASE_CACHE);
	pack_store_attach(src->store, src->repo);
	if ((err = load_shallow(src)) < 0 || (err = walk_history(src, opts)) < 0 ||
	    (err = start_workers(src, worker_count(src))) < 0)
		goto free_source;
	ops->next = git_next;
	ops->free = git_source_free;
	*out = src;
	return 0;
free_source:
	git_source_free(src);
	return err;
}

/* ------------------------------------------------------------------ */
/* Branches. */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ss_git_branches(char ***out, size_t *n, const char *repo, const char *glob)
{
	git_repository *r = NULL;
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;
	char **names = NULL, **grown;
	size_t count = 0, cap = 0;
	const char *name;
	int err;

	*out = NULL;
	*n = 0;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", git_msg());
	if ((err = open_repo(&r, repo)) < 0)
		goto free_repo;
	if (git_branch_iterator_new(&it, r, GIT_BRANCH_ALL) < 0) {
		err = ss_error_set("cannot list branches of '%s': %s", repo, git_msg());
		goto free_repo;
	}
	while (!(err = git_branch_next(&ref, &type, it))) {
		/* origin/HEAD is an alias, not a branch */
		if (git_reference_type(ref) != GIT_REFERENCE_DIRECT ||
		    git_branch_name(&name, ref) < 0 ||
		    (glob && fnmatch(glob, name, 0) != 0)) {
			git_reference_free(ref);
			continue;
		}
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				git_reference_free(ref);
				err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'",
						    repo);
				goto free_repo;
			}
			names = grown;
		}
		names[count] = strdup(name);
		git_reference_free(ref);
		if (!names[count]) {
			err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'", repo);
			goto free_repo;
		}
		count++;
	}
	if (err != GIT_ITEROVER) {
		err = ss_error_set("cannot list branches of '%s': %s", repo, git_msg());
		goto free_repo;
	}
	err = 0;
	if (count)
		qsort(names, count, sizeof(*names), cmp_names);
	*out = names;
	*n = count;
	names = NULL;
	count = 0;
free_repo:
	ss_git_free_names(names, count);
	git_branch_iterator_free(it);
	git_repository_free(r);
	git_libgit2_shutdown();
	return err;
}

void ss_git_free_names(char **names, size_t n)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
