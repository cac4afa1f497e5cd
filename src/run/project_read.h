/*
 * project_read.h - what the project model's training reads, as a rank,
 * report or review run reads it (project_read.c): the history before the
 * ranked commits (the --history sources, else the repository before the
 * range's bottoms: its unreadable commits counted and said once), the
 * ranked sources, the history primed as the ranking's is (the releases
 * named, the repository, the project index), the features the index
 * keeps and the commits review rejected, each index read through the run
 * (run.h: ss_run_index_read).  It fills the ss_run_project_reader of
 * run/project_choose.h.  Like the rest of src/run/ nothing prints or
 * exits: 0 or a negative SS_E* code with the message set (usage set when
 * it is the user's mistake), the rest said through rp.
 */
#ifndef SS_RUN_PROJECT_READ_H
#define SS_RUN_PROJECT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "run/project_choose.h"
#include "run/run.h"
#include "source/source.h"

/* The commands' sources and index; borrowed, outliving the reader. */
typedef struct {
	/* the ranked sources: specs[0..nspecs), else the repository repo */
	const char *repo;                 /* NULL: none */
	const char *const *specs;         /* NULL */
	size_t nspecs;                    /* 0 */
	const ss_source_options *opts;    /* how they are read (required) */
	/* the history before them: the --history sources hspecs[0..nhspecs),
	 * else repo walked with hopts (the revisions before the range) */
	const char *const *hspecs;        /* NULL */
	size_t nhspecs;                   /* 0 */
	const ss_source_options *hopts;   /* required */
	/* the history primed: --releases FILE, --release-tags GLOB */
	const char *releases;             /* NULL: the index's */
	const char *release_tags;         /* NULL */
	/* the project index: --db (NULL: repo's own), --no-index (0), as
	 * it was at as_of (0: today), lent by run (NULL: opened each time) */
	const char *db;
	int no_index;
	int64_t as_of;
	ss_run *run;
	const ss_run_report *rp;          /* skipped commits, the missing index (NULL) */
	int usage;                        /* out: a walk had no commits to read */
} ss_run_project_sources;

#define SS_RUN_PROJECT_SOURCES_INIT { NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, \
	0, 0, NULL, NULL, 0 }

/* *out reads through s (which must outlive it): every callback set. */
void ss_run_project_reader_init(ss_run_project_reader *out, ss_run_project_sources *s);

#endif
