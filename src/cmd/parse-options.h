/*
 * parse-options.h - command-line options from a table, as git's
 * parse-options does: one table per command says every option's name,
 * argument, one-line help, where its value goes and which values it takes;
 * the parser, the -h text, the short usage of a usage error, the man page
 * and the bash completion all come from it.
 *
 * A table is an array of struct cli_option ended by CLI_END().  Values
 * point at the command's own variables, so tables live in the command
 * function (automatic arrays) or, for option groups several commands
 * share, in the group's struct (cli.h), filled by its _init() and pulled
 * into a command's table with CLI_INCLUDE().
 *
 * Usage strings: a NULL-terminated array; the lines before the first ""
 * are the usage forms ("stablesel rank [options] [SOURCE...]"), the lines
 * after it the description (-h and the man page's DESCRIPTION).
 */
#ifndef SS_CMD_PARSE_OPTIONS_H
#define SS_CMD_PARSE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cli_option_type {
	CLI_OPT_END,
	CLI_OPT_GROUP,     /* a heading in the help */
	CLI_OPT_INCLUDE,   /* the options of another table (include) */
	CLI_OPT_FLAG,      /* int *value = defval */
	CLI_OPT_NEGFLAG,   /* --NAME: int *value = 1; --no-NAME: 0 */
	CLI_OPT_STRING,    /* const char **value */
	CLI_OPT_STRLIST,   /* repeatable: const char **value array, size_t *count, at most max */
	CLI_OPT_COUNT,     /* size_t *value, decimal digits in [min, max] */
	CLI_OPT_INT,       /* int *value, decimal digits in [min, max] */
	CLI_OPT_REAL,      /* double *value, finite, in [min, max] */
	CLI_OPT_DATE,      /* int64_t *value, YYYY-MM-DD as UTC midnight */
	CLI_OPT_CHOICE,    /* int *value = index of the value in choices */
	CLI_OPT_CALLBACK,  /* cb(opt, arg): arg NULL when argh is NULL (a flag) */
};

struct cli_option;

/* A callback option's action; it usage_die()s on a bad value.  arg is
 * NULL for callbacks that take no value (argh NULL). */
typedef void (*cli_option_cb)(const struct cli_option *opt, const char *arg);

struct cli_option {
	enum cli_option_type type;
	const char *long_name;   /* without "--"; NULL for short-only */
	char short_name;         /* 0: none */
	const char *argh;        /* the value's name ("N", "FILE"); NULL: no value */
	const char *help;        /* one line, lower case, no full stop */
	void *value;
	size_t *count;           /* CLI_OPT_STRLIST */
	double min, max;         /* ranges of COUNT, INT, REAL; STRLIST: max entries */
	const char *const *choices; /* CLI_OPT_CHOICE, NULL-terminated */
	cli_option_cb cb;
	intptr_t defval;         /* CLI_OPT_FLAG: the value set; CALLBACK: the callback's data */
	const struct cli_option *include; /* CLI_OPT_INCLUDE */
};

#define CLI_END() { CLI_OPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, NULL }
#define CLI_GROUP(h) { CLI_OPT_GROUP, NULL, 0, NULL, (h), NULL, NULL, 0, 0, NULL, NULL, 0, NULL }
#define CLI_INCLUDE(t) { CLI_OPT_INCLUDE, NULL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, (t) }
#define CLI_FLAG(s, l, v, h) { CLI_OPT_FLAG, (l), (s), NULL, (h), (v), NULL, 0, 0, NULL, NULL, 1, NULL }
#define CLI_SET_INT(s, l, v, val, h) \
	{ CLI_OPT_FLAG, (l), (s), NULL, (h), (v), NULL, 0, 0, NULL, NULL, (val), NULL }
#define CLI_NEGFLAG(l, v, h) { CLI_OPT_NEGFLAG, (l), 0, NULL, (h), (v), NULL, 0, 0, NULL, NULL, 1, NULL }
#define CLI_STRING(s, l, v, a, h) \
	{ CLI_OPT_STRING, (l), (s), (a), (h), (v), NULL, 0, 0, NULL, NULL, 0, NULL }
/* A string whose value may be left out when an option or nothing
 * follows: then *v = dflt. */
#define CLI_STRING_DEFAULT(l, v, a, dflt, h) \
	{ CLI_OPT_STRING, (l), 0, (a), (h), (v), NULL, 0, 0, NULL, NULL, (intptr_t)(dflt), NULL }
#define CLI_STRLIST(l, arr, n, a, h) \
	{ CLI_OPT_STRLIST, (l), 0, (a), (h), (arr), (n), 0, \
	  (double)(sizeof(arr) / sizeof((arr)[0])), NULL, NULL, 0, NULL }
#define CLI_COUNT(l, v, a, lo, hi, h) \
	{ CLI_OPT_COUNT, (l), 0, (a), (h), (v), NULL, (double)(lo), (double)(hi), NULL, NULL, 0, NULL }
#define CLI_INT(l, v, a, lo, hi, h) \
	{ CLI_OPT_INT, (l), 0, (a), (h), (v), NULL, (double)(lo), (double)(hi), NULL, NULL, 0, NULL }
#define CLI_REAL(l, v, a, lo, hi, h) \
	{ CLI_OPT_REAL, (l), 0, (a), (h), (v), NULL, (lo), (hi), NULL, NULL, 0, NULL }
#define CLI_PROB(l, v, a, h) CLI_REAL(l, v, a, 0.0, 1.0, h)
#define CLI_DATE(l, v, h) \
	{ CLI_OPT_DATE, (l), 0, "DATE", (h), (v), NULL, 0, 0, NULL, NULL, 0, NULL }
#define CLI_CHOICE(l, v, a, c, h) \
	{ CLI_OPT_CHOICE, (l), 0, (a), (h), (v), NULL, 0, 0, (c), NULL, 0, NULL }
#define CLI_CALLBACK(l, a, h, fn, data) \
	{ CLI_OPT_CALLBACK, (l), 0, (a), (h), NULL, NULL, 0, 0, NULL, (fn), (intptr_t)(data), NULL }
/* -o FILE, --output FILE: every command that writes a file names it so */
#define CLI_OUTPUT(v, h) CLI_STRING('o', "output", (v), "FILE", (h))

/* SIZE_MAX as a COUNT's max: no upper bound. */
#define CLI_NO_MAX ((double)SIZE_MAX)

/*
 * Parse argv[1..argc) (argv[0] is the command's name) against options:
 * each option's value is stored as the table says; the other arguments
 * (operands, "-" and everything after "--") are moved to argv[0..n) and n
 * is returned.  Options and operands mix in any order; a value is
 * "--name VALUE", "--name=VALUE", "-o VALUE" or "-oVALUE".  -h and --help
 * print the help to stdout and exit 0; an unknown option, a missing or bad
 * value usage_die() (exit 129) naming the option.  The table and usage
 * stay the current ones for usage_die() until the next call.
 *
 * What the call does instead of parsing is set by cli_parse_mode (main
 * sets it for "help --man CMD" and the completion script): print the
 * troff man page or the option names, then exit 0.
 */
int cli_parse_options(int argc, const char **argv, const struct cli_option *options,
		      const char *const *usage);

enum cli_parse_mode {
	CLI_PARSE_ARGS,      /* parse argv */
	CLI_PARSE_MAN,       /* print the man page (stablesel-CMD.1) */
	CLI_PARSE_LIST,      /* print the options, space-separated (no newline), for completion */
};
extern enum cli_parse_mode cli_parse_mode;
extern const char *cli_parse_summary; /* the man page's NAME line (main sets it) */

/* "--name" (or "-o" for a short-only option) for messages. */
const char *cli_option_name(const struct cli_option *opt);

/* Exit 129 after "error: MSG" and the short usage of the current table. */
__attribute__((noreturn, format(printf, 1, 2))) void usage_die(const char *fmt, ...);

/* Print the help of options (what -h prints) to f. */
void cli_options_help(FILE *f, const struct cli_option *options, const char *const *usage);

/* Print the troff man page of the command. */
void cli_options_man(FILE *f, const char *name, const char *summary,
		     const struct cli_option *options, const char *const *usage);

#endif
