/*
 * log.c - "stablesel log": the parsed commits as JSON lines.
 *
 * For users' scripts and for checking what the readers understood: one
 * object per commit with id, people, dates, subject, trailers and files
 * with status and line counts (--message adds the message, --lines the
 * diff lines), and the patch series it was posted in (commit/series.h).
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "commit/series.h"
#include "util/strbuf.h"

static const char *const log_usage[] = {
	"stablesel log [options] [SOURCE...]",
	"",
	"Prints each commit the sources hold as one JSON object a line: id, author",
	"and committer, subject, trailers, and the files with their status and line",
	"counts.  Without SOURCE, the commits of --repo PATH.",
	NULL
};

struct log_opts {
	int message, lines;
	ss_strbuf sb, line;
};

static const char *const status_names[] = {
	"modified", "added", "deleted", "renamed", "copied", "typechange"
};

static void add_person(ss_strbuf *sb, const char *key, const ss_person *p)
{
	ss_strbuf_addf(sb, "\"%s\":{\"name\":", key);
	ss_strbuf_add_json(sb, p->name);
	ss_strbuf_adds(sb, ",\"email\":");
	ss_strbuf_add_json(sb, p->email);
	ss_strbuf_addf(sb, ",\"time\":%lld,\"tz\":%d}", (long long)p->time, p->tz);
}

static int print_commit(ss_commit *c, void *data)
{
	struct log_opts *o = data;
	ss_strbuf *sb = &o->sb;
	size_t i, h, l;

	ss_strbuf_reset(sb);
	ss_strbuf_addf(sb, "{\"id\":\"%s\",", c->id);
	add_person(sb, "author", &c->author);
	ss_strbuf_addch(sb, ',');
	add_person(sb, "committer", &c->committer);
	ss_strbuf_adds(sb, ",\"subject\":");
	ss_strbuf_add_json(sb, c->subject);
	if (o->message) {
		ss_strbuf_adds(sb, ",\"message\":");
		ss_strbuf_add_json(sb, c->message);
	}
	ss_strbuf_adds(sb, ",\"trailers\":[");
	for (i = 0; i < c->ntrailers; i++) {
		ss_strbuf_adds(sb, i ? ",[" : "[");
		ss_strbuf_add_json(sb, c->trailers[i].key);
		ss_strbuf_addch(sb, ',');
		ss_strbuf_add_json(sb, c->trailers[i].value);
		ss_strbuf_addch(sb, ']');
	}
	ss_strbuf_adds(sb, "],\"files\":[");
	for (i = 0; i < c->nfiles; i++) {
		const ss_file *f = &c->files[i];

		ss_strbuf_adds(sb, i ? ",{\"path\":" : "{\"path\":");
		ss_strbuf_add_json(sb, ss_file_path(f));
		if (f->status == SS_FILE_RENAMED || f->status == SS_FILE_COPIED) {
			ss_strbuf_adds(sb, ",\"old_path\":");
			ss_strbuf_add_json(sb, f->old_path);
		}
		ss_strbuf_addf(sb, ",\"status\":\"%s\",\"binary\":%s,\"added\":%zu,\"removed\":%zu,\"hunks\":%zu",
			       status_names[f->status], f->binary ? "true" : "false",
			       f->added, f->removed, f->nhunks);
		if (f->binary == SS_FILE_UNREADABLE)
			ss_strbuf_adds(sb, ",\"unreadable\":\"missing object\"");
		if (o->lines) {
			ss_strbuf_adds(sb, ",\"lines\":[");
			for (h = 0; h < f->nhunks; h++)
				for (l = 0; l < f->hunks[h].nlines; l++) {
					const ss_line *ln = &f->hunks[h].lines[l];

					if (h || l)
						ss_strbuf_addch(sb, ',');
					ss_strbuf_reset(&o->line);
					ss_strbuf_addch(&o->line, ln->origin);
					ss_strbuf_add(&o->line, ln->text, ln->len);
					ss_strbuf_add_json(sb, o->line.buf);
				}
			ss_strbuf_addch(sb, ']');
		}
		ss_strbuf_addch(sb, '}');
	}
	ss_strbuf_addf(sb, "],\"added\":%zu,\"removed\":%zu%s%s", c->added, c->removed,
		       c->truncated ? ",\"truncated\":true" : "",
		       c->masked ? ",\"masked\":true" : "");
	/* the patch series it was posted in: a numbered Link:, or a mail's
	 * thread and [PATCH n/m] */
	{
		ss_series se;

		if (ss_series_of(&se, c)) {
			ss_strbuf_adds(sb, ",\"series\":{\"key\":");
			ss_strbuf_add_json(sb, se.key);
			ss_strbuf_addf(sb, ",\"n\":%u,\"total\":%u}", se.n, se.total);
		}
	}
	ss_strbuf_adds(sb, "}\n");
	fwrite(sb->buf, 1, sb->len, stdout);
	ss_commit_free(c);
	return 0;
}

int cmd_log(int argc, const char **argv, const struct cli_context *ctx)
{
	struct log_opts o = { 0, 0, SS_STRBUF_INIT, SS_STRBUF_INIT };
	cli_source_args a;
	struct cli_option options[] = {
		CLI_INCLUDE(a.options),
		CLI_GROUP("Output"),
		CLI_FLAG(0, "message", &o.message, "add each commit's message"),
		CLI_FLAG(0, "lines", &o.lines, "add each file's diff lines"),
		CLI_END(),
	};
	int nspecs;

	cli_source_args_init(&a);
	nspecs = cli_parse_options(ctx, argc, argv, options, log_usage);
	cli_source_default(&a, nspecs, "log", 1);
	cli_for_each_commit(&a, argv, nspecs, print_commit, &o);
	ss_strbuf_release(&o.sb);
	ss_strbuf_release(&o.line);
	return 0;
}
