/*
 * hist_linux.c - the Linux kernel's mainline releases built into the
 * binary: data/linux-releases.tsv ("tag sha date"; shas "-", dates the
 * public release days at 20:00 UTC, about when Linus tags on a Sunday
 * afternoon), so that "the bug shipped in a release" works on kernel mail
 * without a --releases file or a repository (features/history.c uses it).
 *
 * The file is included with the assembler's .incbin, as models/default.model
 * is (models/default_model.c); the Makefile rebuilds this object when it
 * changes.
 */
#include <stddef.h>

#include "history/histidx.h"

/* .incbin paths are relative to the directory make runs in: the tree's root */
__asm__(".section .rodata\n"
	".global ss_linux_releases_start\n"
	"ss_linux_releases_start:\n"
	".incbin \"data/linux-releases.tsv\"\n"
	".global ss_linux_releases_end\n"
	"ss_linux_releases_end:\n"
	".previous\n");
extern const char ss_linux_releases_start[], ss_linux_releases_end[];

int ss_releases_linux(ss_releases **out)
{
	return ss_releases_parse_tsv(out, ss_linux_releases_start,
				     (size_t)(ss_linux_releases_end - ss_linux_releases_start),
				     "data/linux-releases.tsv (built in)");
}
