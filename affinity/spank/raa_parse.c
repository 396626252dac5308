/* The plugin's readers of untrusted text; see raa_parse.h. Bounded by their input, no state, no allocation but
 * raa_parse_tasks's one array of local_tasks bytes. */
#include "raa_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int raa_valid_policy(const char *p)
{
	size_t n = strnlen(p, RAA_MAX_POLICY);
	if (n == 0 || n >= RAA_MAX_POLICY)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '-'))
			return 0;
	return 1;
}

/* One word of the list, [w, w+len). */
static int take_word(const char *w, size_t len, struct raa_words *out)
{
	if (len == 2 && memcmp(w, "on", 2) == 0) {
		out->enabled = RAA_ON;
	} else if (len == 3 && memcmp(w, "off", 3) == 0) {
		out->enabled = RAA_OFF;
	} else if ((len == 1 && w[0] == 'v') || (len == 7 && memcmp(w, "verbose", 7) == 0)) {
		out->verbose = 1;
		if (out->enabled == RAA_UNSET)
			out->enabled = RAA_ON;
	} else if (len > 7 && len - 7 < RAA_MAX_POLICY && memcmp(w, "policy=", 7) == 0) {
		char name[RAA_MAX_POLICY];
		memcpy(name, w + 7, len - 7);
		name[len - 7] = '\0';
		if (!raa_valid_policy(name))
			return -1;
		memcpy(out->policy, name, len - 7 + 1);
	} else if (len == 4 && memcmp(w, "help", 4) == 0) {
		out->help = 1;
	} else {
		return -1;
	}
	return 0;
}

int raa_parse_words(const char *optarg, struct raa_words *w, char *bad, size_t bad_len)
{
	if (bad_len > 0)
		bad[0] = '\0';
	if (optarg == NULL || *optarg == '\0')
		return -1;
	/* Empty words (",on", "on,,v") are skipped, as strtok did. */
	for (const char *at = optarg; *at != '\0';) {
		size_t len = strcspn(at, ",");
		if (len > 0 && take_word(at, len, w) != 0) {
			if (bad_len > 0)
				snprintf(bad, bad_len, "%.*s", len > (size_t) 1 << 20 ? 1 << 20 : (int) len, at);
			return -1;
		}
		at += len;
		if (*at == ',')
			at++;
	}
	return 0;
}

int raa_parse_list(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (*s == '\0')
		return -1;
	while (*s) {
		/* strtol would take "+1", " 1" and "-1": a CPU list has digits only */
		if (*s < '0' || *s > '9')
			return -1;
		char *end;
		errno = 0;
		long lo = strtol(s, &end, 10);
		if (errno || lo < 0 || lo >= CPU_SETSIZE)
			return -1;
		long hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return -1;
			hi = strtol(s, &end, 10);
			if (errno || hi < lo || hi >= CPU_SETSIZE)
				return -1;
			s = end;
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET((size_t) c, set);
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -1;
	}
	return 0;
}

void raa_format_cpus(const cpu_set_t *set, int min_range, char *buf, size_t len)
{
	size_t used = 0;
	if (len == 0)
		return;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET((size_t) c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET((size_t) e + 1, set))
			e++;
		for (int k = c; k <= e; k++) {
			int n = e - c + 1 >= min_range
				? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, e)
				: snprintf(buf + used, len - used, "%s%d", used ? "," : "", k);
			if (n < 0 || (size_t) n >= len - used) {
				buf[used] = '\0'; /* snprintf wrote a cut piece: drop it */
				return;
			}
			used += (size_t) n;
			if (e - c + 1 >= min_range)
				break;
		}
		c = e;
	}
}

enum raa_reply_kind raa_parse_reply(char *buf, size_t n, struct raa_reply *r)
{
	memset(r, 0, sizeof *r);
	r->kind = RAA_REPLY_MALFORMED;
	buf[n] = '\0';
	if (n == 0 || buf[n - 1] != '\0')
		return r->kind;
	const char *item[3] = { NULL, NULL, NULL };
	size_t items = 0;
	for (size_t at = 0; at < n; at += strlen(buf + at) + 1) {
		if (items == 3)
			return r->kind; /* more than three items: not a reply of this version */
		item[items++] = buf + at;
	}
	if (items == 1 && strncmp(item[0], "unserved=", 9) == 0) {
		r->unserved = item[0] + 9;
		r->kind = RAA_REPLY_UNSERVED;
	} else if (items == 3 && strncmp(item[0], "exit=", 5) == 0 && strncmp(item[1], "out=", 4) == 0
		   && strncmp(item[2], "err=", 4) == 0) {
		const char *code = item[0] + 5;
		size_t digits = strspn(code, "0123456789");
		if (digits == 0 || digits > 3 || code[digits] != '\0')
			return r->kind;
		int v = atoi(code); /* 1-3 digits, checked above: no overflow */
		if (v > 255)
			return r->kind;
		r->exit_code = v;
		r->out = item[1] + 4;
		r->err = item[2] + 4;
		r->kind = RAA_REPLY_ANSWER;
	}
	return r->kind;
}

int raa_parse_tasks(char *out, uint32_t local_tasks, cpu_set_t *masks, char *why, size_t why_len)
{
	char *seen = calloc(local_tasks ? local_tasks : 1, 1);
	if (seen == NULL) {
		snprintf(why, why_len, "no memory for %u tasks", local_tasks);
		return -1;
	}
	int line_no = 0, rc = 0;
	char *save = NULL;
	for (char *line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		line_no++;
		size_t digits = strspn(line, "0123456789");
		char *end = NULL;
		errno = 0;
		long id = digits > 0 && digits < 11 ? strtol(line, &end, 10) : -1;
		cpu_set_t set;
		if (id < 0 || errno || *end != ' ' || (uint64_t) id >= local_tasks || seen[id] || raa_parse_list(end + 1, &set) != 0) {
			snprintf(why, why_len, "printed '%.200s' on line %d; expected '<localid> <cpulist>' once for each of "
				 "the %u local tasks", line, line_no, local_tasks);
			rc = -1;
			break;
		}
		seen[id] = 1;
		masks[id] = set;
	}
	for (uint32_t i = 0; rc == 0 && i < local_tasks; i++) {
		if (!seen[i]) {
			snprintf(why, why_len, "gave no CPUs for local task %u of %u", i, local_tasks);
			rc = -1;
		}
	}
	free(seen);
	return rc;
}

const char *raa_reason(char *err)
{
	char *nl = strchr(err, '\n');
	if (nl)
		*nl = '\0';
	if (strncmp(err, "affinity: ", 10) == 0)
		err += 10;
	return *err ? err : "(no message on stderr)";
}
