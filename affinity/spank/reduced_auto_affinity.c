/*
 * reduced-auto-affinity: a SPANK plugin that binds each task of a step to the CPU set the alpsbridge mask
 * generator computes for it (one hardware thread per core, cpus-per-task adjacent cores, each task inside
 * one socket; or another policy of the generator).
 *
 *   srun --reduced-auto-affinity=on|off[,v][,policy=NAME] ...
 *
 * plugstack.conf:
 *   required /path/reduced_auto_affinity.so [default=on|off] [verbose] [policy=NAME]
 *                                           [generator=/path/bin/alpsbridge] [timeout=SECONDS]
 *                                           [agent=/run/alpsbridge-affinity/agent.sock|none]
 *
 * In slurmstepd, per node and step:
 * - slurm_spank_init_post_opt (slurmstepd is still root): decides whether the step is bound at all, connects to
 *   the resident `alpsbridge affinity agent` and opens the "said once" marker. Only these two need root (the
 *   agent serves root, its socket is 0600 in a 0700 directory; the marker lives in /run); the descriptors they
 *   give stay usable after slurmstepd has switched to the job's user.
 * - slurm_spank_user_init (slurmstepd runs as the job's user, inside the step's cpuset): asks, on that connection,
 *     affinity --topology sysfs --ntasks N --cpus-per-task C --allowed CPUS --policy P --format tasks
 *   (N the step's tasks on this node, C its cpus-per-task, CPUS the CPUs slurmstepd may use narrowed to the step's
 *   cores) and reads one "<localid> <cpulist>" line per task. When no agent answers it runs GENERATOR with those
 *   arguments as the job's user (never root: nobody for root's own steps), in /, with a clean environment, and
 *   says so once per node and outage in slurmd's log. The masks come from the same Java code either way.
 * - slurm_spank_task_init: each task applies its own set with sched_setaffinity and, with v, prints
 *   "reduced-auto-affinity: local task N: CPUs: LIST" on its stderr.
 * A rejection, a generator that is missing, hangs past the timeout or prints something else fails the step before
 * any task program runs, with the reason on the user's terminal. A binding the user asked srun for (--cpu-bind=X,
 * X not none) refuses the step when the user also asked for this plugin, and makes the plugin stand back, saying
 * so, when only the site default asked.
 *
 * Bounds: every wait has a deadline (the agent: connect never blocks, the whole exchange within AGENT_SECONDS or
 * timeout=; the generator: timeout=, then SIGKILL to its process group and at most REAP_GRACE_MS more to reap it);
 * memory: a request of at most AGENT_MAX_REQUEST, a reply of at most AGENT_MAX_REPLY, the generator's streams at
 * most MAX_OUTPUT each. Threads: slurmstepd calls a plugin from one thread; the plugin keeps per-process state
 * only, uses no non-reentrant libc call (strerror_r, strtok_r, getpwnam_r), and its forked child makes only
 * async-signal-safe calls before exec. Logging: Slurm's own slurm_error/slurm_info (spank.h), never glibc's error().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "raa_parse.h"

SPANK_PLUGIN(reduced-auto-affinity, 1);

#define NAME "reduced-auto-affinity"
#define MAX_OUTPUT (1 << 20)
/* How long a killed generator may take to be reaped before the plugin stops waiting for it. */
#define REAP_GRACE_MS 2000
/* The environment the generator gets: nothing of the job's or slurmstepd's. */
#define GENERATOR_PATH "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* Who runs the generator for root's own steps. */
#define UNPRIVILEGED_USER "nobody"

/* Site settings from plugstack.conf. */
static int site_enabled = RAA_OFF;
static int site_verbose = 0;
static char site_policy[RAA_MAX_POLICY] = "reduced";
static char generator[4096] = "alpsbridge";
static int timeout_seconds = 30;
/* The agent's socket; "" for agent=none. */
static char agent[sizeof(((struct sockaddr_un *) 0)->sun_path)] = "/run/alpsbridge-affinity/agent.sock";
/* How long the agent may take (at most timeout=): it answers in milliseconds, a hung one is not waited for. */
#define AGENT_SECONDS 10
/* Where "the generator is started instead" is remembered (see say_fallback_once). */
#define MARKER_DIR "/run"
/* How long a step waits for another step's hold of the marker (held for microseconds) before saying anyway. */
#define MARKER_LOCK_MS 200

/* The user's --reduced-auto-affinity words. */
static struct raa_words user = { RAA_UNSET, RAA_UNSET, 0, "" };

/* Per node and step: set in init_post_opt and user_init; the forked tasks inherit it. */
static int active = 0;
static int refused = 0;
static int verbose = 0;
static uint32_t local_tasks = 0;
static cpu_set_t *masks = NULL;
/* The binding the user asked srun for, when this plugin stands back for it ("" otherwise). */
static char srun_binding[256] = "";
/* The binding the user asked srun for beside --reduced-auto-affinity=on: the step is refused ("" otherwise). */
static char conflicting_binding[256] = "";
/* Made while root (init_post_opt), used as the job's user (user_init). */
static int agent_fd = -1;
static int agent_connect_errno = 0;
static int marker_fd = -1;
static int marker_errno = 0;

static int option_cb(int val, const char *optarg, int remote);

struct spank_option spank_options[] = {
	{ "reduced-auto-affinity", "on|off[,v][,policy=NAME]",
	  "Bind each task to its reduced-auto-affinity CPU set: one thread per core, cpus-per-task adjacent cores, "
	  "each task inside one socket; a job that cannot be placed so is refused. v: print each task's CPUs. "
	  "policy=NAME: another policy of the mask generator (reduced, llnl, alps-cpu, alps-depth, alps-numa). "
	  "help: list these words.",
	  1, 0, option_cb },
	SPANK_OPTIONS_TABLE_END
};

/* strerror, thread-safe (slurmstepd has threads of its own). */
static const char *errtext(int e, char *buf, size_t len)
{
	return strerror_r(e, buf, len);
}

static void print_help(void)
{
	fprintf(stderr,
		"--reduced-auto-affinity=WORD[,WORD...]\n"
		"  on          bind every task to its reduced-auto-affinity CPU set\n"
		"  off         do not bind (the site default is %s)\n"
		"  v, verbose  print 'reduced-auto-affinity: local task N: CPUs: LIST' for each task\n"
		"  policy=P    use policy P of the mask generator (default %s)\n"
		"  help        print this list\n",
		site_enabled == RAA_ON ? "on" : "off", site_policy);
}

/* Parses the user's word list; every word must be known, so a typo is refused by srun. */
static int option_cb(int val, const char *optarg, int remote)
{
	(void) val;
	if (optarg == NULL || *optarg == '\0') {
		slurm_error(NAME ": --reduced-auto-affinity needs a value: on|off[,v][,policy=NAME]");
		return -1;
	}
	char bad[128];
	if (raa_parse_words(optarg, &user, bad, sizeof bad) != 0) {
		slurm_error(NAME ": invalid word '%s' in --reduced-auto-affinity=%.300s; expected on, off, v, policy=NAME or help",
			    bad, optarg);
		return -1;
	}
	if (user.help && !remote) {
		print_help();
		exit(0); /* srun, as for its own --help */
	}
	return 0;
}

/* plugstack.conf arguments; an unknown one fails plugin initialisation so a site typo is seen at once. */
static int parse_site_args(int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		const char *a = av[i];
		if (strcmp(a, "default=on") == 0) {
			site_enabled = RAA_ON;
		} else if (strcmp(a, "default=off") == 0) {
			site_enabled = RAA_OFF;
		} else if (strcmp(a, "verbose") == 0) {
			site_verbose = 1;
		} else if (strncmp(a, "policy=", 7) == 0 && raa_valid_policy(a + 7)) {
			snprintf(site_policy, sizeof site_policy, "%s", a + 7);
		} else if (strncmp(a, "generator=", 10) == 0 && a[10] != '\0' && strlen(a + 10) < sizeof(generator)) {
			snprintf(generator, sizeof generator, "%s", a + 10);
		} else if (strncmp(a, "timeout=", 8) == 0) {
			char *end = NULL;
			errno = 0;
			long t = strtol(a + 8, &end, 10);
			if (end == a + 8 || errno || *end != '\0' || t < 1 || t > 3600) {
				slurm_error(NAME ": plugstack argument '%s': timeout must be 1..3600 seconds", a);
				return -1;
			}
			timeout_seconds = (int) t;
		} else if (strcmp(a, "agent=none") == 0) {
			agent[0] = '\0';
		} else if (strncmp(a, "agent=", 6) == 0) {
			if (a[6] != '/' || strlen(a + 6) >= sizeof agent) {
				slurm_error(NAME ": plugstack argument '%s': the agent's socket must be an absolute path of at most "
					    "%zu bytes, or none", a, sizeof agent - 1);
				return -1;
			}
			snprintf(agent, sizeof agent, "%s", a + 6);
		} else {
			slurm_error(NAME ": unknown plugstack argument '%s'; known: default=on|off, verbose, policy=NAME, "
				    "generator=PATH, timeout=SECONDS, agent=PATH|none", a);
			return -1;
		}
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	(void) sp;
	return parse_site_args(ac, av);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/*
 * The binding the user asked srun for: srun exports --cpu-bind=TYPE as SLURM_CPU_BIND_TYPE into the step's
 * environment (before any task plugin has rewritten it): "cores", "map_cpu:" with the list in
 * SLURM_CPU_BIND_LIST, ...; empty for --cpu-bind=verbose or quiet alone, "none" for none. Returns 1 and the
 * request as the user would write it if there is one.
 */
static int srun_binds(spank_t sp, char *out, size_t len)
{
	char type[128] = "", list[1024] = "";
	if (spank_getenv(sp, "SLURM_CPU_BIND_TYPE", type, sizeof type) != ESPANK_SUCCESS || type[0] == '\0'
	    || strcmp(type, "none") == 0)
		return 0;
	size_t n = strlen(type);
	if (type[n - 1] == ':' && spank_getenv(sp, "SLURM_CPU_BIND_LIST", list, sizeof list) != ESPANK_SUCCESS)
		list[0] = '\0';
	int w = snprintf(out, len, "--cpu-bind=%s%s", type, list);
	if ((w < 0 || (size_t) w >= len) && len > 4)
		memcpy(out + len - 4, "...", 4); /* only quoted back to the user: a cut list says it was cut */
	return 1;
}

/* The marker file of "steps start the generator instead" for this socket: one per socket path, in /run. */
static void marker_path(char *buf, size_t len)
{
	int n = snprintf(buf, len, MARKER_DIR "/reduced-auto-affinity.fallback.");
	if (n < 0 || (size_t) n >= len)
		return;
	size_t at = (size_t) n;
	for (const char *c = agent; *c && at + 1 < len; c++)
		buf[at++] = *c == '/' ? '_' : *c;
	buf[at] = '\0';
}

/*
 * The privileged half, in slurmstepd before it switches to the job's user: whether this step is bound, the
 * connection to the agent (a connect as root: the agent serves root; SO_PEERCRED names the caller at connect
 * time) and the marker (root's file in /run). Connecting never blocks: the socket is non-blocking, and a unix
 * socket's connect either completes or fails at once (EAGAIN: the agent's backlog is full).
 */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	int enabled = user.enabled == RAA_UNSET ? site_enabled : user.enabled;
	if (enabled != RAA_ON)
		return 0;
	uint32_t stepid = 0;
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS && stepid >= 0xfffffff0u)
		return 0; /* batch script, extern or interactive step: no tasks to place */
	char binding[sizeof srun_binding];
	if (srun_binds(sp, binding, sizeof binding)) {
		if (user.enabled == RAA_ON) {
			/* Two explicit and different requests: running either one silently would surprise the user.
			 * Said in user_init: only from there do slurmstepd's errors reach the user's terminal. */
			snprintf(conflicting_binding, sizeof conflicting_binding, "%s", binding);
			refused = 1;
		} else {
			snprintf(srun_binding, sizeof srun_binding, "%s", binding); /* only the site default asked */
		}
		return 0;
	}
	active = 1; /* user_init computes the masks */
	if (agent[0] == '\0')
		return 0;
	char marker[sizeof agent + 64];
	marker_path(marker, sizeof marker);
	/* 0600: no user can open it, so none can hold its lock */
	marker_fd = open(marker, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	marker_errno = marker_fd < 0 ? errno : 0;
	agent_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (agent_fd < 0) {
		agent_connect_errno = errno;
		return 0;
	}
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", agent);
	if (connect(agent_fd, (struct sockaddr *) &addr, sizeof addr) != 0) {
		agent_connect_errno = errno;
		close(agent_fd);
		agent_fd = -1;
	}
	return 0;
}

struct run {
	int status;          /* wait status, valid when exited is set */
	int exited;
	int timed_out;
	int child_errno;     /* errno of what failed in the child before the program ran, 0 if it started */
	const char *child_step; /* what failed there */
	char *out;
	char *err;
};

static void free_run(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Reads what is there into buf (at most MAX_OUTPUT bytes kept); 0 at end of stream or on error, 1 to go on. */
static int drain(int fd, char *buf, size_t *len)
{
	char chunk[4096];
	ssize_t n = read(fd, chunk, sizeof chunk);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return 0;
	size_t take = (size_t) n;
	if (take > MAX_OUTPUT - *len)
		take = MAX_OUTPUT - *len; /* the rest is read and dropped: a babbling generator cannot block */
	memcpy(buf + *len, chunk, take);
	*len += take;
	buf[*len] = '\0';
	return 1;
}

/* The generator's path: as given when it names a directory, else the first executable file on slurmstepd's PATH. */
static int resolve(const char *name, char *path, size_t len)
{
	if (strchr(name, '/') != NULL) {
		snprintf(path, len, "%s", name);
		return 0;
	}
	const char *dirs = getenv("PATH");
	if (dirs == NULL)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (const char *d = dirs; *d;) {
		size_t n = strcspn(d, ":");
		struct stat st;
		int w = snprintf(path, len, "%.*s/%s", (int) n, d, name);
		if (n > 0 && w > 0 && (size_t) w < len && stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			return 0;
		d += n;
		if (*d == ':')
			d++;
	}
	errno = ENOENT;
	return -1;
}

/* Who the generator runs as: the job's user (slurmstepd's effective ids now), or nobody for root's steps. */
struct identity {
	uid_t uid;
	gid_t gid;
	int drop_groups; /* root's steps: no supplementary groups (a user's are set by slurmstepd already) */
};

static int generator_identity(struct identity *id, char *why, size_t why_len)
{
	id->uid = geteuid();
	id->gid = getegid();
	id->drop_groups = 0;
	if (id->uid != 0)
		return 0;
	struct passwd pw, *found = NULL;
	char buf[4096];
	int e = getpwnam_r(UNPRIVILEGED_USER, &pw, buf, sizeof buf, &found);
	if (found == NULL || pw.pw_uid == 0) {
		snprintf(why, why_len, "no user '" UNPRIVILEGED_USER "' to run the mask generator as (%s)",
			 e ? errtext(e, buf, sizeof buf) : "not in the user database");
		return -1;
	}
	id->uid = pw.pw_uid;
	id->gid = pw.pw_gid;
	id->drop_groups = 1;
	return 0;
}

/* The child's last word when it cannot run the program: which step failed and its errno. */
struct child_failure {
	int step;
	int err;
};

static const char *const child_steps[] = { "", "switching to the job's user", "changing to /", "exec" };

/* In the forked child: only async-signal-safe calls. Never returns. */
static void become_generator(const char *path, char *const argv[], const struct identity *id, int out, int err, int ex)
{
	struct child_failure f = { 0, 0 };
	/* slurmstepd blocks and ignores signals of its own: the generator starts clean */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(ex, 3) < 0
	    || fcntl(3, F_SETFD, FD_CLOEXEC) < 0) {
		f.step = 3;
		f.err = errno;
		goto fail_early;
	}
	/* every other descriptor of slurmstepd's (its sockets to srun and slurmd, the agent's, the marker) goes */
	if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
		for (int fd = 4; fd < 65536; fd++)
			close(fd);
	/* all three ids: slurmstepd switched only the effective one, its real and saved ids are still root's */
	if ((id->drop_groups && setgroups(0, NULL) != 0) || setresgid(id->gid, id->gid, id->gid) != 0
	    || setresuid(id->uid, id->uid, id->uid) != 0 || getuid() != id->uid || geteuid() != id->uid) {
		f.step = 1;
		f.err = errno ? errno : EPERM;
	} else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 && errno != EINVAL) {
		f.step = 1;
		f.err = errno;
	} else if (chdir("/") != 0) {
		f.step = 2;
		f.err = errno;
	} else {
		char *const env[] = { GENERATOR_PATH, NULL };
		execve(path, argv, env);
		f.step = 3;
		f.err = errno;
	}
	if (write(3, &f, sizeof f) < 0)
		_exit(127);
	_exit(127);
fail_early:
	if (write(ex, &f, sizeof f) < 0)
		_exit(127);
	_exit(127);
}

/* Waits for the child without blocking past deadline; kills its group then; gives up REAP_GRACE_MS later. */
static void reap(pid_t pid, struct run *r, long deadline)
{
	long give_up = deadline + REAP_GRACE_MS;
	while (!r->exited) {
		pid_t w = waitpid(pid, &r->status, WNOHANG);
		if (w == pid) {
			r->exited = 1;
		} else if (w < 0 && errno != EINTR) {
			return;
		} else if (w == 0) {
			long t = now_ms();
			if (t >= give_up)
				return; /* not reapable (uninterruptible sleep): slurmstepd reaps it when it ends */
			if (t >= deadline && !r->timed_out) {
				r->timed_out = 1;
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
			}
			sleep_ms(5);
		}
	}
}

/* Runs the generator with a deadline, as id, collecting stdout and stderr; never waits past the timeout. */
static int run_generator(char *const argv[], const struct identity *id, struct run *r)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, ex[2] = { -1, -1 };
	char path[4096];
	memset(r, 0, sizeof *r);
	if (resolve(argv[0], path, sizeof path) != 0) {
		r->child_errno = errno;
		r->child_step = child_steps[3];
		return 0;
	}
	r->out = calloc(1, MAX_OUTPUT + 1);
	r->err = calloc(1, MAX_OUTPUT + 1);
	int rc = -1;
	if (!r->out || !r->err || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		goto done;
	pid_t pid = fork();
	if (pid < 0)
		goto done;
	if (pid == 0)
		become_generator(path, argv, id, out[1], err[1], ex[1]);
	setpgid(pid, pid);
	close(out[1]);
	close(err[1]);
	close(ex[1]);
	out[1] = err[1] = ex[1] = -1;
	size_t out_len = 0, err_len = 0;
	int open_out = 1, open_err = 1;
	long deadline = now_ms() + timeout_seconds * 1000L;
	while (open_out || open_err) {
		long left = deadline - now_ms();
		if (left <= 0) {
			r->timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		struct pollfd fds[2] = { { open_out ? out[0] : -1, POLLIN, 0 }, { open_err ? err[0] : -1, POLLIN, 0 } };
		int n = poll(fds, 2, (int) (left > 1000 ? 1000 : left));
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (open_out && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			open_out = drain(out[0], r->out, &out_len);
		if (open_err && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
			open_err = drain(err[0], r->err, &err_len);
	}
	/* Output closed: the generator is exiting; still bound the wait by the deadline. */
	reap(pid, r, deadline);
	struct child_failure f;
	if (read(ex[0], &f, sizeof f) == (ssize_t) sizeof f && f.step > 0 && f.step < 4) {
		r->child_errno = f.err;
		r->child_step = child_steps[f.step];
	}
	rc = 0;
done:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (ex[i] >= 0)
			close(ex[i]);
	}
	return rc;
}

/* Who answered: the generator's path or the agent's socket, for messages. */
static char source[sizeof generator + 64] = "";

enum { AGENT_ANSWERED, AGENT_ABSENT, AGENT_FAULTY };

/* The largest request the agent reads (AgentCodec.MAX_REQUEST) and the largest reply taken from it. */
#define AGENT_MAX_REQUEST (64 * 1024)
#define AGENT_MAX_REPLY (4 * 1024 * 1024)

/* Appends key+value and its NUL to a frame under construction; -1 when it would not fit. */
static int put_item(char *buf, size_t *len, size_t cap, const char *key, const char *value)
{
	size_t k = strlen(key), v = strlen(value);
	if (*len + k + v + 1 > cap)
		return -1;
	memcpy(buf + *len, key, k);
	memcpy(buf + *len + k, value, v + 1);
	*len += k + v + 1;
	return 0;
}

/* Waits until fd is ready for events; 0 ready, -1 the deadline passed or poll failed. */
static int await_fd(int fd, short events, long deadline)
{
	for (;;) {
		long left = deadline - now_ms();
		if (left <= 0)
			return -1;
		struct pollfd p = { fd, events, 0 };
		int n = poll(&p, 1, (int) (left > 1000 ? 1000 : left));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

/* Reads exactly n bytes: 0 done, -1 the deadline passed, -2 the agent hung up. */
static int read_exactly(int fd, char *into, size_t n, long deadline)
{
	size_t got = 0;
	while (got < n) {
		if (await_fd(fd, POLLIN, deadline) < 0)
			return -1;
		ssize_t k = read(fd, into + got, n - got);
		if (k == 0)
			return -2;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -2;
		}
		got += (size_t) k;
	}
	return 0;
}

/* A stream of the agent's answer, kept as the generator's would be (at most MAX_OUTPUT bytes). */
static char *copy_stream(const char *text)
{
	char *buf = calloc(1, MAX_OUTPUT + 1);
	if (buf != NULL) {
		size_t n = strnlen(text, MAX_OUTPUT);
		memcpy(buf, text, n);
	}
	return buf;
}

/*
 * Asks the agent, on the connection made while root, what `GENERATOR affinity ARGS` would answer (argv as for the
 * generator). AGENT_ANSWERED with r filled as if the generator had run and exited; AGENT_ABSENT when nobody
 * listens on the socket; AGENT_FAULTY when something listens but gives no whole answer in time, or does not serve
 * the call; why says what happened. Closes the connection.
 */
static int ask_agent(char *const argv[], struct run *r, char *why, size_t why_len)
{
	memset(r, 0, sizeof *r);
	if (agent_fd < 0) {
		char e[128];
		int c = agent_connect_errno;
		snprintf(why, why_len, "no affinity agent answers on %s (%s)", agent, errtext(c, e, sizeof e));
		/* EAGAIN: its backlog is full, it is there but swamped */
		return c == ENOENT || c == ECONNREFUSED || c == ENOTDIR ? AGENT_ABSENT : AGENT_FAULTY;
	}
	int fd = agent_fd;
	agent_fd = -1;
	char *request = malloc(AGENT_MAX_REQUEST + 4);
	if (request == NULL) {
		close(fd);
		snprintf(why, why_len, "no memory for the agent's request");
		return AGENT_FAULTY;
	}
	size_t len = 4;
	int too_big = put_item(request, &len, AGENT_MAX_REQUEST + 4, "v=", "1");
	for (int i = 2; argv[i] != NULL && !too_big; i++)
		too_big = put_item(request, &len, AGENT_MAX_REQUEST + 4, "arg=", argv[i]);
	if (too_big) {
		free(request);
		close(fd);
		snprintf(why, why_len, "the request is over the agent's limit of %d bytes", AGENT_MAX_REQUEST);
		return AGENT_FAULTY;
	}
	uint32_t body = (uint32_t) (len - 4);
	request[0] = (char) (body >> 24);
	request[1] = (char) (body >> 16);
	request[2] = (char) (body >> 8);
	request[3] = (char) body;

	int limit = timeout_seconds < AGENT_SECONDS ? timeout_seconds : AGENT_SECONDS;
	long deadline = now_ms() + 1000L * limit;
	int failed = 0;
	for (size_t sent = 0; sent < len;) {
		if (await_fd(fd, POLLOUT, deadline) < 0) {
			failed = 1;
			break;
		}
		/* MSG_NOSIGNAL: an agent that hung up is a reason to start the generator, not a SIGPIPE in slurmstepd */
		ssize_t w = send(fd, request + sent, len - sent, MSG_NOSIGNAL);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0)
			break; /* it may have answered and hung up (unserved): read its answer */
		sent += (size_t) w;
	}
	free(request);
	shutdown(fd, SHUT_WR);
	unsigned char head[4];
	char *reply = NULL;
	uint32_t n = 0;
	int got = failed ? -1 : read_exactly(fd, (char *) head, 4, deadline);
	if (got == 0) {
		n = (uint32_t) head[0] << 24 | (uint32_t) head[1] << 16 | (uint32_t) head[2] << 8 | head[3];
		if (n > AGENT_MAX_REPLY || (reply = malloc((size_t) n + 1)) == NULL)
			got = -3;
		else
			got = read_exactly(fd, reply, n, deadline);
	}
	close(fd);
	if (got != 0) {
		free(reply);
		if (got == -1)
			snprintf(why, why_len, "the affinity agent on %s gave no answer within %d s", agent, limit);
		else if (got == -3)
			snprintf(why, why_len, "the affinity agent on %s announced a reply of %u bytes (limit %d)", agent, n,
				 AGENT_MAX_REPLY);
		else
			snprintf(why, why_len, "the affinity agent on %s hung up without a whole answer", agent);
		return AGENT_FAULTY;
	}
	struct raa_reply parsed;
	int rc = AGENT_FAULTY;
	switch (raa_parse_reply(reply, n, &parsed)) {
	case RAA_REPLY_UNSERVED:
		snprintf(why, why_len, "the affinity agent on %s did not serve the call: %.300s", agent, parsed.unserved);
		break;
	case RAA_REPLY_ANSWER:
		if ((r->out = copy_stream(parsed.out)) == NULL || (r->err = copy_stream(parsed.err)) == NULL) {
			snprintf(why, why_len, "no memory for the agent's answer");
		} else {
			r->exited = 1;
			r->status = parsed.exit_code << 8; /* as waitpid reports an exit with that code */
			rc = AGENT_ANSWERED;
		}
		break;
	case RAA_REPLY_MALFORMED:
		snprintf(why, why_len, "the affinity agent on %s answered something else than exit=N out= err= or unserved=",
			 agent);
		break;
	}
	free(reply);
	if (rc != AGENT_ANSWERED)
		free_run(r);
	return rc;
}

/*
 * Takes the marker's lock, waiting at most MARKER_LOCK_MS (only plugin instances, as root, can open the file;
 * each holds the lock for microseconds). 0 held, -1 not.
 */
static int lock_marker(void)
{
	long give_up = now_ms() + MARKER_LOCK_MS;
	while (flock(marker_fd, LOCK_EX | LOCK_NB) != 0) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || now_ms() >= give_up)
			return -1;
		sleep_ms(1);
	}
	return 0;
}

/*
 * Tells slurmd's log (info: no agent; error, which also reaches the user's terminal: an agent that answers
 * wrongly) that this step starts the generator instead, once: the first step to find the marker empty writes the
 * reason into it and says it, the next ones find it written and stay quiet, until a step the agent answers empties
 * it. slurmstepd is a process per step, so a marker on the node is what makes "once" mean once per node and outage
 * rather than once per step. The file was opened as root; reading and writing it needs no privilege.
 */
static void say_fallback_once(int faulty, const char *why)
{
	char marker[sizeof agent + 64], note[sizeof marker + 192], e[128];
	marker_path(marker, sizeof marker);
	int say = 1;
	if (marker_fd < 0) {
		snprintf(note, sizeof note, "said at every step: cannot open %s: %s", marker, errtext(marker_errno, e, sizeof e));
	} else if (lock_marker() != 0) {
		snprintf(note, sizeof note, "said at every step: %s stayed locked", marker);
	} else {
		struct stat st;
		if (fstat(marker_fd, &st) == 0 && st.st_size > 0) {
			say = 0;
		} else {
			snprintf(note, sizeof note, "said once, until an agent answers again (%s)", marker);
			if (dprintf(marker_fd, "%.1000s\n", why) < 0)
				snprintf(note, sizeof note, "said at every step: cannot write %s: %s", marker,
					 errtext(errno, e, sizeof e));
		}
		flock(marker_fd, LOCK_UN);
	}
	if (!say)
		return;
	if (faulty)
		slurm_error(NAME ": %s; starting mask generator %s instead (%s)", why, generator, note);
	else
		slurm_info(NAME ": %s; steps start mask generator %s instead, which is slower (%s)", why, generator, note);
}

/* An agent answered: the next fallback is news again. */
static void forget_fallback(void)
{
	if (marker_fd >= 0 && lock_marker() == 0) {
		struct stat st;
		if (fstat(marker_fd, &st) == 0 && st.st_size > 0 && ftruncate(marker_fd, 0) != 0)
			slurm_info(NAME ": cannot empty the fallback marker: %m");
		flock(marker_fd, LOCK_UN);
	}
}

static int read_int(int cpu, const char *file)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	FILE *f = fopen(path, "re");
	int v = -1;
	if (f == NULL)
		return -1;
	if (fscanf(f, "%9d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* A file holding a Linux CPU list (sysfs's present, online); 0, or -1 if it cannot be read as one. */
static int read_list(const char *path, cpu_set_t *set)
{
	char text[4096];
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int ok = fgets(text, sizeof text, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	text[strcspn(text, "\n")] = '\0';
	return raa_parse_list(text, set);
}

struct cpu_core {
	int cpu, package, core;
};

static int by_core(const void *a, const void *b)
{
	const struct cpu_core *x = a, *y = b;
	if (x->package != y->package)
		return x->package < y->package ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/*
 * Keeps in *set only the CPUs of the step's cores. Without task/cgroup nothing narrows slurmstepd to the step's
 * allocation, so in a node shared with other jobs the tasks would be placed on their cores. Slurm names the
 * step's cores (S_STEP_ALLOC_CORES) by their index on the node, counted socket by socket, core by core, in
 * hwloc's order, which is sysfs's (package id, core id) order. Returns 0, or -1 with the reason printed.
 */
static int narrow_to_step_cores(spank_t sp, cpu_set_t *set)
{
	char *step_cores = NULL;
	cpu_set_t cores;
	if (spank_get_item(sp, S_STEP_ALLOC_CORES, &step_cores) != ESPANK_SUCCESS || step_cores == NULL
	    || raa_parse_list(step_cores, &cores) != 0)
		return 0; /* Slurm does not say: keep slurmstepd's own CPUs */
	struct cpu_core *all = calloc(CPU_SETSIZE, sizeof *all);
	if (all == NULL)
		return -1;
	/* Only the CPUs the kernel knows of: trying all CPU_SETSIZE of them cost 3-15 ms of failed opens per step. */
	cpu_set_t present;
	if (read_list("/sys/devices/system/cpu/present", &present) != 0) {
		CPU_ZERO(&present);
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET((size_t) c, &present);
	}
	int n = 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET((size_t) c, &present))
			continue;
		int package = read_int(c, "physical_package_id"), core = read_int(c, "core_id");
		if (package >= 0 && core >= 0)
			all[n++] = (struct cpu_core) { c, package, core };
	}
	qsort(all, (size_t) n, sizeof *all, by_core);
	cpu_set_t step;
	CPU_ZERO(&step);
	for (int i = 0, index = -1; i < n; i++) {
		if (i == 0 || all[i].package != all[i - 1].package || all[i].core != all[i - 1].core)
			index++;
		if (index < CPU_SETSIZE && CPU_ISSET((size_t) index, &cores))
			CPU_SET((size_t) all[i].cpu, &step);
	}
	free(all);
	CPU_AND(set, set, &step);
	if (CPU_COUNT(set) == 0) {
		slurm_error(NAME ": the step's cores %s (Slurm's numbering) hold none of the CPUs slurmstepd may use; "
			    "does slurm.conf describe this node's sockets and cores?", step_cores);
		return -1;
	}
	return 0;
}

/* What init_post_opt opened, once user_init is done with it (the tasks need neither). */
static void close_privileged(void)
{
	if (agent_fd >= 0) {
		close(agent_fd);
		agent_fd = -1;
	}
	if (marker_fd >= 0) {
		close(marker_fd);
		marker_fd = -1;
	}
}

/* The answer (agent's or generator's) as the step's masks, or the reason it has none on the user's terminal. */
static int take_answer(struct run *r, uint32_t cpt, const char *allowed_list, const char *policy)
{
	if (r->child_errno) {
		char e[128];
		int exec = r->child_step == child_steps[3];
		slurm_error(NAME ": mask generator '%s' cannot be run: %s%s%s%s", generator, exec ? "" : r->child_step,
			    exec ? "" : ": ", errtext(r->child_errno, e, sizeof e),
			    exec ? " (set generator=PATH in plugstack.conf)" : "");
	} else if (r->timed_out) {
		slurm_error(NAME ": mask generator %s gave no answer within %d s and was killed (plugstack timeout=%d)",
			    generator, timeout_seconds, timeout_seconds);
	} else if (!r->exited || !WIFEXITED(r->status)) {
		slurm_error(NAME ": mask generator %s was killed by signal %d", generator,
			    r->exited && WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0);
	} else if (WEXITSTATUS(r->status) == 1) {
		slurm_error(NAME ": %s (%u tasks, cpus-per-task %u, CPUs %s, policy %s)", raa_reason(r->err), local_tasks, cpt,
			    allowed_list, policy);
	} else if (WEXITSTATUS(r->status) != 0) {
		slurm_error(NAME ": mask generator %s failed with exit code %d: %s", source, WEXITSTATUS(r->status),
			    raa_reason(r->err));
	} else {
		char why[512];
		masks = calloc(local_tasks, sizeof(cpu_set_t));
		if (masks == NULL) {
			slurm_error(NAME ": no memory for the masks of %u tasks", local_tasks);
		} else if (raa_parse_tasks(r->out, local_tasks, masks, why, sizeof why) != 0) {
			slurm_error(NAME ": mask generator %s %s", source, why);
		} else {
			return 0;
		}
	}
	return -1;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (!spank_remote(sp))
		return 0;
	if (conflicting_binding[0]) {
		slurm_error(NAME ": srun %s and --reduced-auto-affinity both bind the tasks; ask for one of them "
			    "(--cpu-bind=none with --reduced-auto-affinity=on, or --reduced-auto-affinity=off)", conflicting_binding);
		return 0;
	}
	if (!active)
		return 0;
	/* Failing user_init would fail the launch, yet srun 22.05 then exits 0 as if the step had run; instead
	 * every task ends in task_init, before its program runs, so the step and srun exit 1. */
	active = 0;
	refused = 1;
	uint32_t cpt = 1;
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local_tasks) != ESPANK_SUCCESS || local_tasks == 0) {
		slurm_error(NAME ": cannot read the number of local tasks");
		close_privileged();
		return 0;
	}
	if (spank_get_item(sp, S_STEP_CPUS_PER_TASK, &cpt) != ESPANK_SUCCESS || cpt == 0)
		cpt = 1;
	/* task/cgroup has put slurmstepd in the step's cpuset by now; the step's cores narrow it where not. */
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
		slurm_error(NAME ": cannot read the step's CPUs: %m");
		close_privileged();
		return 0;
	}
	if (narrow_to_step_cores(sp, &allowed) != 0) {
		close_privileged();
		return 0;
	}
	char allowed_list[8192], ntasks_arg[16], cpt_arg[16];
	raa_format_cpus(&allowed, 2, allowed_list, sizeof allowed_list);
	snprintf(ntasks_arg, sizeof ntasks_arg, "%u", local_tasks);
	snprintf(cpt_arg, sizeof cpt_arg, "%u", cpt);
	const char *policy = user.policy[0] ? user.policy : site_policy;
	char *argv[] = { generator, "affinity", "--topology", "sysfs", "--ntasks", ntasks_arg, "--cpus-per-task", cpt_arg,
			 "--allowed", allowed_list, "--policy", (char *) policy, "--format", "tasks", NULL };
	struct run r;
	memset(&r, 0, sizeof r);
	int answered = 0;
	snprintf(source, sizeof source, "%s", generator);
	if (agent[0]) {
		char why[1024];
		int got = ask_agent(argv, &r, why, sizeof why);
		if (got == AGENT_ANSWERED) {
			answered = 1;
			snprintf(source, sizeof source, "(affinity agent on %s)", agent);
			forget_fallback();
		} else {
			say_fallback_once(got == AGENT_FAULTY, why);
		}
	}
	if (!answered) {
		struct identity id;
		char why[256];
		if (generator_identity(&id, why, sizeof why) != 0) {
			slurm_error(NAME ": %s", why);
			close_privileged();
			return 0;
		}
		if (run_generator(argv, &id, &r) != 0) {
			slurm_error(NAME ": cannot start mask generator %s: %m", generator);
			free_run(&r);
			close_privileged();
			return 0;
		}
	}
	if (take_answer(&r, cpt, allowed_list, policy) == 0) {
		active = 1;
		refused = 0;
		verbose = user.verbose == RAA_UNSET ? site_verbose : user.verbose;
	}
	free_run(&r);
	close_privileged();
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (refused)
		_exit(1); /* not return -1, which spank ignores for plugins loaded as "optional" */
	uint32_t global_id = 1;
	if (srun_binding[0] && spank_get_item(sp, S_TASK_GLOBAL_ID, &global_id) == ESPANK_SUCCESS && global_id == 0) {
		fprintf(stderr, NAME ": not binding: srun %s binds the tasks\n", srun_binding);
		fflush(stderr);
	}
	if (!active || masks == NULL)
		return 0;
	int id = -1;
	if (spank_get_item(sp, S_TASK_ID, &id) != ESPANK_SUCCESS || id < 0 || (uint32_t) id >= local_tasks) {
		slurm_error(NAME ": cannot read the local task id");
		_exit(1);
	}
	if (sched_setaffinity(0, sizeof masks[id], &masks[id]) != 0) {
		char list[8192];
		raa_format_cpus(&masks[id], 2, list, sizeof list);
		slurm_error(NAME ": local task %d: cannot bind to CPUs %s: %m", id, list);
		_exit(1);
	}
	if (verbose) {
		char list[8192];
		raa_format_cpus(&masks[id], 3, list, sizeof list);
		fprintf(stderr, NAME ": local task %d: CPUs: %s\n", id, list);
		fflush(stderr);
	}
	return 0;
}

/* The step ends: what init_post_opt opened and user_init did not use. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void) sp;
	(void) ac;
	(void) av;
	close_privileged();
	free(masks);
	masks = NULL;
	return 0;
}
