/*
 * The ledger hooks' call to `alpsbridge ledger hook-agent`, shared by the per-call client (ledger-prolog,
 * ledger-epilog, ledger-submit) and slurmctld's PrEp plugin (prep/ledger): the settings they read from
 * ledger-hook.conf, the request (mode, arguments, the job's SLURM_* environment), the agent's answer, and the
 * epilog's durable spool file. One implementation, so the plugin and the script hooks cannot drift.
 */
#ifndef ALPSBRIDGE_HOOK_CORE_H
#define ALPSBRIDGE_HOOK_CORE_H

#include <stdio.h>
#include <sys/un.h>

#ifndef DEFAULT_JVM_HOOK
#define DEFAULT_JVM_HOOK "/usr/lib/alpsbridge/ledger-hook-jvm"
#endif
#ifndef DEFAULT_CONFIG
#define DEFAULT_CONFIG "/etc/alpsbridge/ledger-hook.conf"
#endif
#define DEFAULT_SOCKET "/run/alpsbridge/ledger-hook.sock"
#define DEFAULT_SPOOL "/var/spool/alpsbridge/ledger-hook"
#define DEFAULT_AGENT_TIMEOUT 60
#define DEFAULT_SUBMIT_TIMEOUT_MS 2000
#define MAX_FRAME (64 * 1024)
/* The longest line of ledger-hook.conf, newline not counted; a longer one is refused, never read in parts. */
#define HOOK_LINE_MAX 8191
#define HOOK_LINE_MAX_TEXT "8191"
/* agent_timeout's largest value (a day): the deadlines' arithmetic stays far from overflow */
#define HOOK_TIMEOUT_MAX 86400

/* The hooks' exit codes (0 ok, 1 denied, 2 bad options, 3 unavailable, 4 no job record), and "no agent". */
enum { HOOK_OK = 0, HOOK_DENIED = 1, HOOK_USAGE = 2, HOOK_UNAVAILABLE = 3, HOOK_NO_AGENT = -1 };

/* The keys of ledger-hook.conf the C side reads; the agent and the JVM hook check the whole file. */
struct hook_settings {
    char agent_socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
    long agent_timeout;        /* seconds to wait for the agent's answer */
    char jvm_hook[4096];       /* run when no agent listens */
    char spool_dir[4096];      /* the agent's spool of settlements */
    long submit_timeout_ms;    /* submit: how long it waits for the agent */
    int submit_refuses;        /* submit_when_unavailable=refuse */
    int cancel_fd;             /* not a setting: when readable, a call waiting for the agent gives up (-1: none) */
};

/* The defaults, then the file ALPSBRIDGE_LEDGER_HOOK_CONFIG names (or DEFAULT_CONFIG, which may be absent).
 * 0, or -1 with the problem written to err under `name`. */
int hook_read_settings(struct hook_settings *s, const char *name, FILE *err);

/* The defaults alone. */
void hook_default_settings(struct hook_settings *s);

/* The settings `in` (the file `path`) sets, over what s holds: 0, or -1 with the problem (file and line) written
 * to err under `name`. Lines over HOOK_LINE_MAX bytes and NUL bytes are refused. */
int hook_parse_settings(struct hook_settings *s, const char *name, const char *path, FILE *in, FILE *err);

/*
 * The agent's answer (a frame's body: NUL-ended "exit=N" then "say=LINE" items, AgentCodec.java): its "say" lines
 * written to err, and the exit code, 0 to 255. Anything else (a missing or unterminated item, an exit code that is
 * not a plain number from 0 to 255) is a protocol error, said on err naming `socket`: HOOK_UNAVAILABLE.
 */
int hook_parse_reply(const char *reply, size_t n, const char *name, const char *socket, FILE *err);

/* The value of KEY in a NULL-ended array of "KEY=VALUE" strings, or NULL. */
const char *hook_env_get(char **env, const char *key);

/*
 * One call of the hook `mode` (prolog, epilog, submit) with its arguments and the job's environment (only the
 * SLURM_* entries are sent). The agent's lines and this side's messages go to err. Returns the hook's exit code,
 * or HOOK_NO_AGENT with the reason in `why` when no agent listens (the socket is missing or refuses
 * connections): the caller decides what runs instead.
 */
int hook_call(const struct hook_settings *s, const char *name, const char *mode, int argc, char **argv, char **env,
              FILE *err, char *why, size_t why_size);

/* The epilog's settlement written into the spool without asking the agent (the agent settles it when it next looks
 * there): HOOK_OK with the spooled line on err, or HOOK_UNAVAILABLE with why. */
int hook_spool(const struct hook_settings *s, const char *name, char **env, FILE *err);

#endif
