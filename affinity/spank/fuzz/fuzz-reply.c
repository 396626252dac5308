/* libFuzzer target: the affinity agent's reply body (raa_parse_reply), then its out= stream as the task lines. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "raa_parse.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	/* as the plugin reads it: exactly the announced bytes, one more for the NUL the reader sets */
	char *buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	if (size > 0)
		memcpy(buf, data, size);
	struct raa_reply r;
	switch (raa_parse_reply(buf, size, &r)) {
	case RAA_REPLY_ANSWER: {
		if (r.exit_code < 0 || r.exit_code > 255 || r.out == NULL || r.err == NULL)
			abort();
		size_t n = strlen(r.out);
		char *out = malloc(n + 1);
		cpu_set_t masks[4];
		if (out != NULL) {
			char why[512];
			memcpy(out, r.out, n + 1);
			(void) raa_parse_tasks(out, 4, masks, why, sizeof why);
			free(out);
		}
		char *err = strdup(r.err);
		if (err != NULL) {
			(void) raa_reason(err);
			free(err);
		}
		break;
	}
	case RAA_REPLY_UNSERVED:
		if (r.unserved == NULL)
			abort();
		break;
	case RAA_REPLY_MALFORMED:
		break;
	}
	free(buf);
	return 0;
}
