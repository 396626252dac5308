/* libFuzzer target: the mask generator's output, "<localid> <cpulist>" lines (raa_parse_tasks, raa_parse_list),
 * with the local task count taken from the input's first byte; every accepted mask formats and reads back. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "raa_parse.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size == 0)
		return 0;
	uint32_t tasks = data[0] % 17; /* 0..16 local tasks */
	char *out = malloc(size);
	cpu_set_t *masks = calloc(tasks ? tasks : 1, sizeof(cpu_set_t));
	if (out == NULL || masks == NULL) {
		free(out);
		free(masks);
		return 0;
	}
	memcpy(out, data + 1, size - 1);
	out[size - 1] = '\0';
	char why[512];
	if (raa_parse_tasks(out, tasks, masks, why, sizeof why) == 0) {
		for (uint32_t i = 0; i < tasks; i++) {
			static char list[65536];
			cpu_set_t back;
			raa_format_cpus(&masks[i], 2, list, sizeof list);
			if (raa_parse_list(list, &back) != 0 || !CPU_EQUAL(&back, &masks[i]))
				abort(); /* the Linux list of a mask reads back as that mask */
			raa_format_cpus(&masks[i], 3, list, sizeof list);
		}
	}
	free(out);
	free(masks);
	return 0;
}
