/*
 * testhook.h - named points where a test can stop the process, as kill -9
 * would, or make it wait (tests/test_index.c: an update interrupted at
 * each of its steps, two first builds at once).
 *
 * ss_test_point("batch") does nothing unless the environment asks for
 * that point: SS_TEST_ABORT_AT=NAME (or NAME#N, the Nth time the point is
 * passed) kills the process with SIGKILL there; SS_TEST_PAUSE_AT=NAME
 * sleeps SS_TEST_PAUSE_MS milliseconds (1000) there, every time.  The
 * environment is read once; a point not asked for costs one compare.
 */
#ifndef SS_TESTHOOK_H
#define SS_TESTHOOK_H

void ss_test_point(const char *name);

#endif
