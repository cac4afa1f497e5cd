/*
 * default_model.c - the model built into the binary: models/default.model
 * (a kernel model trained by scripts/train-default.sh, summary in
 * models/default.txt), used by "rank" and "explain" without --model.
 *
 * The file is included with the assembler's .incbin, so the binary needs
 * no data files at run time.  A tree without models/default.model still
 * builds; ss_model_load_default() then says so.  scripts/train-default.sh
 * touches this file after retraining so that make rebuilds it.
 */
#include <stddef.h>

#include "models/model.h"
#include "util/error.h"

#if defined(__has_include)
#if __has_include("../../models/default.model")
#define SS_HAVE_DEFAULT_MODEL 1
#endif
#endif

#ifdef SS_HAVE_DEFAULT_MODEL
/* .incbin paths are relative to the directory make runs in: the tree's root */
__asm__(".section .rodata\n"
	".balign 16\n"
	".global ss_default_model_start\n"
	"ss_default_model_start:\n"
	".incbin \"models/default.model\"\n"
	".global ss_default_model_end\n"
	"ss_default_model_end:\n"
	".previous\n");
extern const unsigned char ss_default_model_start[], ss_default_model_end[];
#endif

int ss_model_load_default(ss_model **out)
{
	*out = NULL;
#ifdef SS_HAVE_DEFAULT_MODEL
	return ss_model_load_buffer(out, ss_default_model_start,
				    (size_t)(ss_default_model_end - ss_default_model_start),
				    "(built-in default)");
#else
	return ss_error_code(SS_ENOTFOUND,
			     "this stablesel has no built-in model (models/default.model was missing "
			     "at build time): name one with --model");
#endif
}
