/*
 * parse-options.c - command-line options from a table (parse-options.h):
 * the parser, the help text, the short usage of a usage error, the troff
 * man page and the option list of the bash completion.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eval/eval.h"
#include "parse-options.h"
#include "util/suggest.h"

/* What every command takes: appended to each table. */
static const struct cli_option common_options[] = {
	CLI_GROUP("Common options"),
	CLI_NEGFLAG("progress", &cli_progress,
		    "show progress on stderr (default: when stderr is a terminal)"),
	CLI_FLAG('h', "help", NULL, "show this help and exit"),
	CLI_END(),
};

/*
 * The table and usage usage_die() shows (the last cli_parse_options()),
 * and its command's name: the parser's one state.  usage_die() is
 * called after the parse too, from the checks across options in the
 * commands and their groups (option_groups.c), which do not see the table;
 * git passes it (usage_with_options()), which would mean the table in
 * every check's arguments.
 */
static struct {
	const struct cli_option *options;
	const char *const *usage;
	const char *command;
} current;

/* ---- walking a table with its includes -------------------------------- */

#define MAX_DEPTH 8

struct walk {
	const struct cli_option *stack[MAX_DEPTH];
	int depth;
	int common;   /* the common options were started */
	/* a shared option as the table uses it (resolve()), valid until the
	 * next walk_next() */
	struct cli_option use;
	char help[1024];
};

/* The shared declaration of a CLI_OPT_USE entry u with u's value: what
 * the parser, the help and the man page see (parse-options.h). */
static const struct cli_option *resolve(struct walk *w, const struct cli_option *u)
{
	const struct cli_option *d = u->shared;

	w->use = *d;
	w->use.shared = d;
	w->use.value = u->value;
	if (u->count) {
		w->use.count = u->count;
		w->use.max = u->max;
	}
	if (u->cb) {
		w->use.type = CLI_OPT_CALLBACK;
		w->use.cb = u->cb;
		w->use.defval = u->defval;
	}
	if (!d->help)
		w->use.help = u->help;
	if (!d->argh)
		w->use.argh = u->argh;
	if (!d->choices)
		w->use.choices = u->choices;
	if (u->dflt) {
		snprintf(w->help, sizeof(w->help), "%s (default: %s)", d->help, u->dflt);
		w->use.help = w->help;
	}
	return &w->use;
}

static void walk_start(struct walk *w, const struct cli_option *options)
{
	w->depth = 0;
	w->common = 0;
	w->stack[0] = options;
}

/* The next option (groups included, never END or INCLUDE), NULL at the end. */
static const struct cli_option *walk_next(struct walk *w)
{
	for (;;) {
		const struct cli_option *o = w->stack[w->depth];

		if (!o || o->type == CLI_OPT_END) {
			if (w->depth > 0) {
				w->depth--;
				continue;
			}
			if (w->common)
				return NULL;
			w->common = 1;
			w->stack[0] = common_options;
			continue;
		}
		w->stack[w->depth]++;
		if (o->type == CLI_OPT_INCLUDE) {
			if (w->depth + 1 < MAX_DEPTH && o->include)
				w->stack[++w->depth] = o->include;
			continue;
		}
		if (o->type == CLI_OPT_USE)
			return resolve(w, o);
		return o;
	}
}

/*
 * The option of options whose long name is name (a shared one as the
 * table uses it), copied into *out: what an alias stands for.  0 when
 * the table has none (aliases are never targets).
 */
static int find_option(struct cli_option *out, const struct cli_option *options, const char *name)
{
	const struct cli_option *o;
	struct walk w;

	walk_start(&w, options);
	while ((o = walk_next(&w)))
		if (o->type != CLI_OPT_GROUP && o->type != CLI_OPT_ALIAS && o->long_name &&
		    !strcmp(o->long_name, name)) {
			*out = *o;
			out->help = NULL;   /* it may point into w */
			return 1;
		}
	return 0;
}

/* An alias as the help and the man page show it: its names with the
 * value of the option it stands for, "old spelling of --TARGET". */
static const struct cli_option *alias_view(struct cli_option *out, char *help, size_t size,
					   const struct cli_option *options,
					   const struct cli_option *a)
{
	struct cli_option t;
	int found = find_option(&t, options, a->target);

	*out = *a;
	out->argh = found ? t.argh : NULL;
	snprintf(help, size, "old spelling of --%s%s", a->target, found ? "" : " (no such option)");
	out->help = help;
	return out;
}

const char *cli_option_name(const struct cli_option *opt)
{
	static char buf[128];

	if (opt->long_name)
		snprintf(buf, sizeof(buf), "--%s", opt->long_name);
	else
		snprintf(buf, sizeof(buf), "-%c", opt->short_name);
	return buf;
}

/* ---- usage -------------------------------------------------------------- */

/* "[--top N]", "[--[no-]progress]", "[-o FILE]" */
static void short_form(char *buf, size_t size, const struct cli_option *o)
{
	const char *more = o->type == CLI_OPT_STRLIST ? "..." : "";

	if (o->type == CLI_OPT_NEGFLAG)
		snprintf(buf, size, "[--[no-]%s]", o->long_name);
	else if (o->long_name && o->short_name && !o->argh)
		snprintf(buf, size, "[-%c|--%s]", o->short_name, o->long_name);
	else if (!o->argh)
		snprintf(buf, size, "[%s]", cli_option_name(o));
	else if (o->short_name)
		snprintf(buf, size, "[-%c %s%s]", o->short_name, o->argh, more);
	else
		snprintf(buf, size, "[--%s %s%s]", o->long_name, o->argh, more);
}

/* Is the option spelt out in the usage form (a required one)? */
static int in_form(const char *form, const struct cli_option *o)
{
	char name[128];
	const char *p;
	size_t len;

	if (!o->long_name)
		return 0;
	len = (size_t)snprintf(name, sizeof(name), "--%s", o->long_name);
	for (p = strstr(form, name); p; p = strstr(p + 1, name))
		if (!isalnum((unsigned char)p[len]) && p[len] != '-')
			return 1;
	return 0;
}

/* Print word at col, on a new line under indent when it would pass 80. */
static size_t wrap_word(FILE *f, const char *word, size_t col, size_t indent, int *first)
{
	if (*first) {
		*first = 0;
	} else if (col > indent && col + 1 + strlen(word) > 80) {
		fprintf(f, "\n%*s", (int)indent, "");
		col = indent;
	} else {
		fputc(' ', f);
		col++;
	}
	fputs(word, f);
	return col + strlen(word);
}

/*
 * One usage form with "[options]" replaced by every option's short form,
 * wrapped under the command name.  Without "[options]", as it is.
 */
static void print_form(FILE *f, const char *prefix, const char *form,
		       const struct cli_option *options)
{
	const char *opt = strstr(form, "[options]");
	size_t indent, col;
	const struct cli_option *o;
	struct walk w;
	char buf[160];
	int first = 1;

	if (!opt) {
		fprintf(f, "%s%s\n", prefix, form);
		return;
	}
	/* indent under the first word after "stablesel CMD" */
	indent = strlen(prefix);
	{
		const char *sp = strchr(form, ' ');

		sp = sp ? strchr(sp + 1, ' ') : NULL;
		indent += sp ? (size_t)(sp - form) + 1 : 0;
	}
	fprintf(f, "%s%.*s", prefix, (int)(opt - form), form);
	col = strlen(prefix) + (size_t)(opt - form);
	first = opt > form && opt[-1] == ' ';
	walk_start(&w, options);
	while ((o = walk_next(&w))) {
		if (o->type == CLI_OPT_GROUP || o->type == CLI_OPT_ALIAS || in_form(form, o) ||
		    (o->long_name && !strcmp(o->long_name, "help")))
			continue;
		short_form(buf, sizeof(buf), o);
		col = wrap_word(f, buf, col, indent, &first);
	}
	opt += strlen("[options]");
	while (*opt == ' ')
		opt++;
	if (*opt)
		wrap_word(f, opt, col, indent, &first);
	fputc('\n', f);
}

static void print_short_usage(FILE *f)
{
	int i;

	if (!current.usage) {
		fprintf(f, "usage: stablesel [--version] [help] <command> [options] [args]\n");
		return;
	}
	for (i = 0; current.usage[i] && current.usage[i][0]; i++)
		print_form(f, i ? "   or: " : "usage: ", current.usage[i], current.options);
}

void usage_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	progress_done();
	if (fmt) {
		fprintf(stderr, "error: ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	print_short_usage(stderr);
	exit(SS_EXIT_USAGE);
}

/*
 * An unknown option: one line naming it, with the closest option of the
 * table when one is close ("did you mean '--onto'?"), and one pointing
 * at -h, not the usage (whose many lines would hide the suggestion).
 * typed is the option as given, dashes included; exit 129.
 */
static void unknown_option(const struct cli_option *options, const char *typed, size_t len)
{
	char name[128], form[140];
	const char *best = NULL;
	size_t dist = SIZE_MAX;
	int negated = 0, long_form = typed[1] == '-';
	struct walk w;
	const struct cli_option *o;

	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1),
		 typed + (long_form ? 2 : 1));
	walk_start(&w, options);
	while (long_form && (o = walk_next(&w))) {
		const char *before = best;

		/* an old spelling is not offered: the name it stands for is */
		if (o->type == CLI_OPT_GROUP || o->type == CLI_OPT_ALIAS || !o->long_name)
			continue;
		ss_suggest_consider(&best, &dist, name, o->long_name);
		if (best != before)
			negated = 0;
		if (o->type == CLI_OPT_NEGFLAG && !strncmp(name, "no-", 3)) {
			before = best;
			ss_suggest_consider(&best, &dist, name + 3, o->long_name);
			if (best != before)
				negated = 1;
		}
	}
	fflush(stdout);
	progress_done();
	fprintf(stderr, "error: unknown option '%s%s'", long_form ? "--" : "-", name);
	if (best) {
		snprintf(form, sizeof(form), "--%s%s", negated ? "no-" : "", best);
		fprintf(stderr, "; did you mean '%s'?", form);
	}
	fprintf(stderr, "\nhint: 'stablesel %s -h' lists the options\n",
		current.command ? current.command : "<command>");
	exit(SS_EXIT_USAGE);
}

/* ---- help ------------------------------------------------------------- */

/* "    --top N", "-o, --output FILE", "--[no-]progress" */
static void long_form(char *buf, size_t size, const struct cli_option *o)
{
	size_t n = 0;

	if (o->short_name && o->long_name)
		n = (size_t)snprintf(buf, size, "-%c, ", o->short_name);
	else if (o->short_name)
		n = (size_t)snprintf(buf, size, "-%c", o->short_name);
	else
		n = (size_t)snprintf(buf, size, "    ");
	if (o->long_name)
		n += (size_t)snprintf(buf + n, size - n, "--%s%s",
				      o->type == CLI_OPT_NEGFLAG ? "[no-]" : "", o->long_name);
	if (o->argh)
		snprintf(buf + n, size - n, " %s", o->argh);
}

/* What the help says of the values: "(1 to 16)", "(repeatable)". */
static void value_note(char *buf, size_t size, const struct cli_option *o)
{
	buf[0] = '\0';
	switch (o->type) {
	case CLI_OPT_STRLIST:
		if (o->max > 1)   /* a list of one: an option taken once */
			snprintf(buf, size, " (repeatable)");
		break;
	case CLI_OPT_COUNT:
	case CLI_OPT_INT:
		if (o->max >= CLI_NO_MAX && o->min > 0)
			snprintf(buf, size, " (at least %.0f)", o->min);
		else if (o->max >= CLI_NO_MAX)
			break;
		else
			snprintf(buf, size, " (%.0f to %.0f)", o->min, o->max);
		break;
	case CLI_OPT_REAL:
		if (o->max < DBL_MAX)
			snprintf(buf, size, " (%g to %g)", o->min, o->max);
		break;
	default:
		break;
	}
}

void cli_options_help(FILE *f, const struct cli_option *options, const char *const *usage)
{
	const struct cli_option *o;
	struct cli_option view;
	struct walk w;
	char form[160], note[64], help[160];
	int i;

	for (i = 0; usage[i] && usage[i][0]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	if (usage[i])
		for (i++; usage[i]; i++)
			fprintf(f, "%s%s\n", i > 0 && !usage[i - 1][0] ? "\n" : "", usage[i]);
	walk_start(&w, options);
	while ((o = walk_next(&w))) {
		if (o->type == CLI_OPT_GROUP) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (o->type == CLI_OPT_ALIAS)
			o = alias_view(&view, help, sizeof(help), options, o);
		long_form(form, sizeof(form), o);
		value_note(note, sizeof(note), o);
		if (strlen(form) > 20)
			fprintf(f, "    %s\n%26s%s%s\n", form, "", o->help, note);
		else
			fprintf(f, "    %-22s%s%s\n", form, o->help, note);
	}
}

/* ---- man page --------------------------------------------------------- */

/* Text for troff: backslashes and leading dots or quotes escaped. */
static void troff(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void cli_options_man(FILE *f, const char *name, const char *summary,
		     const struct cli_option *options, const char *const *usage)
{
	const struct cli_option *o;
	struct cli_option view;
	struct walk w;
	char form[160], note[64], upper[64], help[160];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(upper); i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	upper[i] = '\0';
	fprintf(f, ".TH \"STABLESEL\\-%s\" \"1\" \"\" \"stablesel %s\" \"stablesel manual\"\n",
		upper, SS_VERSION);
	fprintf(f, ".SH NAME\nstablesel\\-");
	troff(f, name);
	fprintf(f, " \\- ");
	troff(f, summary ? summary : "");
	fprintf(f, "\n.SH SYNOPSIS\n.nf\n");
	for (i = 0; usage[i] && usage[i][0]; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (!m)
			die("out of memory");
		print_form(m, "", usage[i], options);
		fclose(m);
		troff(f, buf);
		free(buf);
	}
	fprintf(f, ".fi\n.SH DESCRIPTION\n");
	if (usage[i])
		for (i++; usage[i]; i++) {
			if (!usage[i][0]) {
				fprintf(f, ".PP\n");
				continue;
			}
			troff(f, usage[i]);
			fputc('\n', f);
		}
	fprintf(f, ".SH OPTIONS\n");
	walk_start(&w, options);
	while ((o = walk_next(&w))) {
		if (o->type == CLI_OPT_GROUP) {
			fprintf(f, ".SS ");
			troff(f, o->help);
			fputc('\n', f);
			continue;
		}
		if (o->type == CLI_OPT_ALIAS)
			o = alias_view(&view, help, sizeof(help), options, o);
		long_form(form, sizeof(form), o);
		value_note(note, sizeof(note), o);
		fprintf(f, ".TP\n.B ");
		troff(f, form + strspn(form, " "));
		fputc('\n', f);
		troff(f, o->help);
		troff(f, note);
		fputc('\n', f);
	}
	fprintf(f, ".SH EXIT STATUS\n0 success, 1 some input was bad, 128 a fatal error, "
		"129 a usage error.\n.SH SEE ALSO\n.BR stablesel (1)\n");
}

static void list_options(const struct cli_option *options)
{
	const struct cli_option *o;
	struct walk w;
	int first = 1;

	walk_start(&w, options);
	while ((o = walk_next(&w))) {
		/* an old spelling is not offered: the name it stands for is */
		if (o->type == CLI_OPT_GROUP || o->type == CLI_OPT_ALIAS)
			continue;
		if (o->long_name) {
			printf("%s--%s", first ? "" : " ", o->long_name);
			if (o->type == CLI_OPT_NEGFLAG)
				printf(" --no-%s", o->long_name);
		} else {
			printf("%s-%c", first ? "" : " ", o->short_name);
		}
		first = 0;
	}
}

/*
 * One line an option: --name (or -o), its value's name ("-": none),
 * where it is declared (the shared declaration's file and line for a
 * shared one), its help; for tests/test_shared_options.c.  An alias
 * declares nothing: its value's name is "->--TARGET", what it stands for.
 */
static void list_declarations(const struct cli_option *options)
{
	const struct cli_option *o;
	struct walk w;

	walk_start(&w, options);
	while ((o = walk_next(&w))) {
		if (o->type == CLI_OPT_GROUP)
			continue;
		if (o->type == CLI_OPT_ALIAS) {
			printf("%s\t->--%s\t%s\told spelling of --%s\n", cli_option_name(o), o->target,
			       o->site, o->target);
			if (o->long_name && o->short_name)
				printf("-%c\t->--%s\t%s\told spelling of --%s\n", o->short_name,
				       o->target, o->site, o->target);
			continue;
		}
		printf("%s\t%s\t%s\t%s\n", cli_option_name(o), o->argh ? o->argh : "-",
		       o->shared ? o->shared->site : o->site, o->help);
	}
}

/* ---- parsing ------------------------------------------------------------ */

static void bad_value(const struct cli_option *o, const char *fmt, const char *v)
{
	char what[200];

	snprintf(what, sizeof(what), fmt, o->min, o->max);
	usage_die("option '%s' expects %s, not '%s'", cli_option_name(o), what, v);
}

static unsigned long long parse_digits(const struct cli_option *o, const char *v)
{
	unsigned long long n;
	char *end;

	/* strtoull takes blanks, a sign and wraps "-1" around: digits only */
	errno = 0;
	n = isdigit((unsigned char)*v) ? strtoull(v, &end, 10) : 0;
	if (!isdigit((unsigned char)*v) || errno || *end || (double)n < o->min ||
	    (double)n > o->max || (o->max < CLI_NO_MAX && n > (unsigned long long)o->max))
		bad_value(o, o->max >= CLI_NO_MAX ? "an integer of at least %.0f" :
			  "an integer from %.0f to %.0f", v);
	return n;
}

static void set_value(const struct cli_option *o, const char *v)
{
	switch (o->type) {
	case CLI_OPT_STRING:
		*(const char **)o->value = v;
		break;
	case CLI_OPT_STRLIST:
		if (*o->count >= (size_t)o->max)
			usage_die("too many %s options (at most %.0f)", cli_option_name(o), o->max);
		((const char **)o->value)[(*o->count)++] = v;
		break;
	case CLI_OPT_COUNT:
		*(size_t *)o->value = (size_t)parse_digits(o, v);
		break;
	case CLI_OPT_INT:
		*(int *)o->value = (int)parse_digits(o, v);
		break;
	case CLI_OPT_REAL: {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		/* !(lo <= d <= hi) also refuses nan; blanks before it are garbage too */
		if (errno || end == v || *end || isspace((unsigned char)*v) || !isfinite(d) ||
		    !(d >= o->min && d <= o->max))
			bad_value(o, o->max < DBL_MAX ? "a number from %g to %g" : "a finite number", v);
		*(double *)o->value = d;
		break;
	}
	case CLI_OPT_DATE:
		if (ss_parse_date((int64_t *)o->value, v))
			usage_die("option '%s' expects a date YYYY-MM-DD (or YYYY-MM-DDTHH:MM, UTC), not '%s'", cli_option_name(o), v);
		break;
	case CLI_OPT_CHOICE: {
		char list[256] = "";
		size_t n = 0;
		int i;

		for (i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], v)) {
				*(int *)o->value = i;
				return;
			}
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
					      i ? ", " : "", o->choices[i]);
		}
		usage_die("option '%s' expects one of %s, not '%s'", cli_option_name(o), list, v);
	}
	case CLI_OPT_CALLBACK:
		o->cb(o, v);
		break;
	default:
		break;
	}
}

/* What the option found on the command line stands for: itself, or
 * for an alias the option of the table it names (in *buf). */
static const struct cli_option *alias_target(struct cli_option *buf,
					     const struct cli_option *options,
					     const struct cli_option *hit)
{
	if (hit->type != CLI_OPT_ALIAS)
		return hit;
	if (!find_option(buf, options, hit->target))
		die("option '%s' is an old spelling of --%s, which this command lacks",
		    cli_option_name(hit), hit->target);
	return buf;
}

static void print_help_exit(const struct cli_option *options, const char *const *usage)
{
	cli_options_help(stdout, options, usage);
	cli_exit(0);
}

int cli_parse_options(const struct cli_context *ctx, int argc, const char **argv,
		      const struct cli_option *options, const char *const *usage)
{
	int i, n = 0, only_operands = 0;

	current.options = options;
	current.usage = usage;
	current.command = argv[0];
	switch (ctx ? ctx->mode : CLI_PARSE_ARGS) {
	case CLI_PARSE_MAN:
		cli_options_man(stdout, argv[0], ctx->summary, options, usage);
		cli_exit(0);
	case CLI_PARSE_LIST:
		list_options(options);
		cli_exit(0);
	case CLI_PARSE_DECLS:
		list_declarations(options);
		cli_exit(0);
	case CLI_PARSE_ARGS:
		break;
	}
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq = NULL;
		const struct cli_option *o, *hit = NULL;
		struct cli_option target;
		int negated = 0;
		struct walk w;

		if (only_operands || arg[0] != '-' || !arg[1]) {
			argv[n++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_operands = 1;
			continue;
		}
		walk_start(&w, options);
		if (arg[1] == '-') {
			const char *name = arg + 2;
			size_t len;

			eq = strchr(name, '=');
			len = eq ? (size_t)(eq - name) : strlen(name);
			while ((o = walk_next(&w))) {
				if (o->type == CLI_OPT_GROUP || !o->long_name)
					continue;
				if (strlen(o->long_name) == len && !strncmp(o->long_name, name, len)) {
					hit = o;
					break;
				}
				if (o->type == CLI_OPT_NEGFLAG && len == strlen(o->long_name) + 3 &&
				    !strncmp(name, "no-", 3) && !strncmp(name + 3, o->long_name, len - 3)) {
					hit = o;
					negated = 1;
					break;
				}
			}
			if (!hit)
				unknown_option(options, arg, len);
			hit = alias_target(&target, options, hit);
			if (eq && !hit->argh)
				usage_die("option '%s' takes no value", cli_option_name(hit));
			val = eq ? eq + 1 : NULL;
		} else {
			while ((o = walk_next(&w)))
				if (o->type != CLI_OPT_GROUP && o->short_name == arg[1]) {
					hit = o;
					break;
				}
			if (!hit)
				unknown_option(options, arg, 1);
			hit = alias_target(&target, options, hit);
			if (arg[2] && !hit->argh)
				usage_die("option '-%c' takes no value", arg[1]);
			val = arg[2] ? arg + 2 : NULL;
		}
		if (hit->long_name && !strcmp(hit->long_name, "help"))
			print_help_exit(options, usage);
		/* a string option with a default value takes none when an
		 * option or nothing follows ("--verdicts --top 50") */
		if (hit->argh && !val && hit->type == CLI_OPT_STRING && hit->defval &&
		    (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1]))) {
			*(const char **)hit->value = (const char *)hit->defval;
			continue;
		}
		if (hit->argh && !val) {
			if (i + 1 >= argc)
				usage_die("option '%s' needs a value", cli_option_name(hit));
			val = argv[++i];
		}
		switch (hit->type) {
		case CLI_OPT_FLAG:
			*(int *)hit->value = (int)hit->defval;
			break;
		case CLI_OPT_NEGFLAG:
			*(int *)hit->value = !negated;
			break;
		default:
			set_value(hit, val);
			break;
		}
	}
	argv[n] = NULL;
	return n;
}
