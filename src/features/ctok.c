/*
 * ctok.c - C tokenizer for diff lines and the error-check line test
 * (see ctok.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "features/ctok.h"

/* C11 keywords plus the GNU spellings the kernel uses; sorted for bsearch */
static const char *const keywords[] = {
	"_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic",
	"_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
	"__asm__", "__attribute__", "__inline__", "__typeof__", "__volatile__",
	"asm", "auto", "bool", "break", "case", "char", "const", "continue",
	"default", "do", "double", "else", "enum", "extern", "false", "float",
	"for", "goto", "if", "inline", "int", "long", "register", "restrict",
	"return", "short", "signed", "sizeof", "static", "struct", "switch",
	"true", "typedef", "typeof", "union", "unsigned", "void", "volatile",
	"while",
};

static const char *const directives[] = {
	"#define", "#elif", "#elifdef", "#elifndef", "#else", "#endif",
	"#error", "#if", "#ifdef", "#ifndef", "#include", "#include_next",
	"#line", "#pragma", "#undef", "#warning",
};

static const char *const punct3[] = { ">>=", "<<=", "..." };
static const char *const punct2[] = {
	"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##",
};
static const char punct1[] = "{}[]()<>;:,.?!~+-*/%&|^=#";

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct key {
	const char *s;
	size_t len;
};

static int cmp_word(const void *k, const void *e)
{
	const struct key *key = k;
	const char *w = *(const char *const *)e;
	int c = strncmp(key->s, w, key->len);

	if (c)
		return c;
	return w[key->len] ? -1 : 0;
}

static const char *find_word(const char *const *tab, size_t n, const char *s, size_t len)
{
	struct key k = { s, len };
	const char *const *hit = bsearch(&k, tab, n, sizeof(*tab), cmp_word);

	return hit ? *hit : NULL;
}

int ss_ctok_is(const ss_ctok *t, const char *s)
{
	return strlen(s) == t->len && memcmp(t->text, s, t->len) == 0;
}

struct out {
	ss_ctok *tok;
	size_t cap, n;
	ss_ctok prev;       /* the last token, stored or not */
	int minus_unary;    /* the last token is a unary "-" */
};

static void emit(struct out *o, enum ss_ctok_kind kind, const char *text, size_t len)
{
	ss_ctok t = { kind, text, len };

	if (o->n < o->cap)
		o->tok[o->n] = t;
	o->n++;
	o->prev = t;
	o->minus_unary = 0;
}

/* A "-" is unary unless it follows an operand. */
static int minus_is_unary(const struct out *o)
{
	const ss_ctok *p = &o->prev;

	if (!o->n)
		return 1;
	switch (p->kind) {
	case SS_CTOK_IDENT:
	case SS_CTOK_NUMBER:
	case SS_CTOK_STRING:
	case SS_CTOK_CHAR:
	case SS_CTOK_HEADER:
		return 0;
	case SS_CTOK_PUNCT:
		return !(ss_ctok_is(p, ")") || ss_ctok_is(p, "]") ||
			 ss_ctok_is(p, "++") || ss_ctok_is(p, "--"));
	default:
		return 1;
	}
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* "0", "1" or "<num>" for the pp-number s[0..len). */
static const char *number_text(const char *s, size_t len)
{
	char buf[64], *end;
	size_t n = len;
	int hex = len > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long v;

	if (n >= sizeof(buf))
		return "<num>";
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '.' || (!hex && (buf[i] == 'e' || buf[i] == 'E')) ||
		    (hex && (buf[i] == 'p' || buf[i] == 'P')))
			return "<num>";
	while (n && strchr("uUlL", buf[n - 1]))
		buf[--n] = '\0';
	if (!n)
		return "<num>";
	if (n > 2 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
		v = strtoull(buf + 2, &end, 2);
	else
		v = strtoull(buf, &end, 0);
	if (*end)
		return "<num>";
	return v == 0 ? "0" : v == 1 ? "1" : "<num>";
}

/* End of a quoted literal starting at s[i] (the quote); tolerates a
 * missing closing quote. */
static size_t skip_quoted(const char *s, size_t len, size_t i)
{
	char q = s[i++];

	while (i < len && s[i] != q && s[i] != '\n') {
		if (s[i] == '\\' && i + 1 < len)
			i++;
		i++;
	}
	return i < len && s[i] == q ? i + 1 : i;
}

/* A directive at s[i] ('#'); returns the index after it and what follows
 * an include. */
static size_t directive(struct out *o, const char *s, size_t len, size_t i)
{
	size_t j = i + 1, k;
	char name[32];
	const char *d;

	while (j < len && (s[j] == ' ' || s[j] == '\t'))
		j++;
	for (k = j; k < len && is_ident_char((unsigned char)s[k]); k++)
		;
	if (k == j) {
		emit(o, SS_CTOK_PREPROC, "#", 1);
		return j;
	}
	name[0] = '#';
	d = NULL;
	if (k - j < sizeof(name) - 1) {
		memcpy(name + 1, s + j, k - j);
		d = find_word(directives, NELEM(directives), name, k - j + 1);
	}
	if (!d) {
		/* an unknown directive (or # in a macro body): plain "#" */
		emit(o, SS_CTOK_PUNCT, "#", 1);
		return i + 1;
	}
	emit(o, SS_CTOK_PREPROC, d, strlen(d));
	if (strcmp(d, "#include") && strcmp(d, "#include_next"))
		return k;
	while (k < len && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k < len && (s[k] == '<' || s[k] == '"')) {
		char close = s[k] == '<' ? '>' : '"';
		size_t e = k + 1;

		while (e < len && s[e] != close && s[e] != '\n')
			e++;
		emit(o, SS_CTOK_HEADER, s + k + 1, e - k - 1);
		k = e < len && s[e] == close ? e + 1 : e;
	}
	return k;
}

size_t ss_ctok_line(ss_ctok *out, size_t cap, ss_ctok_state *st,
		    const char *line, size_t len)
{
	struct out o = { out, out ? cap : 0, 0, { 0, NULL, 0 }, 0 };
	size_t i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)line[i];
		size_t j;

		if (st->in_comment) {
			for (j = i; j + 1 < len && !(line[j] == '*' && line[j + 1] == '/'); j++)
				;
			if (j + 1 < len) {
				st->in_comment = 0;
				i = j + 2;
			} else {
				i = len;
			}
			continue;
		}
		if (isspace(c) || c == '\\') {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < len && line[i + 1] == '*') {
			st->in_comment = 1;
			i += 2;
			continue;
		}
		if (c == '/' && i + 1 < len && line[i + 1] == '/')
			break;
		if (c == '#' && o.n == 0) {
			i = directive(&o, line, len, i);
			continue;
		}
		if (is_ident_start(c)) {
			for (j = i; j < len && is_ident_char((unsigned char)line[j]); j++)
				;
			/* L"..", u8"..", U'.': prefixed literals */
			if (j < len && (line[j] == '"' || line[j] == '\'') && j - i <= 2 &&
			    (!strncmp(line + i, "L", j - i) || !strncmp(line + i, "u", j - i) ||
			     !strncmp(line + i, "U", j - i) || !strncmp(line + i, "u8", j - i))) {
				int str = line[j] == '"';

				i = skip_quoted(line, len, j);
				emit(&o, str ? SS_CTOK_STRING : SS_CTOK_CHAR, str ? "<str>" : "<chr>", 5);
				continue;
			}
			emit(&o, find_word(keywords, NELEM(keywords), line + i, j - i) ?
				 SS_CTOK_KEYWORD : SS_CTOK_IDENT, line + i, j - i);
			i = j;
			continue;
		}
		if (isdigit(c) || (c == '.' && i + 1 < len && isdigit((unsigned char)line[i + 1]))) {
			const char *text;

			for (j = i + 1; j < len; j++) {
				unsigned char d = (unsigned char)line[j];

				if (is_ident_char(d) || d == '.')
					continue;
				if ((d == '+' || d == '-') && strchr("eEpP", line[j - 1]))
					continue;
				break;
			}
			text = number_text(line + i, j - i);
			if (o.minus_unary && !strcmp(text, "1")) {
				/* "-1" is the error return, one token */
				if (o.n <= o.cap) {
					o.tok[o.n - 1].kind = SS_CTOK_NUMBER;
					o.tok[o.n - 1].text = "-1";
					o.tok[o.n - 1].len = 2;
				}
				o.prev.kind = SS_CTOK_NUMBER;
				o.prev.text = "-1";
				o.prev.len = 2;
				o.minus_unary = 0;
			} else {
				emit(&o, SS_CTOK_NUMBER, text, strlen(text));
			}
			i = j;
			continue;
		}
		if (c == '"' || c == '\'') {
			i = skip_quoted(line, len, i);
			emit(&o, c == '"' ? SS_CTOK_STRING : SS_CTOK_CHAR,
			     c == '"' ? "<str>" : "<chr>", 5);
			continue;
		}
		j = 0;
		for (size_t k = 0; k < NELEM(punct3) && !j; k++)
			if (len - i >= 3 && !memcmp(line + i, punct3[k], 3))
				j = 3;
		for (size_t k = 0; k < NELEM(punct2) && !j; k++)
			if (len - i >= 2 && !memcmp(line + i, punct2[k], 2))
				j = 2;
		if (!j && c && strchr(punct1, c))
			j = 1;
		if (!j) {
			i++;   /* a stray byte ('@', '`', UTF-8) is not C */
			continue;
		}
		{
			int unary = j == 1 && c == '-' && minus_is_unary(&o);

			emit(&o, SS_CTOK_PUNCT, line + i, j);
			o.minus_unary = unary;
		}
		i += j;
	}
	return o.n;
}

/* ---- error checks ------------------------------------------------------ */

#define MAXTOK 256

static const char *const error_vars[] = {
	"err", "error", "rc", "ret", "retval", "rv", "status",
};

static int is_errno_name(const ss_ctok *t)
{
	if (t->kind != SS_CTOK_IDENT || t->len < 2 || t->text[0] != 'E')
		return 0;
	for (size_t i = 1; i < t->len; i++)
		if (!isupper((unsigned char)t->text[i]) && !isdigit((unsigned char)t->text[i]))
			return 0;
	return 1;
}

/* Whether t[0..n) starting at a "return" returns an error. */
static int returns_error(const ss_ctok *t, size_t n)
{
	size_t i = 1;

	while (i < n && ss_ctok_is(&t[i], "("))
		i++;
	if (i >= n)
		return 0;
	if (ss_ctok_is(&t[i], "-1"))
		return 1;
	if (ss_ctok_is(&t[i], "-") && i + 1 < n)
		return is_errno_name(&t[i + 1]) || t[i + 1].kind == SS_CTOK_NUMBER;
	if (t[i].kind != SS_CTOK_IDENT)
		return 0;
	if (ss_ctok_is(&t[i], "NULL") || ss_ctok_is(&t[i], "ERR_PTR") ||
	    ss_ctok_is(&t[i], "PTR_ERR") || ss_ctok_is(&t[i], "ERR_CAST"))
		return 1;
	for (size_t k = 0; k < NELEM(error_vars); k++)
		if (ss_ctok_is(&t[i], error_vars[k]))
			return i + 1 < n && (ss_ctok_is(&t[i + 1], ";") || ss_ctok_is(&t[i + 1], ")"));
	return 0;
}

static int branch_bails_out(const ss_ctok *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ss_ctok_is(&t[i], "return") && returns_error(t + i, n - i))
			return 1;
		if (ss_ctok_is(&t[i], "goto") && i + 1 < n && t[i + 1].kind == SS_CTOK_IDENT)
			return 1;
	}
	return 0;
}

int ss_ctok_is_error_check(const char *line, const char *next)
{
	ss_ctok t[MAXTOK];
	ss_ctok_state st = SS_CTOK_STATE_INIT;
	size_t n = ss_ctok_line(t, MAXTOK, &st, line, strlen(line));
	size_t i = 0;
	int depth = 0;

	if (n > MAXTOK)
		n = MAXTOK;
	while (i < n && (ss_ctok_is(&t[i], "}") || ss_ctok_is(&t[i], "else")))
		i++;
	if (i + 1 >= n || !ss_ctok_is(&t[i], "if") || !ss_ctok_is(&t[i + 1], "("))
		return 0;
	for (i++; i < n; i++) {
		if (ss_ctok_is(&t[i], "("))
			depth++;
		else if (ss_ctok_is(&t[i], ")") && --depth == 0)
			break;
	}
	if (i >= n)
		return 0;   /* the condition goes on on the next line */
	i++;
	if (i < n && ss_ctok_is(&t[i], "{"))
		i++;
	if (i < n)
		return branch_bails_out(t + i, n - i);
	if (!next)
		return 0;
	st.in_comment = 0;
	n = ss_ctok_line(t, MAXTOK, &st, next, strlen(next));
	return branch_bails_out(t, n > MAXTOK ? MAXTOK : n);
}
