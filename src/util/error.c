/* error.c - the thread-local last error message (see error.h). */
#include <stdarg.h>
#include <stdio.h>


#include "error.h"

static _Thread_local char last_error[1024];

static void record(const char *fmt, va_list ap)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
}

int ss_error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(fmt, ap);
	va_end(ap);
	return SS_ERROR;
}

int ss_error_code(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(fmt, ap);
	va_end(ap);
	return code;
}

const char *ss_error_last(void)
{
	return last_error;
}

void ss_error_clear(void)
{
	last_error[0] = '\0';
}
