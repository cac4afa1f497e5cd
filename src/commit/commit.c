/*
 * commit.c - the commit model: allocation, message, trailers, masking.
 *
 * Trailers are read with libgit2's git_message_trailers(), which only
 * looks at the last paragraph of a message.  DPDK (and now and then the
 * kernel) puts "Fixes:" and "Cc: stable@" in a paragraph of their own above
 * the Signed-off-by block, so every paragraph is offered to it in turn; a
 * paragraph other than the last counts as a trailer block only when it
 * holds a well-known trailer key, so that prose such as "Note: ..." stays
 * in the body.
 *
 * Projects also write what a commit fixes in forms no trailer parser
 * reads (systemd: "Fixes 3cb618084a", "Follow-up for: <sha>." in a body
 * paragraph, "Fixes: #123" for an issue): add_prose_trailers() turns them
 * into the Fixes:/Closes: trailers every later stage reads.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "commit/commit.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

ss_commit *ss_commit_new(void)
{
	ss_commit *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->arena = ss_arena_new(16 * 1024);
	if (!c->arena) {
		free(c);
		return NULL;
	}
	c->author.name = c->author.email = "";
	c->committer.name = c->committer.email = "";
	c->subject = c->message = c->body = "";
	c->source = "";
	return c;
}

void ss_commit_free(ss_commit *c)
{
	if (!c)
		return;
	ss_arena_free(c->arena);
	free(c);
}

const char *ss_file_path(const ss_file *f)
{
	return f->new_path ? f->new_path : f->old_path;
}

static const char *const known_keys[] = {
	"signed-off-by", "fixes", "cc", "reviewed-by", "acked-by", "tested-by",
	"reported-by", "suggested-by", "link", "closes", "co-developed-by",
	"reported-and-tested-by", "bugzilla", "coverity", "requested-by",
	"message-id", "buglink", "cc-stable", "debugged-by", "originally-by",
	"addresses-coverity", "addresses-coverity-id", "follow-up-for", NULL
};

static int is_known_key(const char *key)
{
	size_t i;

	for (i = 0; known_keys[i]; i++)
		if (!strcasecmp(key, known_keys[i]))
			return 1;
	return 0;
}

/* A paragraph: [start, end) in the message, end excludes the newline. */
struct para {
	size_t start, end;
};

static int is_blank_line(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * Split msg into paragraphs separated by blank lines.  Returns the count;
 * *out is malloc'd (caller frees), NULL on ENOMEM with count 0.
 */
static size_t split_paragraphs(struct para **out, const char *msg, size_t len)
{
	struct para *p = NULL;
	size_t n = 0, cap = 0, pos = 0, start = 0;
	int in_para = 0;

	*out = NULL;
	while (pos <= len) {
		const char *nl = pos < len ? memchr(msg + pos, '\n', len - pos) : NULL;
		size_t eol = nl ? (size_t)(nl - msg) : len;
		int blank = is_blank_line(msg + pos, eol - pos);

		if (!blank && !in_para) {
			start = pos;
			in_para = 1;
		}
		if (in_para && (blank || eol == len)) {
			if (SS_GROW(p, n + 1, cap)) {
				free(p);
				return 0;
			}
			p[n].start = start;
			p[n].end = blank ? pos : eol;
			while (p[n].end > start && msg[p[n].end - 1] == '\n')
				p[n].end--;
			n++;
			in_para = 0;
		}
		if (eol == len)
			break;
		pos = eol + 1;
	}
	*out = p;
	return n;
}

/* Offer one paragraph to git_message_trailers; append what it finds. */
/* "Key: value" with a key of letters, digits and '-' */
static int is_trailer_line(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (isalnum((unsigned char)p[i]) || p[i] == '-'))
		i++;
	return i > 0 && i + 1 < n && p[i] == ':' && p[i + 1] == ' ';
}

/*
 * Rebuild sb as "x\n\n" plus the trailer-shaped lines of the paragraph
 * (with their indented continuation lines); SS_ERROR when they are fewer
 * than half of its lines.
 */
static int trailer_lines(ss_strbuf *sb, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t lines = 0, kept = 0;
	int keep = 0;

	ss_strbuf_reset(sb);
	ss_strbuf_adds(sb, "x\n\n");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n && (p[0] == ' ' || p[0] == '\t') && keep) {
			ss_strbuf_add(sb, p, n);
			ss_strbuf_addch(sb, '\n');
		} else {
			lines++;
			keep = is_trailer_line(p, n);
			if (keep) {
				kept++;
				ss_strbuf_add(sb, p, n);
				ss_strbuf_addch(sb, '\n');
			}
		}
		p = nl ? nl + 1 : end;
	}
	return kept && kept * 2 >= lines ? 0 : SS_ERROR;
}

static int read_trailers(ss_commit *c, const char *text, size_t len, int last,
			 size_t *cap, int *found)
{
	git_message_trailer_array arr = { 0 };
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i;
	int rc = 0, known = last;

	*found = 0;
	/* a dummy subject, so that the paragraph is the message's last */
	if (ss_strbuf_adds(&sb, "x\n\n") || ss_strbuf_add(&sb, text, len) ||
	    ss_strbuf_addch(&sb, '\n'))
		goto release_sb;
	if (git_message_trailers(&arr, sb.buf) < 0)
		goto release_sb;
	if (arr.count == 0) {
		/* git refuses a block with a line that is not a trailer
		 * ("Coverity issue: 1407499" above "Fixes:" and "Cc: stable@"):
		 * offer the trailer-shaped lines alone when they are most of it */
		git_message_trailer_array_free(&arr);
		if (trailer_lines(&sb, text, len) || git_message_trailers(&arr, sb.buf) < 0)
			goto release_sb;
		if (arr.count == 0)
			goto free_arr;
		known = 0; /* such a block must hold a well-known key */
	}
	for (i = 0; i < arr.count && !known; i++)
		known = is_known_key(arr.trailers[i].key);
	if (!known)
		goto free_arr;
	if (c->ntrailers + arr.count > *cap) {
		size_t ncap = (c->ntrailers + arr.count) * 2;

		c->trailers = ss_arena_grow(c->arena, c->trailers, c->ntrailers, ncap,
					    sizeof(*c->trailers));
		if (!c->trailers) {
			rc = SS_ENOMEM;
			goto free_arr;
		}
		*cap = ncap;
	}
	for (i = 0; i < arr.count; i++) {
		ss_trailer *t = &c->trailers[c->ntrailers++];

		t->key = ss_arena_strdup(c->arena, arr.trailers[i].key);
		t->value = ss_arena_strdup(c->arena, arr.trailers[i].value);
		if (!t->key || !t->value) {
			rc = SS_ENOMEM;
			goto free_arr;
		}
	}
	*found = 1;
free_arr:
	git_message_trailer_array_free(&arr);
release_sb:
	ss_strbuf_release(&sb);
	return rc;
}

/* ---- the forms projects write for Fixes: ------------------------------ */

/* A commit id written at p: 7 to 40 hex digits not followed by a letter
 * or digit, optionally as a ".../commit/<sha>" web address; 0 when there
 * is none, else its length from p with *sha and *shalen the id.  need_digit
 * refuses words made of hex letters ("Fixes defaced" in prose). */
static size_t commit_ref(const char *p, const char **sha, size_t *shalen, int need_digit)
{
	size_t n = 0, digits = 0, skip = 0;

	if (!strncasecmp(p, "commit ", 7))
		skip = 7;
	if (!strncasecmp(p, "http://", 7) || !strncasecmp(p, "https://", 8)) {
		const char *e = p + strcspn(p, " \t\n");
		const char *c = NULL, *q;

		for (q = p; q + 8 <= e; q++)
			if (!strncmp(q, "/commit/", 8))
				c = q + 8;
		if (!c)
			return 0;
		skip = (size_t)(c - p);
		need_digit = 0;
	}
	while (isxdigit((unsigned char)p[skip + n])) {
		digits += isdigit((unsigned char)p[skip + n]) != 0;
		n++;
	}
	if (n < 7 || n > 40 || isalnum((unsigned char)p[skip + n]) || (need_digit && !digits))
		return 0;
	*sha = p + skip;
	*shalen = n;
	n += skip;
	while (p[n] && !isspace((unsigned char)p[n]) && p[n] != '.' && p[n] != ',' &&
	       p[n] != ')' && p[n] != ';')
		n++;  /* the rest of a web address ("/commit/<sha>?diff=split") */
	return n;
}

/* An issue named at p: "#123" or a web address that is not a commit's. */
static int issue_ref(const char *p)
{
	const char *sha;
	size_t n;

	if (p[0] == '#' && isdigit((unsigned char)p[1]))
		return 1;
	return (!strncasecmp(p, "http://", 7) || !strncasecmp(p, "https://", 8)) &&
	       !commit_ref(p, &sha, &n, 0);
}

/* Does c hold a trailer with this key whose value starts with id? */
static int has_target(const ss_commit *c, const char *key, const char *id, size_t len)
{
	size_t i;

	for (i = 0; i < c->ntrailers; i++) {
		const char *v = c->trailers[i].value;

		if (strcasecmp(c->trailers[i].key, key))
			continue;
		if (!strncasecmp(v, "commit ", 7))
			v += 7;
		if (!strncasecmp(v, id, len) && !isalnum((unsigned char)v[len]))
			return 1;
	}
	return 0;
}

static int add_trailer(ss_commit *c, size_t *cap, const char *key, const char *value, size_t len)
{
	ss_trailer *t;

	if (c->ntrailers == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;

		c->trailers = ss_arena_grow(c->arena, c->trailers, c->ntrailers, ncap,
					    sizeof(*c->trailers));
		if (!c->trailers)
			return SS_ENOMEM;
		*cap = ncap;
	}
	t = &c->trailers[c->ntrailers];
	t->key = key;
	t->value = ss_arena_strndup(c->arena, value, len);
	if (!t->value)
		return SS_ENOMEM;
	c->ntrailers++;
	return 0;
}

/*
 * Give the trailers read from trailer blocks the meaning they are written
 * with: "Follow-up-for: <sha>" fixes <sha> (systemd's fix of a fix), and
 * "Fixes: #123" or "Fixes: <bug address>" names an issue (as Closes: does)
 * and no commit; "Fixes: <.../commit/sha>" names the sha.
 */
static int normalise_trailers(ss_commit *c)
{
	size_t i, n;
	const char *sha;

	for (i = 0; i < c->ntrailers; i++) {
		ss_trailer *t = &c->trailers[i];

		if (!strcasecmp(t->key, "Fixes") && issue_ref(t->value)) {
			t->key = "Closes";
		} else if (!strcasecmp(t->key, "Fixes") || !strcasecmp(t->key, "Follow-up-for")) {
			if (!commit_ref(t->value, &sha, &n, 0))
				continue;
			t->key = "Fixes";
			if (!strncasecmp(t->value, "http", 4) &&
			    !(t->value = ss_arena_strndup(c->arena, sha, n)))
				return SS_ENOMEM;
		}
	}
	return 0;
}

/* The commit ids of a "Follow-up for <sha>, <sha> and <sha>." line from p;
 * the first keeps the rest of the line (a quoted subject). */
static int add_followups(ss_commit *c, size_t *cap, const char *p, size_t len)
{
	const char *end = p + len, *sha;
	size_t n, shalen;
	int first = 1, rc;

	while (p < end && (n = commit_ref(p, &sha, &shalen, 0)) && p + n <= end) {
		if (!has_target(c, "Fixes", sha, shalen) &&
		    (rc = add_trailer(c, cap, "Fixes", sha,
				      first && sha + shalen < end && sha[shalen] == ' ' ?
				      (size_t)(end - sha) : shalen)))
			return rc;
		first = 0;
		p += n;
		while (p < end && (*p == ',' || *p == ' ' || *p == '.'))
			p++;
		if ((size_t)(end - p) > 4 && !strncasecmp(p, "and ", 4))
			p += 4;
	}
	return 0;
}

/*
 * The prose forms, on a line of their own anywhere after the subject (the
 * line starts with them; a trailer already read is not added twice):
 *   Fixes <sha> ...            Fixes: <sha> ... in a body paragraph
 *   Follow-up for[:] <sha>[, <sha> and <sha>][.]   Follow-up-for: <sha>
 *   Fixes[:] #123, Fixes <bug address>             -> Closes:
 */
static int add_prose_trailers(ss_commit *c, size_t *cap, const char *msg, size_t start)
{
	const char *p = msg + start, *sha;
	size_t shalen;
	int rc = 0;

	while (*p && !rc) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), k = 0;

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		if (len > 6 && !strncasecmp(p, "Fixes", 5) && (p[5] == ' ' || p[5] == ':')) {
			int colon = p[5] == ':';
			const char *v = p + 6 + colon, *end = p + len;

			while (v < end && *v == ' ')
				v++;
			if (issue_ref(v)) {
				if (!has_target(c, "Closes", v, strcspn(v, " \n")))
					rc = add_trailer(c, cap, "Closes", v, (size_t)(end - v));
			} else if (commit_ref(v, &sha, &shalen, !colon)) {
				if (!has_target(c, "Fixes", sha, shalen))
					rc = add_trailer(c, cap, "Fixes", sha, (size_t)(end - sha));
			}
		} else if (!strncasecmp(p, "Follow-up for", 13) ||
			   !strncasecmp(p, "Follow-up-for", 13)) {
			k = 13;
			if (k < len && p[k] == ':')
				k++;
			if (k < len && p[k] == ' ') {
				while (k < len && p[k] == ' ')
					k++;
				rc = add_followups(c, cap, p + k, len - k);
			}
		}
		p += (nl ? (size_t)(nl - p) + 1 : strlen(p));
	}
	return rc;
}

int ss_commit_set_message(ss_commit *c, const char *msg, size_t len)
{
	struct para *paras;
	ss_strbuf body = SS_STRBUF_INIT;
	char *subject, *m;
	size_t np, i, cap = 0;
	int rc = 0;

	/* drop trailing whitespace and leading blank lines */
	while (len && isspace((unsigned char)msg[len - 1]))
		len--;
	while (len && (msg[0] == '\n' || msg[0] == '\r')) {
		msg++;
		len--;
	}
	m = ss_arena_strndup(c->arena, msg, len);
	if (!m)
		return SS_ENOMEM;
	c->message = m;
	c->trailers = NULL;
	c->ntrailers = 0;
	np = split_paragraphs(&paras, m, len);
	if (!np) {
		c->subject = c->body = "";
		return paras || !len ? 0 : SS_ENOMEM;
	}

	/* the subject is the first paragraph, lines joined by spaces */
	subject = ss_arena_strndup(c->arena, m + paras[0].start,
				   paras[0].end - paras[0].start);
	if (!subject) {
		rc = SS_ENOMEM;
		goto free_paras;
	}
	for (i = 0; subject[i]; i++)
		if (subject[i] == '\n' || subject[i] == '\r')
			subject[i] = ' ';
	c->subject = subject;

	for (i = 1; i < np; i++) {
		int found;

		rc = read_trailers(c, m + paras[i].start, paras[i].end - paras[i].start,
				   i == np - 1, &cap, &found);
		if (rc)
			goto release_body;
		if (found)
			continue;
		if ((body.len && ss_strbuf_adds(&body, "\n\n")) ||
		    ss_strbuf_add(&body, m + paras[i].start, paras[i].end - paras[i].start)) {
			rc = SS_ENOMEM;
			goto release_body;
		}
	}
	c->body = ss_arena_strndup(c->arena, body.buf, body.len);
	if (!c->body)
		rc = SS_ENOMEM;
	if (!rc)
		rc = normalise_trailers(c);
	if (!rc)
		rc = add_prose_trailers(c, &cap, m, paras[0].end);
release_body:
	ss_strbuf_release(&body);
free_paras:
	free(paras);
	return rc;
}

/* Where "stable@" starts an address in s (case-insensitive), or NULL. */
static const char *find_stable_at(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 7 <= len; i++) {
		if (strncasecmp(s + i, "stable@", 7))
			continue;
		if (i == 0 || strchr(" \t\r\n<,;:\"'(", s[i - 1]))
			return s + i;
	}
	return NULL;
}

int ss_is_stable_address(const char *value)
{
	return value && find_stable_at(value, strlen(value)) != NULL;
}

/*
 * Any "Cc: ...stable@..." line counts, also one that is glued to a prose
 * paragraph where no trailer parser would look ("Revert\ncommit ...\nCc:
 * stable@dpdk.org" happens).
 */
int ss_commit_was_tagged(const ss_commit *c)
{
	return c->masked || ss_commit_has_stable_tag(c);
}

int ss_commit_has_stable_tag(const ss_commit *c)
{
	const char *p = c->message;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *q = p;

		while (q < p + len && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(p + len - q) > 3 && !strncasecmp(q, "cc:", 3) &&
		    find_stable_at(q, (size_t)(p + len - q)))
			return 1;
		p += len + (nl != NULL);
	}
	return 0;
}

/* Copy p to sb without its lines that hold a stable address: 1 when one
 * was dropped, 0 when none, SS_ENOMEM. */
static int drop_stable_lines(ss_strbuf *sb, const char *p)
{
	int removed = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (find_stable_at(p, len))
			removed = 1;
		else if (ss_strbuf_add(sb, p, len))
			return SS_ENOMEM;
		p += len;
	}
	return removed;
}

int ss_commit_mask_stable(ss_commit *c)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	int removed, rc = 0;

	if (c->merge_message) {
		/* the pull request's message is read by the merge features */
		if ((removed = drop_stable_lines(&sb, c->merge_message)) < 0) {
			rc = removed;
			goto release;
		}
		if (removed && !(c->merge_message = ss_arena_strndup(c->arena, sb.buf ? sb.buf : "", sb.len))) {
			rc = SS_ENOMEM;
			goto release;
		}
		c->masked |= removed;
		ss_strbuf_release(&sb);
	}
	if ((removed = drop_stable_lines(&sb, c->message)) <= 0) {
		rc = removed;
		goto release;
	}
	rc = ss_commit_set_message(c, sb.buf, sb.len);
	if (!rc)
		c->masked = 1;
release:
	ss_strbuf_release(&sb);
	return rc;
}

const ss_trailer *ss_commit_trailer(const ss_commit *c, const char *key, size_t *pos)
{
	size_t i = pos ? *pos : 0;

	for (; i < c->ntrailers; i++) {
		if (!strcasecmp(c->trailers[i].key, key)) {
			if (pos)
				*pos = i + 1;
			return &c->trailers[i];
		}
	}
	if (pos)
		*pos = c->ntrailers;
	return NULL;
}
