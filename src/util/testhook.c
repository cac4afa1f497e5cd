/*
 * testhook.c - named points where a test stops or pauses the process
 * (testhook.h).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/testhook.h"

static int read_env;
static const char *abort_at, *pause_at;
static size_t abort_len;
static long abort_nth = 1, passed, pause_ms = 1000;

static void load(void)
{
	const char *s;

	read_env = 1;
	if ((abort_at = getenv("SS_TEST_ABORT_AT")) && *abort_at) {
		const char *hash = strchr(abort_at, '#');

		abort_len = hash ? (size_t)(hash - abort_at) : strlen(abort_at);
		if (hash && atol(hash + 1) > 0)
			abort_nth = atol(hash + 1);
	} else {
		abort_at = NULL;
	}
	if ((pause_at = getenv("SS_TEST_PAUSE_AT")) && !*pause_at)
		pause_at = NULL;
	if ((s = getenv("SS_TEST_PAUSE_MS")) && atol(s) > 0)
		pause_ms = atol(s);
}

void ss_test_point(const char *name)
{
	if (!read_env)
		load();
	if (abort_at && strlen(name) == abort_len && !memcmp(name, abort_at, abort_len) &&
	    ++passed == abort_nth)
		kill(getpid(), SIGKILL);
	if (pause_at && !strcmp(name, pause_at)) {
		struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts))
			;
	}
}
