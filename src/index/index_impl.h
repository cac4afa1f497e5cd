/*
 * index_impl.h - what the files of src/index/ share (internal).
 */
#ifndef SS_INDEX_IMPL_H
#define SS_INDEX_IMPL_H

#include <sqlite3.h>

#include "index/index.h"

struct ss_index {
	sqlite3 *db;
	char *path;
};

/* SQLite's last error on ix as an ss_error (SS_EINVALID for a file that
 * is damaged or no database); what: "read", "write meta", ... */
int ss_index_sql_error(ss_index *ix, const char *what);
int ss_index_exec(ss_index *ix, const char *sql, const char *what);
int ss_index_prepare(sqlite3_stmt **out, ss_index *ix, const char *sql);

/* The meta value of key into buf ("" when there is none). */
int ss_index_meta_get(ss_index *ix, const char *key, char *buf, size_t size);

#endif
