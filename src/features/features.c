/*
 * features.c - extraction of message, code, people, path and trailer
 * features from one commit (see features.h and docs/features.md); their
 * mapping to a sparse vector and their names are fvec.c.
 *
 * Code constructs are recognised token by token in added and removed lines
 * of C files (.c, .h and C++ sources): a deliberately simple lexer, because
 * a diff line is a fragment that no parser would accept, and the counts
 * only need to be consistent between training and scoring.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commit/series.h"
#include "features/features.h"
#include "util/error.h"
#include "util/grow.h"

#define SS_DENSE_INFO(e, g, n, d) { n, SS_FG_##g, d },
const ss_dense_info ss_dense_features[SS_NDENSE] = { SS_DENSE_FEATURES(SS_DENSE_INFO) };
#undef SS_DENSE_INFO

/* ---- raw features ---------------------------------------------------- */

void ss_feat_raw_init(ss_feat_raw *r)
{
	memset(r, 0, sizeof(*r));
	r->words = (ss_strbuf)SS_STRBUF_INIT;
}

void ss_feat_raw_reset(ss_feat_raw *r)
{
	memset(r->dense, 0, sizeof(r->dense));
	r->nhashed = 0;
	ss_strbuf_reset(&r->words);
	r->nwords = 0;
	if (r->names)
		ss_strbuf_reset(r->names);
}

void ss_feat_raw_release(ss_feat_raw *r)
{
	free(r->hashed);
	ss_strbuf_release(&r->words);
	r->hashed = NULL;
	r->nhashed = r->hcap = 0;
}

/* The hashed name ns + s[0..len): 64-bit FNV-1a folded to 32 bits. */
static uint32_t hash_name(const char *ns, const char *s, size_t len)
{
	uint64_t h = ss_hash64(s, len, ss_hash64(ns, strlen(ns), SS_HASH64_SEED));

	/* fold the high half in so that the low bits used as index mix all */
	return (uint32_t)(h ^ (h >> 32));
}

uint32_t ss_feat_hash_name(const char *ns, const char *name)
{
	return hash_name(ns, name, strlen(name));
}

/* Append v, the hash of ns + s[0..len), with its name when names are kept. */
static int push_hash(ss_feat_raw *r, uint32_t v, const char *ns, const char *s, size_t len)
{
	if (SS_GROW(r->hashed, r->nhashed + 1, r->hcap))
		return SS_ENOMEM;
	r->hashed[r->nhashed++] = v;
	if (r->names && ss_strbuf_addf(r->names, "%08x\t%s%.*s\n", v, ns, (int)len, s))
		return SS_ENOMEM;
	return 0;
}

static int add_hash(ss_feat_raw *r, const char *ns, const char *s, size_t len)
{
	return push_hash(r, hash_name(ns, s, len), ns, s, len);
}

/* Lower-case copy of s[0..len) into buf (truncated to size - 1). */
static size_t lower_copy(char *buf, size_t size, const char *s, size_t len)
{
	size_t i;

	if (len >= size)
		len = size - 1;
	for (i = 0; i < len; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[len] = '\0';
	return len;
}

/* ---- words ----------------------------------------------------------- */

void ss_feat_words(const char *text, void (*fn)(void *ctx, const char *w, size_t len), void *ctx)
{
	const unsigned char *p = (const unsigned char *)text;

	if (!text)
		return;
	while (*p) {
		const unsigned char *start;
		int alpha = 0, hex = 1;
		char buf[33];
		size_t len, i;

		if (!(isalnum(*p) || *p == '_')) {
			p++;
			continue;
		}
		start = p;
		while (isalnum(*p) || *p == '_') {
			if (isalpha(*p) || *p == '_')
				alpha = 1;
			if (!isxdigit(*p))
				hex = 0;
			p++;
		}
		len = (size_t)(p - start);
		if (!alpha || len < 2 || len > 32 || (hex && len >= 7))
			continue;
		for (i = 0; i < len; i++)
			buf[i] = (char)tolower(start[i]);
		buf[len] = '\0';
		fn(ctx, buf, len);
	}
}

struct word_ctx {
	ss_feat_raw *raw;
	int failed;
};

static void collect_word(void *ctx, const char *w, size_t len)
{
	struct word_ctx *wc = ctx;

	if (ss_strbuf_add(&wc->raw->words, w, len + 1))
		wc->failed = 1;
	else
		wc->raw->nwords++;
}

/* ---- subject --------------------------------------------------------- */

size_t ss_feat_subsystem(char *buf, size_t size, const char *subject)
{
	const char *s = subject, *colon;
	size_t len, spaces = 0, i;

	if (!s || size < 2)
		return 0;
	if (!strncasecmp(s, "revert \"", 8))
		s += 8;
	colon = strchr(s, ':');
	if (!colon || colon == s || (colon[1] && colon[1] != ' '))
		return 0;
	len = (size_t)(colon - s);
	if (len > 64)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] == ' ')
			spaces++;
		if (s[i] == '"' || s[i] == '(' || s[i] == '[')
			return 0;
	}
	/* "perf tools:" is a prefix, "This is a sentence:" is not */
	if (spaces > 1)
		return 0;
	return lower_copy(buf, size, s, len);
}

/* ---- code constructs ------------------------------------------------- */

enum {
	K_NULL, K_IF, K_ELSE, K_RET, K_GOTO, K_ERRNO, K_LOCK, K_UNLOCK, K_FREE,
	K_BOUNDS, K_WARN, K_BARRIER, K_REF, K_N
};

/* Is word one of the '_'-separated components of ident[0..len)? */
static int has_comp(const char *ident, size_t len, const char *word)
{
	size_t wl = strlen(word), i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && ident[j] != '_')
			j++;
		if (j - i == wl && !memcmp(ident + i, word, wl))
			return 1;
		i = j + 1;
	}
	return 0;
}

static int is(const char *ident, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(ident, word, len);
}

static int starts(const char *ident, size_t len, const char *prefix)
{
	size_t pl = strlen(prefix);

	return len >= pl && !memcmp(ident, prefix, pl);
}

static int contains(const char *ident, size_t len, const char *sub)
{
	return memmem(ident, len, sub, strlen(sub)) != NULL;
}

static int is_barrier(const char *id, size_t n)
{
	static const char *const names[] = {
		"barrier", "mb", "rmb", "wmb", "dma_rmb", "dma_wmb", "READ_ONCE",
		"WRITE_ONCE", "smp_store_release", "smp_load_acquire", "smp_store_mb",
		"rte_mb", "rte_rmb", "rte_wmb", "rte_compiler_barrier",
		"__sync_synchronize", "virt_mb", "virt_rmb", "virt_wmb", NULL
	};
	size_t i;

	for (i = 0; names[i]; i++)
		if (is(id, n, names[i]))
			return 1;
	if (starts(id, n, "smp_mb") || starts(id, n, "smp_rmb") || starts(id, n, "smp_wmb") ||
	    starts(id, n, "rte_smp_") || starts(id, n, "rte_io_") || starts(id, n, "rte_cio_"))
		return 1;
	return contains(id, n, "thread_fence") || has_comp(id, n, "barrier");
}

static int is_lock(const char *id, size_t n)
{
	static const char *const downs[] = {
		"down", "down_read", "down_write", "down_interruptible", "down_killable",
		"down_trylock", "down_read_trylock", "down_write_trylock",
		"down_read_killable", "down_write_killable", NULL
	};
	size_t i;

	for (i = 0; downs[i]; i++)
		if (is(id, n, downs[i]))
			return 1;
	if (has_comp(id, n, "init") || has_comp(id, n, "assert") || has_comp(id, n, "held") ||
	    has_comp(id, n, "is") || has_comp(id, n, "key") || has_comp(id, n, "class"))
		return 0;
	return has_comp(id, n, "lock") || has_comp(id, n, "trylock");
}

static int is_unlock(const char *id, size_t n)
{
	return has_comp(id, n, "unlock") || is(id, n, "up") || is(id, n, "up_read") ||
	       is(id, n, "up_write");
}

static int is_free(const char *id, size_t n)
{
	return has_comp(id, n, "free") || has_comp(id, n, "kfree") || has_comp(id, n, "vfree") ||
	       has_comp(id, n, "kvfree") || has_comp(id, n, "put") || has_comp(id, n, "release") ||
	       is(id, n, "free");
}

static int is_ref(const char *id, size_t n)
{
	if (contains(id, n, "refcount") || contains(id, n, "refcnt") || contains(id, n, "kref") ||
	    has_comp(id, n, "ref") || has_comp(id, n, "refs") || has_comp(id, n, "hold"))
		return 1;
	return (starts(id, n, "atomic") || starts(id, n, "rte_atomic")) &&
	       (contains(id, n, "inc") || contains(id, n, "dec"));
}

static int is_warn(const char *id, size_t n)
{
	if (starts(id, n, "VM_"))
		id += 3, n -= 3;
	if ((starts(id, n, "WARN") && (n == 4 || id[4] == '_')) ||
	    (starts(id, n, "BUG") && (n == 3 || id[3] == '_')))
		return 1;
	return is(id, n, "RTE_ASSERT") || is(id, n, "RTE_VERIFY") || is(id, n, "assert") ||
	       is(id, n, "panic") || is(id, n, "rte_panic");
}

/* Bounds checks: calls of clamping and size helpers, ARRAY_SIZE, and any
 * identifier about overflow; "max" alone is usually a variable. */
static int is_bounds(const char *id, size_t n, int call)
{
	static const char *const calls[] = {
		"clamp", "clamp_t", "clamp_val", "min", "max", "min_t", "max_t", "RTE_MIN",
		"RTE_MAX", "array_index_nospec", "struct_size", "array_size", "size_add",
		"size_mul", "flex_array_size", NULL
	};
	size_t i;

	if (is(id, n, "ARRAY_SIZE") || is(id, n, "RTE_DIM"))
		return 1;
	for (i = 0; call && calls[i]; i++)
		if (is(id, n, calls[i]))
			return 1;
	return contains(id, n, "overflow") || contains(id, n, "OVERFLOW");
}

/* An identifier naming a size, a length or an index. */
static int is_sizeish(const char *id, size_t n)
{
	static const char *const subs[] = {
		"len", "size", "max", "num", "cnt", "count", "idx", "index", "limit",
		"LEN", "SIZE", "MAX", "NUM", "off", "end", NULL
	};
	size_t i;

	for (i = 0; subs[i]; i++)
		if (contains(id, n, subs[i]))
			return 1;
	return 0;
}

static int is_errno(const char *id, size_t n)
{
	size_t i;

	if (n < 3 || id[0] != 'E')
		return 0;
	for (i = 1; i < n; i++)
		if (!isupper((unsigned char)id[i]) && !isdigit((unsigned char)id[i]))
			return 0;
	return 1;
}

/*
 * Levin's line-local counts of one added or removed line into k[K_*].
 * This is a scanner of its own beside ctok.c (PatchNet's tokenizer), and
 * stays one: ctok does not give the same counts, and the stored models
 * (models/default.model, project models in the index) were trained on
 * these.  What would change on ctok: a line inside a block comment (" *
 * if NULL is returned") is scanned here as code and ctok skips it; a
 * comment ends the scan here, so code after one closed on the same line
 * is read by ctok only; here a character literal ('E') and the letters
 * of a number (0x1fUL, 1E10) read as identifiers, ctok makes them "<chr>"
 * and "<num>"; "!" counts K_NULL only when spaces (not tabs) stand
 * between it and an identifier, and ctok's tokens keep no spacing.
 */
static void scan_line(const char *s, size_t len, unsigned *k)
{
	size_t i = 0;
	int has_if = 0, has_rel = 0, has_size = 0;

	while (i < len) {
		unsigned char ch = (unsigned char)s[i];
		size_t start, n, j;
		char next = 0;

		/* comments and strings say nothing about code */
		if (ch == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*'))
			break;
		if (ch == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			i++;
			continue;
		}
		if ((ch == '<' || ch == '>') && !(i > 0 && s[i - 1] == '-') &&
		    !(i + 1 < len && s[i + 1] == ch) && !(i > 0 && s[i - 1] == ch))
			has_rel = 1;
		if (ch == '!' && !(i + 1 < len && s[i + 1] == '=')) {
			j = i + 1;
			while (j < len && s[j] == ' ')
				j++;
			if (j < len && (isalpha((unsigned char)s[j]) || s[j] == '_'))
				k[K_NULL]++;
			i++;
			continue;
		}
		if (!(isalpha(ch) || ch == '_')) {
			i++;
			continue;
		}
		start = i;
		while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
			i++;
		n = i - start;
		for (j = i; j < len; j++)
			if (s[j] != ' ' && s[j] != '\t') {
				next = s[j];
				break;
			}
		{
			const char *id = s + start;
			int call = next == '(';

			if (is(id, n, "if")) {
				k[K_IF]++;
				has_if = 1;
			} else if (is(id, n, "else")) {
				k[K_ELSE]++;
			} else if (is(id, n, "return")) {
				k[K_RET]++;
			} else if (is(id, n, "goto")) {
				k[K_GOTO]++;
			} else if (is(id, n, "while") || is(id, n, "for")) {
				has_if = 1;
			} else if (is(id, n, "NULL") || starts(id, n, "IS_ERR")) {
				k[K_NULL]++;
			} else if (is_errno(id, n)) {
				k[K_ERRNO]++;
			} else if (is_warn(id, n)) {
				k[K_WARN]++;
			} else if (call && is_barrier(id, n)) {
				k[K_BARRIER]++;
			} else if (call && is_unlock(id, n)) {
				k[K_UNLOCK]++;
			} else if (call && is_lock(id, n)) {
				k[K_LOCK]++;
			} else if (is_bounds(id, n, call)) {
				k[K_BOUNDS]++;
			} else if (call && is_ref(id, n)) {
				k[K_REF]++;
			} else if (call && is_free(id, n)) {
				k[K_FREE]++;
			} else if (has_if && !has_size && is_sizeish(id, n)) {
				/* only conditions matter, and "if" opens them */
				has_size = 1;
			}
		}
	}
	/* "if (len > max)": a comparison of a size in a condition */
	if (has_if && has_rel && has_size)
		k[K_BOUNDS]++;
}

/* ---- files ----------------------------------------------------------- */

static int ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int is_c_file(const char *p)
{
	return ends(p, ".c") || ends(p, ".h") || ends(p, ".cc") || ends(p, ".cpp") ||
	       ends(p, ".hpp") || ends(p, ".cxx");
}

static int is_doc_file(const char *p)
{
	return !strncmp(p, "Documentation/", 14) || !strncmp(p, "doc/", 4) ||
	       ends(p, ".rst") || ends(p, ".txt") || ends(p, ".md");
}

static int is_dt_file(const char *p)
{
	return ends(p, ".dts") || ends(p, ".dtsi") || strstr(p, "devicetree/bindings") ||
	       strstr(p, "dt-bindings/");
}

static int is_build_file(const char *p)
{
	const char *b = base_name(p);

	return !strncmp(b, "Kconfig", 7) || !strncmp(b, "Makefile", 8) || !strcmp(b, "Kbuild") ||
	       !strcmp(b, "meson.build") || !strcmp(b, "meson_options.txt") || ends(b, ".mk");
}

static int is_test_file(const char *p)
{
	return strstr(p, "selftests/") || !strncmp(p, "tools/testing/", 14) ||
	       !strncmp(p, "app/test", 8) || !strncmp(p, "test/", 5);
}

static int add_path(ss_feat_raw *r, const char *path)
{
	const char *p;
	int depth = 0, rc;

	if ((rc = add_hash(r, "f:", path, strlen(path))))
		return rc;
	for (p = path; *p && depth < 3; p++) {
		if (*p != '/')
			continue;
		depth++;
		if ((rc = add_hash(r, "d:", path, (size_t)(p - path))))
			return rc;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static float logc(double n)
{
	return (float)log1p(n);
}

static int extract_code(ss_feat_raw *r, const ss_commit *c, uint32_t groups)
{
	unsigned add[K_N] = { 0 }, del[K_N] = { 0 };
	size_t nhunks = 0, nfuncs = 0, fcap = 0, i, j, l;
	size_t nc = 0, nh = 0, ndoc = 0, ndt = 0, nbuild = 0, ntest = 0, nnew = 0, ndel = 0;
	uint64_t *funcs = NULL;
	int rc = 0;

	for (i = 0; i < c->nfiles; i++) {
		const ss_file *f = &c->files[i];
		const char *path = ss_file_path(f);
		int code = is_c_file(path);

		if (groups & SS_FG_PATHS) {
			if ((rc = add_path(r, path)))
				goto free_funcs;
			if (f->old_path && f->new_path && strcmp(f->old_path, f->new_path) &&
			    (rc = add_path(r, f->old_path)))
				goto free_funcs;
		}
		nc += ends(path, ".c") || ends(path, ".cc") || ends(path, ".cpp");
		nh += ends(path, ".h") || ends(path, ".hpp");
		ndoc += is_doc_file(path);
		ndt += is_dt_file(path) != 0;
		nbuild += is_build_file(path);
		ntest += is_test_file(path) != 0;
		nnew += f->status == SS_FILE_ADDED;
		ndel += f->status == SS_FILE_DELETED;
		nhunks += f->nhunks;
		for (j = 0; j < f->nhunks; j++) {
			const ss_hunk *h = &f->hunks[j];

			if (h->func && *h->func) {
				if (SS_GROW(funcs, nfuncs + 1, fcap)) {
					rc = SS_ENOMEM;
					goto free_funcs;
				}
				funcs[nfuncs++] = ss_hash64(h->func, strlen(h->func), SS_HASH64_SEED);
			}
			if (!code || !(groups & SS_FG_CONSTRUCTS))
				continue;
			for (l = 0; l < h->nlines; l++) {
				const ss_line *ln = &h->lines[l];

				if (ln->origin == '+')
					scan_line(ln->text, ln->len, add);
				else if (ln->origin == '-')
					scan_line(ln->text, ln->len, del);
			}
		}
	}
	if (groups & SS_FG_METRICS) {
		size_t distinct = 0;
		float nf = c->nfiles ? (float)c->nfiles : 1.0f;

		if (nfuncs)
			qsort(funcs, nfuncs, sizeof(*funcs), cmp_u64);
		for (i = 0; i < nfuncs; i++)
			distinct += !i || funcs[i] != funcs[i - 1];
		r->dense[SS_F_FILES] = logc((double)c->nfiles);
		r->dense[SS_F_HUNKS] = logc((double)nhunks);
		r->dense[SS_F_ADDED] = logc((double)c->added);
		r->dense[SS_F_REMOVED] = logc((double)c->removed);
		r->dense[SS_F_FUNCS] = logc((double)distinct);
		r->dense[SS_F_FILES_NEW] = logc((double)nnew);
		r->dense[SS_F_FILES_DEL] = logc((double)ndel);
		r->dense[SS_F_SHARE_C] = (float)nc / nf;
		r->dense[SS_F_SHARE_H] = (float)nh / nf;
		r->dense[SS_F_SHARE_DOC] = (float)ndoc / nf;
		r->dense[SS_F_SHARE_DT] = (float)ndt / nf;
		r->dense[SS_F_SHARE_BUILD] = (float)nbuild / nf;
		r->dense[SS_F_SHARE_TEST] = (float)ntest / nf;
	}
	if (groups & SS_FG_CONSTRUCTS) {
		static const int map[K_N][2] = {
			[K_NULL] = { SS_F_NULL_ADD, SS_F_NULL_DEL },
			[K_IF] = { SS_F_IF_ADD, SS_F_IF_DEL },
			[K_ELSE] = { SS_F_ELSE_ADD, SS_F_ELSE_DEL },
			[K_RET] = { SS_F_RET_ADD, SS_F_RET_DEL },
			[K_GOTO] = { SS_F_GOTO_ADD, SS_F_GOTO_DEL },
			[K_ERRNO] = { SS_F_ERRNO_ADD, SS_F_ERRNO_DEL },
			[K_LOCK] = { SS_F_LOCK_ADD, SS_F_LOCK_DEL },
			[K_UNLOCK] = { SS_F_UNLOCK_ADD, SS_F_UNLOCK_DEL },
			[K_FREE] = { SS_F_FREE_ADD, SS_F_FREE_DEL },
			[K_BOUNDS] = { SS_F_BOUNDS_ADD, SS_F_BOUNDS_DEL },
			[K_WARN] = { SS_F_WARN_ADD, SS_F_WARN_DEL },
			[K_BARRIER] = { SS_F_BARRIER_ADD, SS_F_BARRIER_DEL },
			[K_REF] = { SS_F_REF_ADD, SS_F_REF_DEL },
		};

		for (i = 0; i < K_N; i++) {
			r->dense[map[i][0]] = logc(add[i]);
			r->dense[map[i][1]] = logc(del[i]);
		}
		r->dense[SS_F_LOCKBAL_ADD] = logc(add[K_LOCK] > add[K_UNLOCK] ?
						  add[K_LOCK] - add[K_UNLOCK] : add[K_UNLOCK] - add[K_LOCK]);
		r->dense[SS_F_LOCKBAL_DEL] = logc(del[K_LOCK] > del[K_UNLOCK] ?
						  del[K_LOCK] - del[K_UNLOCK] : del[K_UNLOCK] - del[K_LOCK]);
	}

free_funcs:
	free(funcs);
	return rc;
}

/* ---- the message's own keys and links --------------------------------- */

/*
 * A project marks what it backports in its own way: a "BUG: <tracker
 * url>" line, "Resolves:", "Closes: #N", a link to its issue tracker.
 * No fixed list can know them, so every "Key: value" line of the message
 * after the subject (a key of a letter then letters, digits or '-', at
 * the start of a line, anywhere in the message, not only in the final
 * trailer block) gives "k:<key>" lower-cased, and every http(s) link
 * "u:<host>" and "u:<host>/<first path part>", each once per commit; the
 * project model learns which of them go with its backports.  The masked
 * stable tags are gone from the message before this (commit.h); a key or
 * link that names "stable" (Stable-dep-of:, a link to the stable list) is
 * a trace of the tag and left out.
 */
#define SS_KEYS_MAX 64  /* distinct keys and links a commit adds, at most */

/* ns + s[0..len) lower-cased, once per commit: the group's names so far
 * are r->hashed[start..]; at most SS_KEYS_MAX of them; none that names
 * stable. */
static int add_key(ss_feat_raw *r, size_t start, const char *ns, const char *s, size_t len)
{
	char buf[128];
	uint32_t v;
	size_t i;

	len = lower_copy(buf, sizeof(buf), s, len);
	if (strstr(buf, "stable") || r->nhashed - start >= SS_KEYS_MAX)
		return 0;
	v = hash_name(ns, buf, len);
	for (i = start; i < r->nhashed; i++)
		if (r->hashed[i] == v)
			return 0;
	return push_hash(r, v, ns, buf, len);
}

static int extract_keys(ss_feat_raw *r, const ss_commit *c)
{
	static const char url_end[] = "/?# \t\n<>\"')]";
	const size_t start = r->nhashed;
	const char *p = c->message, *q;
	int rc;

	if (!p)
		return 0;
	/* the subject's "net/mlx5: fix" is the subsystem group's */
	p += strcspn(p, "\n");
	while (*p) {
		p++;
		if (isalpha((unsigned char)*p)) {
			for (q = p + 1; (isalnum((unsigned char)*q) || *q == '-') && q - p < 40; q++)
				;
			if (*q == ':' && (q[1] == ' ' || q[1] == '\t') && q[2] && q[2] != '\n' &&
			    (rc = add_key(r, start, "k:", p, (size_t)(q - p))))
				return rc;
		}
		p += strcspn(p, "\n");
	}
	for (p = c->message; (p = strstr(p, "http")); p++) {
		const char *h = p + 4 + (p[4] == 's'), *e;

		if (strncmp(h, "://", 3))
			continue;
		h += 3;
		e = h + strcspn(h, ":/?# \t\n<>\"')]");  /* the host ends at a port too */
		if (e == h)
			continue;
		if ((rc = add_key(r, start, "u:", h, (size_t)(e - h))))
			return rc;
		if (*e == '/' && e[1] && !strchr(url_end, e[1]) &&
		    (rc = add_key(r, start, "u:", h, (size_t)(e + 1 + strcspn(e + 1, url_end) - h))))
			return rc;
	}
	return 0;
}

/* ---- people and trailers --------------------------------------------- */

/* The e-mail of "Name <email>" (lower-cased), else the whole value. */
static size_t person_key(char *buf, size_t size, const char *value)
{
	const char *lt = strchr(value, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt && gt > lt + 1)
		return lower_copy(buf, size, lt + 1, (size_t)(gt - lt - 1));
	return lower_copy(buf, size, value, strcspn(value, "#("));
}

static int mentions(const char *text, const char *const *needles)
{
	size_t i;

	if (!text)
		return 0;
	for (i = 0; needles[i]; i++)
		if (strcasestr(text, needles[i]))
			return 1;
	return 0;
}

static const char *const syzbot_words[] = { "syzbot", "syzkaller", NULL };
static const char *const lkp_words[] = { "lkp@intel.com", "kernel test robot", NULL };
static const char *const coverity_words[] = { "coverity", NULL };
static const char *const static_words[] = {
	"smatch", "sparse warning", "coccinelle", "coccicheck", "hulk robot", "abaci robot",
	"static checker", "static analysis", "ubsan", "kasan", "kmsan", "kcsan", "clang-tidy",
	"cppcheck", "svace", "linux verification center", "static analyzer", NULL
};

static int extract_people(ss_feat_raw *r, const ss_commit *c, uint32_t groups)
{
	size_t nsob = 0, nrev = 0, nack = 0, ntest = 0, nsugg = 0, i;
	int syz = 0, lkp = 0, cov = 0, stat = 0, rc;
	char buf[256];
	size_t len;

	if (groups & SS_FG_PEOPLE) {
		len = lower_copy(buf, sizeof(buf), *c->author.email ? c->author.email : c->author.name,
				 strlen(*c->author.email ? c->author.email : c->author.name));
		if (len && (rc = add_hash(r, "a:", buf, len)))
			return rc;
		len = lower_copy(buf, sizeof(buf), *c->committer.email ? c->committer.email : c->committer.name,
				 strlen(*c->committer.email ? c->committer.email : c->committer.name));
		if (len && (rc = add_hash(r, "c:", buf, len)))
			return rc;
		r->dense[SS_F_AUTHOR_COMMITS] = !strcasecmp(c->author.email, c->committer.email) ? 1.0f : 0.0f;
		/* the whole message: DPDK's "Coverity issue: N" line is neither
		 * body nor a well-formed trailer */
		cov = mentions(c->message, coverity_words);
		stat = mentions(c->body, static_words);
		syz = mentions(c->body, syzbot_words);
	}
	for (i = 0; i < c->ntrailers; i++) {
		const ss_trailer *t = &c->trailers[i];
		const char *k = t->key;
		int person = 1;

		if (!strcasecmp(k, "Signed-off-by"))
			nsob++;
		else if (!strcasecmp(k, "Reviewed-by"))
			nrev++;
		else if (!strcasecmp(k, "Acked-by"))
			nack++;
		else if (!strcasecmp(k, "Tested-by"))
			ntest++;
		else if (!strcasecmp(k, "Suggested-by"))
			nsugg++;
		else if (strcasecmp(k, "Reported-by"))
			person = 0;
		if (!(groups & SS_FG_PEOPLE))
			continue;
		if (person) {
			len = person_key(buf, sizeof(buf), t->value);
			if (len && (rc = add_hash(r, "p:", buf, len)))
				return rc;
		}
		syz |= mentions(t->value, syzbot_words);
		lkp |= mentions(t->value, lkp_words);
		cov |= mentions(k, coverity_words) || mentions(t->value, coverity_words);
		stat |= mentions(t->value, static_words);
	}
	if (groups & SS_FG_PEOPLE) {
		r->dense[SS_F_N_SOB] = logc((double)nsob);
		r->dense[SS_F_N_REVIEWED] = logc((double)nrev);
		r->dense[SS_F_N_ACKED] = logc((double)nack);
		r->dense[SS_F_N_TESTED] = logc((double)ntest);
		r->dense[SS_F_N_SUGGESTED] = logc((double)nsugg);
		r->dense[SS_F_BOT_SYZBOT] = (float)syz;
		r->dense[SS_F_BOT_LKP] = (float)lkp;
		r->dense[SS_F_BOT_COVERITY] = (float)cov;
		r->dense[SS_F_BOT_STATIC] = (float)stat;
	}
	if (groups & SS_FG_TRAILERS) {
		size_t nfixes = 0, pos = 0;

		while (ss_commit_trailer(c, "Fixes", &pos)) {
			nfixes++;
			pos++;
		}
		r->dense[SS_F_HAS_FIXES] = nfixes ? 1.0f : 0.0f;
		r->dense[SS_F_N_FIXES] = logc((double)nfixes);
		r->dense[SS_F_HAS_LINK] = ss_commit_trailer(c, "Link", NULL) ? 1.0f : 0.0f;
		r->dense[SS_F_HAS_CLOSES] = ss_commit_trailer(c, "Closes", NULL) ||
					    ss_commit_trailer(c, "Bugzilla ID", NULL) ? 1.0f : 0.0f;
		r->dense[SS_F_HAS_REPORTED] = ss_commit_trailer(c, "Reported-by", NULL) ? 1.0f : 0.0f;
		r->dense[SS_F_HAS_STABLE] = ss_commit_has_stable_tag(c) ? 1.0f : 0.0f;
	}
	return 0;
}

/* ---- effects ---------------------------------------------------------- */

/*
 * What the message says the bug did, each effect a list of phrases matched
 * without regard to case at the start of a word (a phrase also matches
 * longer words: "crash" matches "crashes", "leak" "leaked"), in subject and
 * body, never in trailers.  Stable wants fixes of bugs that hurt users;
 * the words alone are in the vocabulary too, but one name per effect pools
 * their rare spellings.  Order and names are hashed: append only.
 */
static const struct {
	const char *name;
	const char *const phrases[12];
} effects[] = {
	{ "crash", { "crash", NULL } },
	{ "oops", { "oops", "kernel bug", "bug:", "panic", "general protection fault",
		    "unable to handle", NULL } },
	{ "null_deref", { "null pointer", "null-pointer", "null ptr", "null-ptr", "null deref",
			  NULL } },
	{ "leak", { "leak", NULL } },
	{ "hang", { "hang", "stall", "lockup", "lock up", "livelock", "stuck", "infinite loop",
		    NULL } },
	{ "deadlock", { "deadlock", "lock inversion", "circular locking", "recursive locking",
			NULL } },
	{ "corruption", { "corrupt", "data loss", "lose data", "loses data", "lost data", NULL } },
	{ "memory_safety", { "use-after-free", "use after free", "uaf", "double free",
			     "double-free", "out-of-bounds", "out of bounds", "oob", "overflow",
			     "overrun", "underflow", NULL } },
	{ "security", { "cve-", "security", "privilege", "exploit", "info leak",
			"information leak", "disclos", NULL } },
	{ "regression", { "regress", NULL } },
	{ "splat", { "call trace:", "rip:", "warning: cpu:", "kasan:", "ubsan:", "kcsan:", NULL } },
	{ "boot", { "fail to boot", "fails to boot", "failed to boot", "boot failure",
		    "boot fail", "triple fault", "reboot", NULL } },
	{ "wrong", { "wrong", "incorrect", "broke", "breaks", NULL } },
	{ "race", { "race", "racy", "racing", NULL } },
};

/* Does phrase (lower case) start a word somewhere in text? */
static int has_phrase(const char *text, const char *phrase)
{
	size_t n = strlen(phrase);
	const char *p;

	for (p = text; p && *p; p++) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_') &&
		    isalnum((unsigned char)*phrase))
			continue;
		if (!strncasecmp(p, phrase, n))
			return 1;
	}
	return 0;
}

size_t ss_feat_effects(const ss_commit *c, void (*fn)(void *ctx, const char *name), void *ctx)
{
	size_t i, j, n = 0;

	for (i = 0; i < sizeof(effects) / sizeof(effects[0]); i++)
		for (j = 0; effects[i].phrases[j]; j++)
			if ((c->subject && has_phrase(c->subject, effects[i].phrases[j])) ||
			    (c->body && has_phrase(c->body, effects[i].phrases[j]))) {
				if (fn)
					fn(ctx, effects[i].name);
				n++;
				break;
			}
	return n;
}

struct effect_ctx {
	ss_feat_raw *r;
	int rc;
};

static void add_effect(void *ctx, const char *name)
{
	struct effect_ctx *e = ctx;

	if (!e->rc)
		e->rc = add_hash(e->r, "e:", name, strlen(name));
}

static int extract_effects(ss_feat_raw *r, const ss_commit *c)
{
	struct effect_ctx e = { r, 0 };

	if (ss_feat_effects(c, add_effect, &e) && !e.rc)
		e.rc = add_hash(r, "e:", "any", 3);
	return e.rc;
}

/* ---- timing ------------------------------------------------------------ */

/*
 * When the commit was made, from its own dates (never the mail's): "t:lag_*"
 * the days from author to committer time (a fix a maintainer applies
 * within days is more often urgent than a patch that waited a month), and
 * with releases known "t:week_N" the week of the release cycle the
 * committer time falls in (0 = the week after a release; 12 and later are
 * one name): a fix applied in the middle of a cycle goes to the current
 * release, a feature to the next.
 */
static int extract_timing(ss_feat_raw *r, const ss_commit *c, const ss_history *h)
{
	int64_t ta = c->author.time, tc = c->committer.time;
	const ss_releases *rel = h ? ss_history_releases(h) : NULL;
	size_t i, n = ss_releases_count(rel);
	const char *lag;
	char name[16];
	int rc, len;

	if (ta > 0 && tc > 0) {
		double days = (double)(tc - ta) / 86400.0;

		lag = days < 1 ? "lag_0d" : days < 7 ? "lag_1_6d" : days < 30 ? "lag_7_29d"
		    : days < 90 ? "lag_30_89d" : "lag_90d";
		if ((rc = add_hash(r, "t:", lag, strlen(lag))))
			return rc;
	}
	if (tc <= 0)
		tc = ta;
	for (i = n; i > 0; i--) {
		const ss_release *x = ss_releases_get(rel, i - 1);

		if (x->time <= tc) {
			int64_t week = (tc - x->time) / (7 * 86400);

			len = snprintf(name, sizeof(name), "week_%d", week > 12 ? 12 : (int)week);
			return add_hash(r, "t:", name, (size_t)len);
		}
	}
	return 0;
}

/* ---- series ------------------------------------------------------------ */

/*
 * The patch's number from its first Link: to a message (a URL with an '@'
 * or "%40" in it): commit/series.h reads the id, as the verdicts do, so the feature
 * and the queue never disagree on a patch's place.  Only the Link: trailer
 * (the commit's own text) is read here, never the mail transport
 * (scripts/transport.sh).
 */
int ss_feat_series_position(const ss_commit *c)
{
	const ss_trailer *t;
	size_t pos = 0;

	while ((t = ss_commit_trailer(c, "Link", &pos))) {
		const char *v = t->value;
		size_t len = strcspn(v, " \t>");
		ss_series s;

		pos++;
		if ((!memchr(v, '@', len) && !memmem(v, len, "%40", 3)) || !memmem(v, len, "://", 3))
			continue;  /* a link to a bug tracker, not a message */
		return ss_series_link(&s, v) ? (int)s.n : 0;
	}
	return -1;
}

/*
 * "l:<place>": where the patch stood in the series it was mailed in.  A
 * lone fix is mailed as patch 1; the fourth patch of a series is rarely a
 * fix for stable (on tip's training part 10% of the first patches carry
 * the stable tag, 1.2% of the fourth and later).
 */
static int extract_series(ss_feat_raw *r, const ss_commit *c)
{
	int n = ss_feat_series_position(c);
	const char *name = n < 0 ? "no_link" : n == 0 ? "unnumbered" : n == 1 ? "part_1"
			 : n == 2 ? "part_2" : n == 3 ? "part_3" : n < 10 ? "part_4_9" : "part_10";

	return add_hash(r, "l:", name, strlen(name));
}

/*
 * The pull request: a project that merges pull requests takes or leaves
 * them as a whole more often than not (systemd's stable branches: 43% of
 * the commits whose sibling was taken were taken, 3% of the others), and
 * the merge's message names what the request is for ("Merge pull request
 * #28518 from yuwata/fstab-generator-fixes", then its title).  Its words
 * are hashed apart from the commit's own ("m:fixes").
 */
struct merge_ctx {
	ss_feat_raw *raw;
	int rc;
};

static void merge_word(void *ctx, const char *w, size_t len)
{
	struct merge_ctx *mc = ctx;

	if (!mc->rc)
		mc->rc = add_hash(mc->raw, "m:", w, len);
}

static int extract_merge(ss_feat_raw *r, const ss_commit *c)
{
	struct merge_ctx mc = { r, 0 };

	if (!c->merge_message)
		return 0;
	r->dense[SS_F_IN_MERGE] = 1;
	r->dense[SS_F_MERGE_SIZE] = logc((double)c->merge_commits);
	ss_feat_words(c->merge_message, merge_word, &mc);
	return mc.rc;
}

/* ---- history --------------------------------------------------------- */

/* "r:<line>" for the releases lo..hi (indices, newest first, at most 8):
 * the release lines a bug shipped in; a fix reaches stable when one of
 * them has a stable branch (DPDK: "11"). */
static int add_release_lines(ss_feat_raw *r, const ss_releases *rel, int lo, int hi)
{
	char line[8];
	int i, n = 0, rc;

	for (i = hi; i >= lo && i >= 0 && n < 8; i--) {
		const ss_release *x = ss_releases_get(rel, (size_t)i);

		if (!x || !ss_history_release_line(line, x->tag))
			continue;
		n++;
		if ((rc = add_hash(r, "r:", line, strlen(line))))
			return rc;
	}
	return 0;
}

/*
 * Is the bug in the stable branches at all: was the code the commit
 * changes in the last release before it (ss_history_release_lines())?
 * Only with a repository at hand; all zero otherwise, so mail-only data
 * scores as before.
 */
static int extract_release_code(ss_feat_raw *r, const ss_commit *c, const ss_history *h)
{
	ss_histlines_facts f;
	int rc;

	if ((rc = ss_history_release_lines(&f, h, c)) || !f.checked)
		return rc;
	r->dense[SS_F_REL_CHECKED] = 1;
	if (f.files && !f.files_old)
		r->dense[SS_F_REL_FILES_NEW] = 1;
	if (f.lines) {
		r->dense[SS_F_REL_OLD_SHARE] = (float)((double)f.old / (double)f.lines);
		r->dense[SS_F_REL_OLD_ALL] = f.old == f.lines ? 1.0f : 0.0f;
		r->dense[SS_F_REL_OLD_NONE] = f.old == 0 ? 1.0f : 0.0f;
	}
	return 0;
}

/*
 * The bug's history (src/history through features/history.h): what the
 * Fixes:/revert targets are, how old, whether they shipped in a release
 * before the commit, whether the commit fixes a fix or reverts a released
 * commit; and the ages of the files touched.  Only the commits before c
 * and the releases before it are used.
 */
static int extract_history(ss_feat_raw *r, const ss_commit *c, const ss_history *h,
			   const char *const *paths, size_t npaths)
{
	ss_histidx_facts f;
	int64_t t = c->author.time;
	size_t i, unknown = 0;
	int rc;

	if ((rc = ss_history_facts(&f, h, c)))
		return rc;
	/* ambiguous ids are in the data, just not settled: neither */
	for (i = 0; i < f.ntargets; i++)
		unknown += !f.targets[i].found && !f.targets[i].ambiguous;
	if (f.ntargets) {
		double age = f.target_found && f.age_days > 0 ? f.age_days : 0;

		r->dense[SS_F_FIX_FOUND] = f.nfound ? 1.0f : 0.0f;
		r->dense[SS_F_FIX_UNKNOWN] = unknown ? 1.0f : 0.0f;
		if (f.target_found)
			r->dense[SS_F_FIX_AGE] = logc(age);
		if (unknown || age > 365)
			r->dense[SS_F_FIX_GT365] = 1;
		else if (age > 180)
			r->dense[SS_F_FIX_180_365] = 1;
		else if (age > 90)
			r->dense[SS_F_FIX_90_180] = 1;
		else
			r->dense[SS_F_FIX_LT90] = 1;
		/* releases only count when some release came before the commit */
		if (h && f.releases_before_fix > 0) {
			const ss_releases *rel = ss_history_releases(h);
			int nrel = unknown ? 2 : f.releases_since;

			r->dense[nrel <= 0 ? SS_F_FIX_REL0 : nrel == 1 ? SS_F_FIX_REL1 : SS_F_FIX_REL2] = 1;
			if (unknown)
				rc = add_release_lines(r, rel, 0, f.last_release_before_fix);
			else if (f.released_before_fix)
				rc = add_release_lines(r, rel, f.first_release, f.last_release);
			if (rc)
				return rc;
		}
		if (f.fix_of_fix && (rc = add_hash(r, "h:", "fix_of_fix", 10)))
			return rc;
		if (f.revert_of_released && (rc = add_hash(r, "h:", "revert_of_released", 18)))
			return rc;
	}
	if (paths ? npaths : c->nfiles) {
		double amin = 1e300, amax = 0;

		for (i = 0; i < (paths ? npaths : c->nfiles); i++) {
			const char *path = paths ? paths[i] : ss_file_path(&c->files[i]);
			int64_t pt = h ? ss_history_path_time(h, path) : -1;
			double age = pt < 0 || pt > t ? 0 : (double)(t - pt) / 86400.0;

			if (age < amin)
				amin = age;
			if (age > amax)
				amax = age;
		}
		r->dense[SS_F_FILE_AGE_MIN] = logc(amin);
		r->dense[SS_F_FILE_AGE_MAX] = logc(amax);
		r->dense[SS_F_FILES_NEW180] = amax < 180 ? 1.0f : 0.0f;
		r->dense[SS_F_FILES_NEW365] = amax < 365 ? 1.0f : 0.0f;
	}
	return 0;
}

/*
 * The groups of opts; with marks (the split of ss_feat_extract_own()),
 * all but the history and timing groups, which depend on the commits and
 * releases before c, and where their hashes go: marks[0] hashes come
 * before the history group's, marks[1] before the timing group's.
 */
static int extract(ss_feat_raw *out, size_t marks[2], const ss_commit *c,
		   const ss_history *hist, const ss_feat_options *opts)
{
	uint32_t groups = opts->groups;
	int rc;

	ss_feat_raw_reset(out);
	if (groups & SS_FG_WORDS) {
		struct word_ctx wc = { out, 0 };
		size_t lines = 0;
		const char *p;

		ss_feat_words(c->subject, collect_word, &wc);
		ss_feat_words(c->body, collect_word, &wc);
		if (wc.failed)
			return SS_ENOMEM;
		for (p = c->body; p && *p; p++)
			lines += *p == '\n';
		if (c->body && *c->body && p[-1] != '\n')
			lines++;
		out->dense[SS_F_MSG_LINES] = logc((double)lines);
		out->dense[SS_F_REVERT] = c->subject && !strncasecmp(c->subject, "revert", 6) ? 1.0f : 0.0f;
	}
	if (groups & SS_FG_SUBSYSTEM) {
		char buf[80];
		size_t len = ss_feat_subsystem(buf, sizeof(buf), c->subject), i;

		/* "net/mlx5/hws" also counts as "net/mlx5" and "net" */
		for (i = 0; i < len; i++)
			if (buf[i] == '/' && (rc = add_hash(out, "s:", buf, i)))
				return rc;
		if (len && (rc = add_hash(out, "s:", buf, len)))
			return rc;
	}
	if ((rc = extract_code(out, c, groups)))
		return rc;
	if (marks)
		marks[0] = out->nhashed;
	else if ((groups & SS_FG_HISTORY) && (rc = extract_history(out, c, hist, NULL, 0)))
		return rc;
	if ((groups & SS_FG_EFFECTS) && (rc = extract_effects(out, c)))
		return rc;
	if (marks)
		marks[1] = out->nhashed;
	else if ((groups & SS_FG_TIMING) && (rc = extract_timing(out, c, hist)))
		return rc;
	if ((groups & SS_FG_RELCODE) && (rc = extract_release_code(out, c, hist)))
		return rc;
	if ((groups & SS_FG_MERGE) && (rc = extract_merge(out, c)))
		return rc;
	if ((groups & SS_FG_KEYS) && (rc = extract_keys(out, c)))
		return rc;
	if ((groups & SS_FG_SERIES) && (rc = extract_series(out, c)))
		return rc;
	return extract_people(out, c, groups);
}

int ss_feat_extract(ss_feat_raw *out, const ss_commit *c, const ss_history *hist,
		    const ss_feat_options *opts)
{
	return extract(out, NULL, c, hist, opts);
}

int ss_feat_extract_own(ss_feat_raw *out, size_t marks[2], const ss_commit *c,
			const ss_history *hist, const ss_feat_options *opts)
{
	return extract(out, marks, c, hist, opts);
}

int ss_feat_extract_past(ss_feat_raw *out, const size_t marks[2], const ss_commit *c,
			 const char *const *paths, size_t npaths, const ss_history *hist,
			 const ss_feat_options *opts, ss_feat_raw *tmp)
{
	static const char *const none[1] = { NULL };
	size_t nh, nt, i, m0 = marks[0], m1 = marks[1], tail;
	int rc;

	if (m0 > m1 || m1 > out->nhashed)
		return ss_error_code(SS_EINVALID, "stored features are damaged: bad marks");
	ss_feat_raw_reset(tmp);
	/* the paths given, never c's files (a commit read without its diff) */
	if ((opts->groups & SS_FG_HISTORY) &&
	    (rc = extract_history(tmp, c, hist, npaths ? paths : none, npaths)))
		return rc;
	nh = tmp->nhashed;
	if ((opts->groups & SS_FG_TIMING) && (rc = extract_timing(tmp, c, hist)))
		return rc;
	nt = tmp->nhashed - nh;
	/* the history group's dense values are its own: no other group sets
	 * them, so each one it set (anything but +0) is copied as it is */
	for (i = 0; i < SS_NDENSE; i++)
		if (tmp->dense[i] != 0.0f || signbit(tmp->dense[i]))
			out->dense[i] = tmp->dense[i];
	if (!nh && !nt)
		return 0;
	if (SS_GROW(out->hashed, out->nhashed + nh + nt, out->hcap))
		return SS_ENOMEM;
	/* own[0, m0) history own[m0, m1) timing own[m1, n): as ss_feat_extract() */
	tail = out->nhashed - m1;
	memmove(out->hashed + m1 + nh + nt, out->hashed + m1, tail * sizeof(*out->hashed));
	memcpy(out->hashed + m1 + nh, tmp->hashed + nh, nt * sizeof(*out->hashed));
	memmove(out->hashed + m0 + nh, out->hashed + m0, (m1 - m0) * sizeof(*out->hashed));
	memcpy(out->hashed + m0, tmp->hashed, nh * sizeof(*out->hashed));
	out->nhashed += nh + nt;
	return 0;
}
