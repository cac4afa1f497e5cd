/*
 * ctok.h - a C tokenizer for single diff lines (PatchNet input).
 *
 * One call tokenizes one line of C without its diff marker.  Only block
 * comments cross lines, so the state that survives from one line to the
 * next is whether we are inside one; keep one ss_ctok_state per hunk (a new
 * hunk starts with SS_CTOK_STATE_INIT: hunk boundaries cut comments anyway).
 *
 * What comes out:
 *  - keywords, operators and punctuation as written ("if", "->", "<<=",
 *    "...", "##");
 *  - identifiers as written (the caller decides whether to keep or abstract
 *    them);
 *  - numbers by value: "0", "1", a unary minus followed by 1 as "-1",
 *    everything else (other values, floats) "<num>"; 0x0, 00, 1UL count by
 *    value;
 *  - string literals "<str>", character literals "<chr>" (any prefix);
 *  - a preprocessor directive at the start of a line as one token "#include",
 *    "#define", "#if", ... ("#" alone for a null directive); the header of
 *    #include <x.h> or "x.h" as one SS_CTOK_HEADER token "x.h";
 *  - comments and line-continuation backslashes: nothing.
 * Tokens point either into the line or to static strings: they live as long
 * as the line.  Never fails: malformed input (an unterminated string, a stray
 * byte) still gives tokens.
 */
#ifndef SS_CTOK_H
#define SS_CTOK_H

#include <stddef.h>

typedef struct ss_ctok_state {
	int in_comment;   /* 0; 1 inside a block comment */
} ss_ctok_state;

#define SS_CTOK_STATE_INIT { 0 }

enum ss_ctok_kind {
	SS_CTOK_KEYWORD,
	SS_CTOK_IDENT,
	SS_CTOK_NUMBER,   /* text "0", "1", "-1" or "<num>" */
	SS_CTOK_STRING,   /* text "<str>" */
	SS_CTOK_CHAR,     /* text "<chr>" */
	SS_CTOK_PUNCT,    /* operators and punctuation */
	SS_CTOK_PREPROC,  /* "#include", "#define", ... */
	SS_CTOK_HEADER    /* the file named by #include, without <> or "" */
};

typedef struct ss_ctok {
	enum ss_ctok_kind kind;
	const char *text;  /* not NUL-terminated: use len */
	size_t len;
} ss_ctok;

/*
 * Tokenize line[0..len) (len may include a trailing newline), updating st.
 * Stores at most cap tokens in out (out may be NULL when cap is 0) and
 * returns how many the line has, like snprintf: a return value above cap
 * means the rest was cut.
 */
size_t ss_ctok_line(ss_ctok *out, size_t cap, ss_ctok_state *st,
		    const char *line, size_t len);

/* Whether t is the NUL-terminated string s. */
int ss_ctok_is(const ss_ctok *t, const char *s);

/*
 * Whether line (NUL-terminated) is error-checking code: an "if" (also after
 * "}" or "else") whose branch returns an error or jumps.  The branch is the
 * rest of the line after the condition's closing parenthesis, or, when
 * nothing but "{" follows it, the next line (next may be NULL).  An error
 * return is "return" followed by -E..., -<number>, NULL, ERR_PTR(...),
 * PTR_ERR(...), ERR_CAST(...) or one of the usual error variables ret, err,
 * error, rc, retval, rv, status; a jump is "goto label".  A condition that
 * spans lines is not recognised.
 */
int ss_ctok_is_error_check(const char *line, const char *next);

#endif
