/*
 * error.h - error codes and the last error message of the core.
 *
 * Core modules never print or exit: a failing function records one
 * lower-case message, problem first, no full stop ("cannot open mbox 'x':
 * No such file or directory") with ss_error_set() and returns a negative
 * code.  The CLI reads it back with ss_error_last() and decides whether to
 * die(), warn or go on.  The message is thread-local so that worker threads
 * cannot overwrite each other's errors.
 */
#ifndef SS_ERROR_H
#define SS_ERROR_H

enum {
	SS_OK = 0,
	SS_ERROR = -1,     /* generic failure, message set */
	SS_ITEROVER = -2,  /* an iterator has no more items (not an error) */
	SS_ESKIP = -3,     /* one malformed item was skipped; iteration goes on */
	SS_ENOTFOUND = -4, /* a named object does not exist */
	SS_EINVALID = -5,  /* input is malformed and cannot be used */
	SS_ENOMEM = -6     /* out of memory */
};

/* Record a printf-style message as the last error; returns SS_ERROR. */
int ss_error_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Same, with an explicit code that is returned. */
int ss_error_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last recorded message of this thread ("" when none); never NULL. */
const char *ss_error_last(void);

void ss_error_clear(void);

#endif
