/*
 * commit_graph.c - git's commit-graph file read for ancestry walks
 * (commit_graph.h).  By hand because libgit2 1.5 keeps its reader
 * internal (no public API reads the file) and its revwalk does not use
 * it; the format is a header, a chunk table and fixed-size records.
 */
#include "source/commit_graph.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/strbuf.h"

#define CHUNK_OIDF 0x4f494446u  /* "OIDF": fanout, 256 x 4 bytes */
#define CHUNK_OIDL 0x4f49444cu  /* "OIDL": ids, N x 20 bytes */
#define CHUNK_CDAT 0x43444154u  /* "CDAT": tree, parent 1, parent 2, date: N x 36 */
#define CHUNK_EDGE 0x45444745u  /* "EDGE": octopus parents, 4 bytes each */
#define PARENT_NONE 0x70000000u
#define PARENT_EDGE 0x80000000u  /* in parent 2: an index into EDGE */
#define EDGE_LAST 0x80000000u

struct ss_commit_graph {
	const unsigned char *map;
	size_t size;
	uint32_t n;
	const unsigned char *fanout, *ids, *data, *edges;
	size_t nedges;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

void ss_commit_graph_free(ss_commit_graph *g)
{
	if (!g)
		return;
	if (g->map)
		munmap((void *)g->map, g->size);
	free(g);
}

/* Whether the mapped file is a graph this reader takes; its chunks set. */
static int parse(ss_commit_graph *g)
{
	const unsigned char *p = g->map;
	uint64_t off_oidf = 0, off_oidl = 0, off_cdat = 0, off_edge = 0, end_edge = 0;
	unsigned nchunks;

	if (g->size < 8 + 12 || memcmp(p, "CGPH", 4) || p[4] != 1 || p[5] != 1 || p[7] != 0)
		return 0;
	nchunks = p[6];
	if (g->size < 8 + 12 * ((size_t)nchunks + 1))
		return 0;
	for (unsigned i = 0; i < nchunks; i++) {
		const unsigned char *e = p + 8 + 12 * (size_t)i;
		uint32_t id = be32(e);
		uint64_t off = be64(e + 4), next = be64(e + 16);

		if (off > g->size || next > g->size || next < off)
			return 0;
		if (id == CHUNK_OIDF)
			off_oidf = off;
		else if (id == CHUNK_OIDL)
			off_oidl = off;
		else if (id == CHUNK_CDAT)
			off_cdat = off;
		else if (id == CHUNK_EDGE) {
			off_edge = off;
			end_edge = next;
		}
	}
	if (!off_oidf || !off_oidl || !off_cdat || off_oidf + 256 * 4 > g->size)
		return 0;
	g->fanout = p + off_oidf;
	g->n = be32(g->fanout + 255 * 4);
	for (int i = 1; i < 256; i++)
		if (be32(g->fanout + 4 * i) < be32(g->fanout + 4 * (i - 1)))
			return 0;
	if (off_oidl + (uint64_t)g->n * 20 > g->size || off_cdat + (uint64_t)g->n * 36 > g->size)
		return 0;
	g->ids = p + off_oidl;
	g->data = p + off_cdat;
	if (off_edge) {
		g->edges = p + off_edge;
		g->nedges = (size_t)((end_edge - off_edge) / 4);
	}
	return 1;
}

int ss_commit_graph_open(ss_commit_graph **out, git_repository *repo)
{
	ss_strbuf path = SS_STRBUF_INIT;
	ss_commit_graph *g;
	struct stat st;
	void *map;
	int fd;

	*out = NULL;
	if (ss_strbuf_addf(&path, "%sobjects/info/commit-graph", git_repository_commondir(repo)))
		return ss_error_code(SS_ENOMEM, "out of memory");
	fd = open(path.buf, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ss_strbuf_release(&path);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 20 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return 0;
	}
	close(fd);
	if (!(g = calloc(1, sizeof(*g)))) {
		munmap(map, (size_t)st.st_size);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	g->map = map;
	g->size = (size_t)st.st_size;
	if (!parse(g)) {
		ss_commit_graph_free(g);
		return 0;
	}
	*out = g;
	return 0;
}

uint32_t ss_commit_graph_count(const ss_commit_graph *g)
{
	return g->n;
}

int ss_commit_graph_find(const ss_commit_graph *g, const git_oid *oid, uint32_t *pos)
{
	unsigned b = oid->id[0];
	uint32_t lo = b ? be32(g->fanout + 4 * (b - 1)) : 0, hi = be32(g->fanout + 4 * b);

	if (hi > g->n)
		return 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = memcmp(g->ids + (size_t)mid * 20, oid->id, 20);

		if (!c) {
			*pos = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

void ss_commit_graph_id(git_oid *out, const ss_commit_graph *g, uint32_t pos)
{
	git_oid_fromraw(out, g->ids + (size_t)pos * 20);
}

int ss_commit_graph_parents(const ss_commit_graph *g, uint32_t pos, uint32_t *par, size_t max)
{
	const unsigned char *d = g->data + (size_t)pos * 36 + 20;
	uint32_t p1 = be32(d), p2 = be32(d + 4);
	int n = 0;

	if (p1 == PARENT_NONE)
		return 0;
	if (p1 >= g->n)
		return -1;
	if (max > 0)
		par[0] = p1;
	n = 1;
	if (p2 == PARENT_NONE)
		return n;
	if (!(p2 & PARENT_EDGE)) {
		if (p2 >= g->n)
			return -1;
		if (max > 1)
			par[1] = p2;
		return 2;
	}
	for (size_t e = p2 & ~PARENT_EDGE;; e++) {
		uint32_t v;

		if (e >= g->nedges)
			return -1;
		v = be32(g->edges + 4 * e);
		if ((v & ~EDGE_LAST) >= g->n)
			return -1;
		if ((size_t)n < max)
			par[n] = v & ~EDGE_LAST;
		n++;
		if (v & EDGE_LAST)
			return n;
	}
}
