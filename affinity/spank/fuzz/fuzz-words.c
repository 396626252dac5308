/* libFuzzer target: the user's --reduced-auto-affinity word list (raa_parse_words), as srun and slurmstepd read it. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "raa_parse.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* srun hands the option over as a C string: it ends at the first NUL */
	struct raa_words w = { RAA_UNSET, RAA_UNSET, 0, "" };
	char bad[128];
	if (raa_parse_words(text, &w, bad, sizeof bad) == 0) {
		if (w.policy[0] != '\0' && !raa_valid_policy(w.policy))
			abort(); /* a policy is only ever taken when valid */
		if (w.enabled != RAA_UNSET && w.enabled != RAA_ON && w.enabled != RAA_OFF)
			abort();
	} else if (strlen(bad) >= sizeof bad) {
		abort();
	}
	free(text);
	return 0;
}
