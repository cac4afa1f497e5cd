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
 * share, in the group's struct (option_groups.h), filled by its _init()
 * and pulled into a command's table with CLI_INCLUDE().  A single option
 * several commands take is declared once (shared_options.c) and named in each
 * table with the command's variable (CLI_USE()).
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
	CLI_OPT_USE,       /* an option declared once for several commands (shared): this
			    * table's value for it (shared_options.h) */
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
	CLI_OPT_ALIAS,     /* an old spelling of another option of the table (target):
			    * parsed as it, said in the help as "old spelling of
			    * --TARGET", left out of the short usage and the completion */
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
	/*
	 * Where the option is declared: CLI_OPT_USE names the shared
	 * declaration (shared_options.c), whose name, argument and help the
	 * table takes (the parser, the help and the man page see the shared
	 * entry with this table's value; shared is kept in what they see);
	 * any other option is declared where it stands, site its file and
	 * line.  Two declarations of one long name are what
	 * tests/test_shared_options.c refuses.
	 */
	const struct cli_option *shared;
	const char *site;
	/* CLI_OPT_USE of a shared option whose default is each command's:
	 * " (default: ...)" after the shared help */
	const char *dflt;
	/* CLI_OPT_ALIAS: the long name of the option it stands for, which
	 * the same command's table holds (tests/test_shared_options.c) */
	const char *target;
};

#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)
#define CLI_SITE __FILE__ ":" CLI_STR(__LINE__)

#define CLI_END() { .type = CLI_OPT_END }
#define CLI_GROUP(h) { .type = CLI_OPT_GROUP, .help = (h) }
#define CLI_INCLUDE(t) { .type = CLI_OPT_INCLUDE, .include = (t) }
#define CLI_ENTRY(ty, s, l, a, h, v, ...) \
	{ .type = (ty), .long_name = (l), .short_name = (s), .argh = (a), .help = (h), \
	  .value = (v), .site = CLI_SITE, __VA_ARGS__ }
#define CLI_FLAG(s, l, v, h) CLI_ENTRY(CLI_OPT_FLAG, (s), (l), NULL, (h), (v), .defval = 1)
#define CLI_SET_INT(s, l, v, val, h) CLI_ENTRY(CLI_OPT_FLAG, (s), (l), NULL, (h), (v), .defval = (val))
#define CLI_NEGFLAG(l, v, h) CLI_ENTRY(CLI_OPT_NEGFLAG, 0, (l), NULL, (h), (v), .defval = 1)
#define CLI_STRING(s, l, v, a, h) CLI_ENTRY(CLI_OPT_STRING, (s), (l), (a), (h), (v), .defval = 0)
/* A string whose value may be left out when an option or nothing
 * follows: then *v = dflt. */
#define CLI_STRING_DEFAULT(l, v, a, dflt, h) \
	CLI_ENTRY(CLI_OPT_STRING, 0, (l), (a), (h), (v), .defval = (intptr_t)(dflt))
#define CLI_STRLIST(l, arr, n, a, h) \
	CLI_ENTRY(CLI_OPT_STRLIST, 0, (l), (a), (h), (arr), .count = (n), \
		  .max = (double)(sizeof(arr) / sizeof((arr)[0])))
#define CLI_COUNT(l, v, a, lo, hi, h) \
	CLI_ENTRY(CLI_OPT_COUNT, 0, (l), (a), (h), (v), .min = (double)(lo), .max = (double)(hi))
#define CLI_INT(l, v, a, lo, hi, h) \
	CLI_ENTRY(CLI_OPT_INT, 0, (l), (a), (h), (v), .min = (double)(lo), .max = (double)(hi))
#define CLI_REAL(l, v, a, lo, hi, h) \
	CLI_ENTRY(CLI_OPT_REAL, 0, (l), (a), (h), (v), .min = (lo), .max = (hi))
#define CLI_PROB(l, v, a, h) CLI_REAL(l, v, a, 0.0, 1.0, h)
#define CLI_DATE(l, v, h) CLI_ENTRY(CLI_OPT_DATE, 0, (l), "DATE", (h), (v), .defval = 0)
#define CLI_CHOICE(l, v, a, c, h) CLI_ENTRY(CLI_OPT_CHOICE, 0, (l), (a), (h), (v), .choices = (c))
#define CLI_CALLBACK(l, a, h, fn, data) \
	CLI_ENTRY(CLI_OPT_CALLBACK, 0, (l), (a), (h), NULL, .cb = (fn), .defval = (intptr_t)(data))
/*
 * An old spelling kept working after an option was renamed: --l (and -s
 * when s is not 0) is parsed as --to, an option of the same table.  It
 * declares no option of its own: the name means here what --to means,
 * whatever another command's --l means (tests/test_shared_options.c).
 */
#define CLI_ALIAS(s, l, to) \
	{ .type = CLI_OPT_ALIAS, .long_name = (l), .short_name = (s), .target = (to), \
	  .site = CLI_SITE }

/*
 * A shared option (declared once in shared_options.c, named by the
 * macros of shared_options.h) in a command's table, with the command's
 * variable: CLI_USE for a value, CLI_USE_LIST for a list (its size is
 * the limit), CLI_USE_CB for a callback (data its opt->defval);
 * CLI_USE_HELP for one whose help says what this command writes (the
 * shared declaration leaves help, or a CHOICE's values, to the command);
 * CLI_USE_DEFAULT for one whose default is the command's.
 */
#define CLI_USE(decl, v) { .type = CLI_OPT_USE, .shared = (decl), .value = (v) }
#define CLI_USE_LIST(decl, arr, n) \
	{ .type = CLI_OPT_USE, .shared = (decl), .value = (arr), .count = (n), \
	  .max = (double)(sizeof(arr) / sizeof((arr)[0])) }
#define CLI_USE_CB(decl, fn, data) \
	{ .type = CLI_OPT_USE, .shared = (decl), .cb = (fn), .defval = (intptr_t)(data) }
#define CLI_USE_HELP(decl, v, h) { .type = CLI_OPT_USE, .shared = (decl), .value = (v), .help = (h) }
#define CLI_USE_CHOICE(decl, v, a, c, h) \
	{ .type = CLI_OPT_USE, .shared = (decl), .value = (v), .argh = (a), .choices = (c), \
	  .help = (h) }
#define CLI_USE_DEFAULT(decl, v, d) { .type = CLI_OPT_USE, .shared = (decl), .value = (v), .dflt = (d) }

/* SIZE_MAX as a COUNT's max: no upper bound. */
#define CLI_NO_MAX ((double)SIZE_MAX)

/*
 * What main asks of a command (src/stablesel.c passes it to the
 * command, which passes it to cli_parse_options()): parse argv, or
 * print from the table and exit 0.
 */
enum cli_parse_mode {
	CLI_PARSE_ARGS,      /* parse argv */
	CLI_PARSE_MAN,       /* print the man page (stablesel-CMD.1) */
	CLI_PARSE_LIST,      /* print the options, space-separated (no newline), for completion */
	CLI_PARSE_DECLS,     /* print each option and where it is declared, a line each
			      * ("stablesel --list-options CMD", for the tests) */
};

struct cli_context {
	enum cli_parse_mode mode;
	const char *summary; /* the man page's NAME line */
};

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
 * ctx (NULL: parse) says what the call does instead of parsing: print
 * the man page, the option names or their declarations, then exit 0.
 */
int cli_parse_options(const struct cli_context *ctx, int argc, const char **argv,
		      const struct cli_option *options, const char *const *usage);

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
