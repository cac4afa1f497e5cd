/*
 * run.c - the run floor's messages and progress through the caller's
 * ss_run_report (run.h), and its errors that name the step.
 */
#include "run/run.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/error.h"

void ss_run_say(const ss_run_report *rp, ss_run_level level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	if (!rp || !rp->say)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp->say(level, msg, rp->ud);
}

void ss_run_progress(const ss_run_report *rp, const char *what, size_t done, size_t total)
{
	if (rp && rp->progress)
		rp->progress(what, done, total, rp->ud);
}

void ss_run_progress_done(const ss_run_report *rp)
{
	if (rp && rp->progress_done)
		rp->progress_done(rp->ud);
}

int ss_run_fail(int rc, const char *fmt, ...)
{
	char last[1024], what[1024];
	va_list ap;

	/* the last message is the buffer the new one is written to */
	snprintf(last, sizeof(last), "%s", ss_error_last());
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ss_error_code(rc < 0 ? rc : SS_ERROR, "%s: %s", what, last);
}
