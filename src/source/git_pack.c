/*
 * git_pack.c - the object store: a read-only odb backend over a
 * repository's packs and loose objects, in front of libgit2's own.
 *
 * Reading oldest first (as the git source does), every blob sits deep in
 * a delta chain whose bases (newer versions) libgit2 1.5's 16 MiB
 * flush-all base cache has long dropped.  This store maps the version 2
 * pack indexes and packs itself and keeps an LRU of resolved objects like
 * git's delta base cache, so that each chain link is resolved about once
 * (bench/git-ingest.sh).  Packs it cannot read fall through to libgit2.
 *
 * Loose objects are read here too (git_loose.c), although libgit2 reads
 * them: libgit2 1.5's loose backend loops forever inside inflate on a
 * truncated loose object, where git says "corrupt loose object".
 * Alternates are not read here; their objects fall through to libgit2.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include "source/git_impl.h"
#include "util/grow.h"

enum {
	GIT_BACKEND_PRIORITY = 100  /* above libgit2's pack (2) and loose (1) */
};

/*
 * Pages of the mapped packs and indexes that stay in this process's
 * resident set: when the process's file-backed resident memory has grown
 * by s->resident bytes (half the cache: 32 MiB for the source's 64) since
 * the last trim, the mappings are dropped (madvise), and later reads
 * fault the pages back in from the page cache.  Otherwise reading a whole
 * history makes every page of the packs resident: 86 MB for DPDK, about
 * 4 GB for Linux.  The growth is read from /proc/self/statm every
 * GIT_TRIM_CHECK reads or s->resident bytes inflated: counting bytes
 * alone missed that a page fault on a file maps Linux's
 * fault_around_bytes (64 KiB) around it, so that reading the 320,000
 * small commits of bench/index.sh's generated repository, scattered over
 * its 517 MB pack, mapped all of it; counting 64 KiB a read instead
 * trimmed so often that the faults cost 30 s of system time there.
 * Without /proc, every s->resident bytes inflated trim.
 */
#define GIT_TRIM_CHECK 256

/* The cache is split in shards with a lock and an LRU each, so that
 * workers seldom wait for each other; a shard holds 1/GIT_SHARDS of it.
 *
 * Roots (whole objects of the pack that deltas were applied to: mostly
 * the newest version of a file) have an LRU of their own and are evicted
 * last while they fill at most half of a shard.  Reading oldest first
 * walks each chain from its root down; in one LRU the roots, used once
 * per walk, were the first to go, and every later walk of the chain
 * inflated the whole file again: DPDK v16.11..v22.03 inflated 1.66 GB
 * of whole blobs for 44,000 roots, 456 MB for 20,000 with this. */
#define GIT_SHARDS 8
#define GIT_SHARD_BUCKETS 8192

/* ------------------------------------------------------------------ */
/* Packs: mapped indexes and packs, and an LRU of resolved objects. */

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

/*
 * A resolved object, keyed by pack and entry offset: in the LRU, or only
 * held by the readers that built or found it.  refs counts the cache
 * (while in it) and each reader; it changes under the lock of the
 * object's shard, and the last reference frees it.  Readers share it
 * without copying: a cached base is applied in place, and the object
 * libgit2 gets is the one copy made.
 */
struct base {
	struct lru_node node;       /* first: a node is its base */
	struct base *hnext;
	const struct pack *pack;
	uint64_t off;
	git_object_t type;
	size_t len;
	unsigned refs;
	unsigned handed;            /* times handed to libgit2 whole (backend_read) */
	int cached;
	int root;                   /* a whole object of the pack that is a delta base */
	unsigned char data[];       /* len bytes and a NUL */
};

struct shard {
	pthread_mutex_t lock;
	struct base *buckets[GIT_SHARD_BUCKETS];
	struct lru_node lru;        /* lru.next is the most recently used */
	struct lru_node roots;      /* the same for root objects */
	size_t used_roots;
	size_t used;
};

struct ss_git_store {
	char *objdir;               /* the objects directory, ending in '/' */
	struct pack *packs;         /* read-only once opened */
	size_t npacks, capacks;
	size_t limit;               /* bytes per shard */
	atomic_size_t touched;      /* pack bytes read since the last check */
	atomic_size_t reads;        /* objects read */
	pthread_mutex_t trim_lock;  /* one thread checks and trims at a time */
	int trim_lock_ok;
	size_t file_base;           /* file-backed RSS after the last trim; under trim_lock */
	size_t resident;            /* ... and how many trigger one */
	struct shard shards[GIT_SHARDS];
	size_t nshards;             /* initialised, for ss_git_store_free() */
};

/* What libgit2 sees: one per git_repository, all sharing one store. */
struct pack_backend {
	git_odb_backend parent;
	struct ss_git_store *store;
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

/* The process's file-backed resident bytes (statm's "shared"); 0 when unknown. */
static size_t file_resident(void)
{
	unsigned long size, res, shared;
	char buf[128];
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &size, &res, &shared) != 3)
		return 0;
	return (size_t)shared * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * Count a read of read bytes of pack data; now and then drop every mapped
 * page (see "Pages of the mapped packs" above).  The mappings are
 * private, read-only and never written, so another thread reading one
 * meanwhile faults the same bytes back in from the file: dropping is
 * always safe, only a little slower for the pages read again.
 */
static void store_trim(struct ss_git_store *s, size_t read)
{
	size_t i, now;

	if ((atomic_fetch_add_explicit(&s->reads, 1, memory_order_relaxed) + 1) % GIT_TRIM_CHECK &&
	    atomic_fetch_add_explicit(&s->touched, read, memory_order_relaxed) + read < s->resident)
		return;
	/* one thread checks; the others go on reading */
	if (pthread_mutex_trylock(&s->trim_lock))
		return;
	atomic_store_explicit(&s->touched, 0, memory_order_relaxed);
	now = file_resident();
	if (!now || now > s->file_base + s->resident) {
		for (i = 0; i < s->npacks; i++) {
			madvise(s->packs[i].data, s->packs[i].data_len, MADV_DONTNEED);
			madvise(s->packs[i].idx, s->packs[i].idx_len, MADV_DONTNEED);
		}
		s->file_base = file_resident();
	}
	pthread_mutex_unlock(&s->trim_lock);
}

/* Inflate the size bytes deflated at pos into out (size + 1 bytes, then
 * NUL-terminated); -1 when corrupt. */
static int inflate_at(struct ss_git_store *s, const struct pack *p, uint64_t pos, size_t size,
		      unsigned char *out)
{
	z_stream z;
	int rc;

	if (size >= UINT32_MAX)
		return -1;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -1;
	z.next_in = p->data + pos;
	z.avail_in = (uInt)(p->data_len - pos > UINT32_MAX ? UINT32_MAX : p->data_len - pos);
	z.next_out = out;
	z.avail_out = (uInt)size + 1;  /* room to notice a too long stream */
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	store_trim(s, z.total_in);
	if (rc != Z_STREAM_END || z.total_out != size)
		return -1;
	out[size] = '\0';
	return 0;
}

/* A new object of len bytes (and a NUL) for the entry at off, held once. */
static struct base *base_new(const struct pack *p, uint64_t off, git_object_t type, size_t len)
{
	struct base *e;

	if (len >= SIZE_MAX - sizeof(*e) - 1 || !(e = malloc(sizeof(*e) + len + 1)))
		return NULL;
	memset(e, 0, sizeof(*e));
	e->pack = p;
	e->off = off;
	e->type = type;
	e->len = len;
	e->refs = 1;
	return e;
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

/* Apply a git delta (copy and insert instructions) to base: the object
 * at off of p, of base's type. */
static struct base *delta_apply(const struct base *base, const struct pack *p, uint64_t at,
				const unsigned char *delta, size_t dlen)
{
	const unsigned char *d = delta, *end = delta + dlen;
	const size_t blen = base->len;
	unsigned char *out, *o;
	struct base *e;
	size_t src, dst;

	if (delta_varint(&d, end, &src) || src != blen || delta_varint(&d, end, &dst) ||
	    !(e = base_new(p, at, base->type, dst)))
		return NULL;
	o = out = e->data;
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
			memcpy(o, base->data + off, n);
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
	return e;
free_out:
	free(e);
	return NULL;
}

static uint64_t base_hash(const struct pack *p, uint64_t off)
{
	return (off ^ (uint64_t)(uintptr_t)p) * 0x9e3779b97f4a7c15ull;
}

static struct shard *base_shard(struct ss_git_store *s, const struct pack *p, uint64_t off)
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
	struct lru_node *l = e->root ? &sh->roots : &sh->lru;

	e->node.next = l->next;
	e->node.prev = l;
	l->next->prev = &e->node;
	l->next = &e->node;
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

/* Drop one reference to e; the last frees it.  With e's shard's lock held. */
static void base_unref_locked(struct base *e)
{
	if (!--e->refs)
		free(e);
}

/* Drop a reader's reference to e (NULL: nothing). */
static void base_unref(struct ss_git_store *s, struct base *e)
{
	struct shard *sh;

	if (!e)
		return;
	sh = base_shard(s, e->pack, e->off);
	pthread_mutex_lock(&sh->lock);
	base_unref_locked(e);
	pthread_mutex_unlock(&sh->lock);
}

static void cache_drop(struct shard *sh, struct base *e);

/*
 * Drop the reference backend_read() took on e, after handing libgit2 its
 * copy.  A blob handed over for the second time has had its last use:
 * the diff of the commit that made it read it as the new side, this
 * one as the old side, and the older versions it is a delta base of were
 * read before (reading oldest first).  It leaves the cache at once, so
 * that the newer versions, which the coming commits need, stay longer:
 * in an LRU it would push them out before it ages out itself.  Should it
 * be needed again (a revert, the same content at two paths), it is built
 * again from its chain.  DPDK v16.11..v22.03, one reader: 15.5 GB built
 * by deltas with this, 16.8 GB without.
 */
static void base_done(struct ss_git_store *s, struct base *e)
{
	struct shard *sh = base_shard(s, e->pack, e->off);

	pthread_mutex_lock(&sh->lock);
	if (e->type == GIT_OBJECT_BLOB && ++e->handed >= 2 && e->cached)
		cache_drop(sh, e);
	base_unref_locked(e);
	pthread_mutex_unlock(&sh->lock);
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
	if (e->root)
		sh->used_roots -= sizeof(*e) + e->len;
	e->cached = 0;
	base_unref_locked(e);
}

/* The cached object at off, with a reference for the caller, or NULL. */
static struct base *cache_get(struct ss_git_store *s, const struct pack *p, uint64_t off)
{
	struct shard *sh = base_shard(s, p, off);
	struct base *e;

	pthread_mutex_lock(&sh->lock);
	if ((e = cache_find(sh, p, off)))
		e->refs++;
	pthread_mutex_unlock(&sh->lock);
	return e;
}

/* Remember e (the cache takes a reference of its own); failing to is
 * not an error.  The caller's reference stays the caller's. */
static void cache_put(struct ss_git_store *s, struct base *e)
{
	struct shard *sh = base_shard(s, e->pack, e->off);
	struct base **bucket;

	if (e->len > s->limit / 2)
		return;
	pthread_mutex_lock(&sh->lock);
	if (e->cached || cache_find(sh, e->pack, e->off)) {
		/* another worker resolved it too */
		pthread_mutex_unlock(&sh->lock);
		return;
	}
	bucket = base_bucket(sh, e->pack, e->off);
	e->hnext = *bucket;
	*bucket = e;
	lru_push(sh, e);
	e->refs++;
	e->cached = 1;
	sh->used += sizeof(*e) + e->len;
	if (e->root)
		sh->used_roots += sizeof(*e) + e->len;
	/* roots go last while they fill at most half: see GIT_ROOTS */
	while (sh->used > s->limit) {
		struct lru_node *victim = sh->lru.prev;

		if (victim == &sh->lru || (sh->used_roots > s->limit / 2 && sh->roots.prev != &sh->roots))
			victim = sh->roots.prev;
		if (victim == &sh->roots || victim == &e->node)
			break;
		cache_drop(sh, (struct base *)victim);
	}
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

/*
 * Which objects of a delta chain just applied stay in the cache: the
 * object asked for (n == 0), its base (n == 1), and every
 * GIT_KEEP_EVERY-th counted from the cached or whole object the chain
 * was resolved from (from_top == 1: the first one built).  Reading oldest
 * first, the bases of a file's old version are its newer versions, which
 * the coming commits read one by one, and a chain is 30 to 50 links
 * deep: caching every link of a 200-500 KB file's chain
 * (app/test-pmd/cmdline.c, mlx5_flow_dv.c, the release notes) filled the
 * cache with versions wanted hundreds of commits later, which pushed out
 * everything else and were pushed out themselves before use, so each
 * later version was built from the root again.  Keeping every fourth, a
 * later version is at most three deltas from a cached one.  DPDK
 * v16.11..v22.03, one reader: 15.5 GB of objects built by deltas instead
 * of 20.8 GB, 572,000 deltas applied instead of 664,000 (every second,
 * third or eighth: 16.2-17.6 GB; docs/index.md, "Reading a repository").
 */
#define GIT_KEEP_EVERY 4

static int keep_link(size_t n, size_t from_top)
{
	return n <= 1 || from_top % GIT_KEEP_EVERY == 0;
}

/* Follow the delta chain of the entry at off down to a cached or whole
 * object, then apply the deltas back up, caching the objects keep_link()
 * picks on the way (the next version of a file is one of them).  The
 * object, with a reference for the caller; NULL when unreadable. */
static struct base *pack_resolve(struct ss_git_store *s, const struct pack *p, uint64_t off)
{
	struct link small[64], *chain = small, *grown;
	size_t n = 0, cap = 64, size, dcap = 0, top;
	unsigned char *delta = NULL;
	struct base *base = NULL, *next;
	uint64_t cur = off, pos;
	int t;

	for (;;) {
		if ((base = cache_get(s, p, cur)))
			break;
		if (entry_header(p, cur, &t, &size, &pos))
			goto free_chain;
		if (t >= GIT_OBJECT_COMMIT && t <= GIT_OBJECT_TAG) {
			if (!(base = base_new(p, cur, (git_object_t)t, size)))
				goto free_chain;
			if (inflate_at(s, p, pos, size, base->data))
				goto free_chain;
			base->root = n > 0;
			cache_put(s, base);
			break;
		}
		if (n == cap) {
			cap *= 2;
			if (cap > (size_t)1 << 20)
				goto free_chain;  /* a cycle in a corrupt pack */
			/* the chain starts in a stack array, so it is moved, not grown */
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
	top = n;
	while (n > 0) {
		n--;
		/* one buffer for every delta of the chain */
		if (chain[n].size + 1 > dcap) {
			free(delta);
			dcap = chain[n].size + 1 > 4096 ? chain[n].size + 1 : 4096;
			if (chain[n].size >= SIZE_MAX - 1 || !(delta = malloc(dcap)))
				goto free_chain;
		}
		if (inflate_at(s, p, chain[n].pos, chain[n].size, delta))
			goto free_chain;
		next = delta_apply(base, p, chain[n].off, delta, chain[n].size);
		base_unref(s, base);
		if (!(base = next))
			goto free_chain;
		if (keep_link(n, top - n))
			cache_put(s, base);
	}
	if (chain != small)
		free(chain);
	free(delta);
	return base;
free_chain:
	if (chain != small)
		free(chain);
	free(delta);
	base_unref(s, base);
	return NULL;
}

/*
 * Type and size of the object at off.  Whole objects: from the entry's
 * header.  A blob that is a delta is built (and cached, unless too big
 * for the cache): libgit2 asks for the size of every blob it diffs just
 * before reading it, so the read that follows finds it, instead of a
 * zlib stream set up to inflate the delta's first bytes (2.7% of reading
 * DPDK) and the chain resolved right after.  Other deltas: the size is
 * in the first bytes of the delta's data, the type is the base's.
 */
static int pack_header(struct ss_git_store *s, const struct pack *p, uint64_t off,
		       git_object_t *type, size_t *len)
{
	struct shard *sh = base_shard(s, p, off);
	unsigned char head[32];
	const unsigned char *h = head;
	uint64_t cur = off, pos, data = 0;
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
		if (depth > ((size_t)1 << 20) ||
		    delta_base(p, cur, t, pos, &cur, depth ? &pos : &data) ||
		    entry_header(p, cur, &t, &size, &pos))
			return -1;
	}
	*type = (git_object_t)t;
	if (!depth)
		return 0;
	/* size is now the chain's whole object's: a blob too big for the
	 * cache (cache_put()) would be built twice */
	if (t == GIT_OBJECT_BLOB && size <= s->limit / 2) {
		if (!(e = pack_resolve(s, p, off)))
			return -1;
		*len = e->len;
		base_unref(s, e);
		return 0;
	}
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
	return 0;
}

static int backend_read(void **out, size_t *len, git_object_t *type,
			git_odb_backend *backend, const git_oid *oid)
{
	struct ss_git_store *s = ((struct pack_backend *)backend)->store;
	struct base *e;
	uint64_t off;
	size_t i;
	void *buf;

	for (i = 0; i < s->npacks; i++) {
		if (pack_find(&s->packs[i], oid->id, &off))
			continue;
		e = pack_resolve(s, &s->packs[i], off);
		if (!e)
			return GIT_PASSTHROUGH;  /* libgit2's own reader will say why */
		/* libgit2 frees what it gets: the one copy */
		buf = git_odb_backend_data_alloc(backend, e->len + 1);
		if (buf) {
			memcpy(buf, e->data, e->len + 1);
			*len = e->len;
			*type = e->type;
		}
		base_done(s, e);
		if (!buf)
			return -1;
		*out = buf;
		return 0;
	}
	return ss_git_loose_read(out, len, type, backend, s->objdir, oid);
}

/* libgit2 asks for the size of every blob it diffs before reading it. */
static int backend_read_header(size_t *len, git_object_t *type, git_odb_backend *backend,
			       const git_oid *oid)
{
	struct ss_git_store *s = ((struct pack_backend *)backend)->store;
	uint64_t off;
	size_t i;

	for (i = 0; i < s->npacks; i++)
		if (!pack_find(&s->packs[i], oid->id, &off))
			return pack_header(s, &s->packs[i], off, type, len) ? GIT_PASSTHROUGH : 0;
	return ss_git_loose_read(NULL, len, type, backend, s->objdir, oid);
}

static int backend_exists(git_odb_backend *backend, const git_oid *oid)
{
	struct ss_git_store *s = ((struct pack_backend *)backend)->store;
	uint64_t off;
	size_t i;

	for (i = 0; i < s->npacks; i++)
		if (!pack_find(&s->packs[i], oid->id, &off))
			return 1;
	return ss_git_loose_exists(s->objdir, oid);
}

/* Loose objects only: libgit2's pack backend finds packed ones (every
 * backend is asked), see ss_git_loose_read_prefix(). */
static int backend_read_prefix(git_oid *full, void **out, size_t *len, git_object_t *type,
			       git_odb_backend *backend, const git_oid *key, size_t klen)
{
	struct ss_git_store *s = ((struct pack_backend *)backend)->store;

	return ss_git_loose_read_prefix(full, out, len, type, backend, s->objdir, key, klen);
}

static void backend_free(git_odb_backend *backend)
{
	free(backend);
}

void ss_git_store_free(struct ss_git_store *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nshards; i++) {
		while (s->shards[i].lru.next != &s->shards[i].lru)
			cache_drop(&s->shards[i], (struct base *)s->shards[i].lru.next);
		while (s->shards[i].roots.next != &s->shards[i].roots)
			cache_drop(&s->shards[i], (struct base *)s->shards[i].roots.next);
		pthread_mutex_destroy(&s->shards[i].lock);
	}
	if (s->trim_lock_ok)
		pthread_mutex_destroy(&s->trim_lock);
	for (i = 0; i < s->npacks; i++)
		pack_close(&s->packs[i]);
	free(s->packs);
	free(s->objdir);
	free(s);
}

/* Map the packs under s->objdir that this store can read. */
static void store_open_packs(struct ss_git_store *s)
{
	char dir[4096], path[4352];
	struct dirent *de;
	size_t len;
	DIR *d;
	int n = snprintf(dir, sizeof(dir), "%spack", s->objdir);

	/* no pack folder (a new repository): the store still reads loose objects */
	if (n < 0 || (size_t)n >= sizeof(dir) || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".idx"))
			continue;
		if (SS_GROW(s->packs, s->npacks + 1, s->capacks))
			break;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!pack_open(&s->packs[s->npacks], path))
			s->npacks++;
	}
	closedir(d);
}

/* The store of repo's objects directory; NULL when memory is short or
 * the directory is unknown (libgit2 then reads everything itself). */
struct ss_git_store *ss_git_store_new(git_repository *repo, size_t limit)
{
	struct ss_git_store *s = calloc(1, sizeof(*s));
	git_buf objdir = { NULL, 0, 0 };

	if (!s)
		return NULL;
	s->limit = limit / GIT_SHARDS;
	s->resident = limit / 2;
	s->file_base = file_resident();
	if (pthread_mutex_init(&s->trim_lock, NULL))
		goto free_store;
	s->trim_lock_ok = 1;
	for (; s->nshards < GIT_SHARDS; s->nshards++) {
		struct shard *sh = &s->shards[s->nshards];

		if (pthread_mutex_init(&sh->lock, NULL))
			goto free_store;
		sh->lru.next = sh->lru.prev = &sh->lru;
		sh->roots.next = sh->roots.prev = &sh->roots;
	}
	/* with a trailing '/'; the repository's own, wherever it is */
	if (git_repository_item_path(&objdir, repo, GIT_REPOSITORY_ITEM_OBJECTS) < 0 ||
	    !objdir.ptr || !objdir.size || objdir.ptr[objdir.size - 1] != '/' ||
	    !(s->objdir = strdup(objdir.ptr)))
		goto free_store;
	git_buf_dispose(&objdir);
	store_open_packs(s);
	return s;
free_store:
	git_buf_dispose(&objdir);
	ss_git_store_free(s);
	return NULL;
}

/* Put the store in front of repo's own backends; on failure repo reads as before. */
void ss_git_store_attach(struct ss_git_store *s, git_repository *repo)
{
	struct pack_backend *b;
	git_odb *odb = NULL;

	if (!s || !(b = calloc(1, sizeof(*b))))
		return;
	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = backend_read;
	b->parent.read_header = backend_read_header;
	b->parent.read_prefix = backend_read_prefix;
	b->parent.exists = backend_exists;
	b->parent.free = backend_free;
	b->store = s;
	if (git_repository_odb(&odb, repo) < 0 ||
	    git_odb_add_backend(odb, &b->parent, GIT_BACKEND_PRIORITY) < 0)
		free(b);
	git_odb_free(odb);
}
