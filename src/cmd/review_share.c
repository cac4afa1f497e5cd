/*
 * review_share.c - "stablesel review --export FILE / --import FILE": the
 * review decisions as JSON a team keeps in git (review_share.h; the file's
 * writer and reader are run/decisions_json.c's: one concept split
 * across two floors, with the branches named as the index names them):
 * the output file, the index, the conflicts and counts on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli/decisions_cli.h"
#include "review_share.h"
#include "run/decisions_json.h"
#include "util/atomic.h"
#include "util/error.h"

static void conflict(const ss_decision *theirs, const ss_decision *ours, int theirs_won, void *ud)
{
	ss_strbuf e[5] = { SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT,
			   SS_STRBUF_INIT };
	char a[16], b[16];

	(void)ud;
	/* names and notes from a file reach the terminal escaped */
	warning("conflict: %.12s on %s: file %s (%s, %s%s%s) vs index %s (%s, %s%s%s): %s kept",
		theirs->commit, cli_escaped(&e[0], theirs->branch), ss_decision_state_name(theirs->state),
		cli_escaped(&e[1], theirs->who), cli_decision_date(a, theirs->time),
		*theirs->note ? ": " : "", cli_escaped(&e[2], theirs->note),
		ss_decision_state_name(ours->state), cli_escaped(&e[3], ours->who),
		cli_decision_date(b, ours->time), *ours->note ? ": " : "", cli_escaped(&e[4], ours->note),
		theirs_won ? "the file's (newer)" : "the index's");
	for (int i = 0; i < 5; i++)
		ss_strbuf_release(&e[i]);
}

int review_share(const char *export_file, const char *import_file, const char *db,
		 const char *repo)
{
	char *path = NULL;
	ss_index *ix;

	if (export_file) {
		ss_atomic *out = cli_output_open(export_file);
		size_t n = 0;

		ix = cli_decisions_open(db, repo, 0, &path, NULL);
		if (ss_run_decisions_export(ss_atomic_file(out), ix, &n)) {
			ss_atomic_abort(out);
			die("%s", ss_error_last());
		}
		cli_output_commit(out, SIZE_MAX, "decisions");
		note("%zu %s exported from '%s'", n, cli_decisions_word(n), path);
	} else {
		ss_run_decision_file ds;
		size_t stats[3];

		/* the whole file is read and checked before the index is opened
		 * for writing */
		if (ss_run_decisions_read(&ds, import_file))
			die("%s", ss_error_last());
		ix = cli_decisions_open(db, repo, 1, &path, NULL);
		if (ss_run_decisions_identities(&ds, ix, cli_run_report()) ||
		    ss_index_decisions_import(ix, ds.d, ds.n, conflict, NULL, stats))
			die("%s", ss_error_last());
		note("%zu %s read from '%s': %zu written, %zu kept as they were, %zu %s", ds.n,
		     cli_decisions_word(ds.n), import_file, stats[0], stats[1], stats[2],
		     stats[2] == 1 ? "conflict" : "conflicts");
		ss_run_decision_file_release(&ds);
	}
	ss_index_free(ix);
	free(path);
	return 0;
}
