/*
 * The reduced-auto-affinity plugin's readers of untrusted text, apart from Slurm so that they can be fuzzed and
 * tested alone: the user's --reduced-auto-affinity words, the affinity agent's reply frame, the mask generator's
 * "<localid> <cpulist>" lines and Linux CPU lists. None of them keeps state between calls: each is thread-safe.
 */
#ifndef RAA_PARSE_H
#define RAA_PARSE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define RAA_MAX_POLICY 64

enum { RAA_UNSET = -1, RAA_OFF = 0, RAA_ON = 1 };

/* What the user's word list asked for; RAA_UNSET where it said nothing. */
struct raa_words {
	int enabled;
	int verbose;
	int help;
	char policy[RAA_MAX_POLICY]; /* "" when not given */
};

/* A policy name the generator could know: 1..63 of [a-z0-9-]. */
int raa_valid_policy(const char *p);

/*
 * Reads "WORD[,WORD...]" (on, off, v, verbose, policy=NAME, help) into *w, which the caller has set (words add
 * to it, as srun hands the option over once). 0, or -1 with the first unknown word copied into bad.
 */
int raa_parse_words(const char *optarg, struct raa_words *w, char *bad, size_t bad_len);

/* A Linux CPU list ("0-3,8"); 0, or -1 when it is not one (or names a CPU >= CPU_SETSIZE). */
int raa_parse_list(const char *s, cpu_set_t *set);

/* A CPU set as text: runs of at least min_range CPUs as a-b, shorter runs CPU by CPU; cut short to fit len. */
void raa_format_cpus(const cpu_set_t *set, int min_range, char *buf, size_t len);

enum raa_reply_kind { RAA_REPLY_ANSWER, RAA_REPLY_UNSERVED, RAA_REPLY_MALFORMED };

/* The agent's reply: the generator's exit code and streams, or why it did not serve the call. */
struct raa_reply {
	enum raa_reply_kind kind;
	int exit_code;        /* 0..255, RAA_REPLY_ANSWER only */
	const char *out;      /* into the buffer read */
	const char *err;
	const char *unserved; /* RAA_REPLY_UNSERVED only */
};

/*
 * Reads a reply frame's body (AgentCodec.java): "exit=N\0out=TEXT\0err=TEXT\0" or "unserved=REASON\0". buf holds n
 * bytes and one more, which this sets to NUL. RAA_REPLY_MALFORMED for anything else, N outside 0..255 included.
 */
enum raa_reply_kind raa_parse_reply(char *buf, size_t n, struct raa_reply *r);

/*
 * Reads the generator's output, "<localid> <cpulist>" lines, into masks[0..local_tasks): every local task exactly
 * once, nothing else. Modifies out (it is cut into lines). 0, or -1 with what is wrong in why.
 */
int raa_parse_tasks(char *out, uint32_t local_tasks, cpu_set_t *masks, char *why, size_t why_len);

/* The first line of the generator's stderr without its "affinity: " prefix (cuts err at its first newline). */
const char *raa_reason(char *err);

#endif
