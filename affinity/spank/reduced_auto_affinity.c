/*
 * reduced-auto-affinity: a SPANK plugin that binds each task of a step to the CPU set the alpsbridge mask
 * generator computes for it (one hardware thread per core, cpus-per-task adjacent cores, each task inside
 * one socket; or another policy of the generator).
 *
 *   srun --reduced-auto-affinity=on|off[,v][,policy=NAME] ...
 *
 * plugstack.conf:
 *   optional /path/reduced_auto_affinity.so [default=on|off] [verbose] [policy=NAME]
 *                                           [generator=/path/bin/alpsbridge] [timeout=SECONDS]
 *                                           [agent=/run/alpsbridge-affinity/agent.sock|none]
 *
 * Once per node and step (slurm_spank_user_init, in slurmstepd) it asks for
 *   affinity --topology sysfs --ntasks N --cpus-per-task C --allowed CPUS --policy P --format tasks
 * with N the step's tasks on this node, C its cpus-per-task and CPUS the CPUs slurmstepd may use, and reads one
 * "<localid> <cpulist>" line per task. It asks the resident `alpsbridge affinity agent` over its unix socket
 * first (AgentCodec.java: the same arguments in, the generator's exit code, stdout and stderr out), so no JVM
 * starts per step; when no agent answers it runs GENERATOR with those arguments itself, and says so once in
 * slurmd's log (again only after an agent has answered in between). The masks come from the same Java code
 * either way: there is no placement logic here. In slurm_spank_task_init each task applies its own set with
 * sched_setaffinity and, with v, prints "reduced-auto-affinity: local task N: CPUs: LIST" on its stderr.
 * A rejection, a generator that is missing, hangs past the timeout or prints something else fails the step
 * before any task program runs, with the reason on the user's terminal.
 * CPUS is slurmstepd's affinity (task/cgroup has put it in the step's cpuset by user_init) narrowed to the step's
 * cores. A binding the user asked srun for (--cpu-bind=X, X not none) refuses the step when the user also asked
 * for this plugin, and makes the plugin stand back, saying so, when only the site default asked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

SPANK_PLUGIN(reduced-auto-affinity, 1);

#define NAME "reduced-auto-affinity"
#define MAX_OUTPUT (1 << 20)
#define MAX_POLICY 64

enum { UNSET = -1, OFF = 0, ON = 1 };

/* Site settings from plugstack.conf. */
static int site_enabled = OFF;
static int site_verbose = 0;
static char site_policy[MAX_POLICY] = "reduced";
static char generator[4096] = "alpsbridge";
static int timeout_seconds = 30;
/* The agent's socket; "" for agent=none. */
static char agent[sizeof(((struct sockaddr_un *) 0)->sun_path)] = "/run/alpsbridge-affinity/agent.sock";
/* How long the agent may take (at most timeout=): it answers in milliseconds, a hung one is not waited for. */
#define AGENT_SECONDS 10
/* Where "the generator is started instead" is remembered (see say_fallback_once). */
#define MARKER_DIR "/run"

/* The user's --reduced-auto-affinity words. */
static int user_enabled = UNSET;
static int user_verbose = UNSET;
static char user_policy[MAX_POLICY] = "";

/* Computed once per node and step in user_init; the forked tasks inherit it. */
static int active = 0;
static int refused = 0;
static int verbose = 0;
static uint32_t local_tasks = 0;
static cpu_set_t *masks = NULL;
/* The binding the user asked srun for, when this plugin stands back for it ("" otherwise). */
static char srun_binding[256] = "";

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

static int valid_policy(const char *p)
{
	size_t n = strlen(p);
	if (n == 0 || n >= MAX_POLICY)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '-'))
			return 0;
	return 1;
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
		site_enabled == ON ? "on" : "off", site_policy);
}

/* Parses the user's word list; every word must be known, so a typo is refused by srun. */
static int option_cb(int val, const char *optarg, int remote)
{
	(void) val;
	if (optarg == NULL || *optarg == '\0') {
		slurm_error(NAME ": --reduced-auto-affinity needs a value: on|off[,v][,policy=NAME]");
		return -1;
	}
	char *copy = strdup(optarg);
	if (copy == NULL)
		return -1;
	int rc = 0;
	char *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "on") == 0) {
			user_enabled = ON;
		} else if (strcmp(w, "off") == 0) {
			user_enabled = OFF;
		} else if (strcmp(w, "v") == 0 || strcmp(w, "verbose") == 0) {
			user_verbose = 1;
			if (user_enabled == UNSET)
				user_enabled = ON;
		} else if (strncmp(w, "policy=", 7) == 0 && valid_policy(w + 7)) {
			strcpy(user_policy, w + 7);
		} else if (strcmp(w, "help") == 0) {
			if (!remote) {
				print_help();
				exit(0);
			}
		} else {
			slurm_error(NAME ": invalid word '%s' in --reduced-auto-affinity=%s; expected on, off, v, policy=NAME or help",
				    w, optarg);
			rc = -1;
		}
	}
	free(copy);
	return rc;
}

/* plugstack.conf arguments; an unknown one fails plugin initialisation so a site typo is seen at once. */
static int parse_site_args(int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		const char *a = av[i];
		if (strcmp(a, "default=on") == 0) {
			site_enabled = ON;
		} else if (strcmp(a, "default=off") == 0) {
			site_enabled = OFF;
		} else if (strcmp(a, "verbose") == 0) {
			site_verbose = 1;
		} else if (strncmp(a, "policy=", 7) == 0 && valid_policy(a + 7)) {
			strcpy(site_policy, a + 7);
		} else if (strncmp(a, "generator=", 10) == 0 && a[10] != '\0' && strlen(a + 10) < sizeof(generator)) {
			strcpy(generator, a + 10);
		} else if (strncmp(a, "timeout=", 8) == 0) {
			char *end = NULL;
			long t = strtol(a + 8, &end, 10);
			if (end == a + 8 || *end != '\0' || t < 1 || t > 3600) {
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
			strcpy(agent, a + 6);
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

/*
 * A CPU set as text: runs of at least min_range CPUs as a-b, shorter runs CPU by CPU. min_range 2 gives the
 * Linux list ("0-3,8"); 3 gives the seed's verbose style (util-linux cstr: a pair is written "4,5").
 */
static void format_cpus(const cpu_set_t *set, int min_range, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		for (int k = c; k <= e; k++) {
			int n = e - c + 1 >= min_range
				? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, e)
				: snprintf(buf + used, len - used, "%s%d", used ? "," : "", k);
			if (n < 0 || (size_t) n >= len - used)
				return;
			used += (size_t) n;
			if (e - c + 1 >= min_range)
				break;
		}
		c = e;
	}
}

/* Parses a Linux CPU list; returns 0, or -1 if it is not one. */
static int parse_list(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (*s == '\0')
		return -1;
	while (*s) {
		char *end;
		errno = 0;
		long lo = strtol(s, &end, 10);
		if (end == s || errno || lo < 0 || lo >= CPU_SETSIZE)
			return -1;
		long hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			hi = strtol(s, &end, 10);
			if (end == s || errno || hi < lo || hi >= CPU_SETSIZE)
				return -1;
			s = end;
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET((int) c, set);
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -1;
	}
	return 0;
}

struct run {
	int status;          /* wait status, valid when exited is set */
	int exited;
	int timed_out;
	int exec_errno;      /* errno of a failed exec, 0 if the program started */
	char *out;
	char *err;
};

static int drain(int fd, char **buf, size_t *len)
{
	char chunk[4096];
	ssize_t n = read(fd, chunk, sizeof chunk);
	if (n <= 0)
		return n == 0 || (errno != EINTR && errno != EAGAIN) ? 0 : 1;
	if (*len + (size_t) n > MAX_OUTPUT)
		n = (ssize_t) (MAX_OUTPUT - *len);
	memcpy(*buf + *len, chunk, (size_t) n);
	*len += (size_t) n;
	(*buf)[*len] = '\0';
	return 1;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Runs argv with a deadline, collecting stdout and stderr; never waits past the timeout. */
static int run_generator(char *const argv[], struct run *r)
{
	int out[2], err[2], ex[2];
	memset(r, 0, sizeof *r);
	r->out = calloc(1, MAX_OUTPUT + 1);
	r->err = calloc(1, MAX_OUTPUT + 1);
	if (!r->out || !r->err || pipe(out) || pipe(err) || pipe2(ex, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		close(ex[0]);
		execvp(argv[0], argv);
		int e = errno;
		if (write(ex[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);
	close(out[1]);
	close(err[1]);
	close(ex[1]);
	size_t out_len = 0, err_len = 0;
	int open_out = 1, open_err = 1;
	long deadline = now_ms() + timeout_seconds * 1000L;
	while (open_out || open_err) {
		long left = deadline - now_ms();
		if (left <= 0) {
			r->timed_out = 1;
			break;
		}
		struct pollfd fds[2] = { { open_out ? out[0] : -1, POLLIN, 0 }, { open_err ? err[0] : -1, POLLIN, 0 } };
		int n = poll(fds, 2, (int) (left > 1000 ? 1000 : left));
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (open_out && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			open_out = drain(out[0], &r->out, &out_len);
		if (open_err && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
			open_err = drain(err[0], &r->err, &err_len);
	}
	if (r->timed_out)
		kill(-pid, SIGKILL);
	/* Output closed: the generator is exiting; still bound the wait by the deadline. */
	while (!r->exited) {
		pid_t w = waitpid(pid, &r->status, r->timed_out ? 0 : WNOHANG);
		if (w == pid) {
			r->exited = 1;
		} else if (w < 0 && errno != EINTR) {
			break;
		} else if (w == 0) {
			if (now_ms() >= deadline) {
				r->timed_out = 1;
				kill(-pid, SIGKILL);
			} else {
				usleep(10000);
			}
		}
	}
	int e = 0;
	if (read(ex[0], &e, sizeof e) == (ssize_t) sizeof e)
		r->exec_errno = e;
	close(out[0]);
	close(err[0]);
	close(ex[0]);
	return 0;
}

static void free_run(struct run *r)
{
	free(r->out);
	free(r->err);
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
	size_t need = strlen(key) + strlen(value) + 1;
	if (*len + need > cap)
		return -1;
	memcpy(buf + *len, key, strlen(key));
	memcpy(buf + *len + strlen(key), value, strlen(value) + 1);
	*len += need;
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
		size_t n = strlen(text);
		memcpy(buf, text, n > MAX_OUTPUT ? MAX_OUTPUT : n);
	}
	return buf;
}

/*
 * Asks the agent what `GENERATOR affinity ARGS` would answer (argv as for the generator). AGENT_ANSWERED with r
 * filled as if the generator had run and exited; AGENT_ABSENT when nobody listens on the socket; AGENT_FAULTY
 * when something listens but gives no whole answer in time, or does not serve the call; why says what happened.
 */
static int ask_agent(char *const argv[], struct run *r, char *why, size_t why_len)
{
	memset(r, 0, sizeof *r);
	char *request = malloc(AGENT_MAX_REQUEST + 4);
	if (request == NULL) {
		snprintf(why, why_len, "no memory for the agent's request");
		return AGENT_FAULTY;
	}
	size_t len = 4;
	int too_big = put_item(request, &len, AGENT_MAX_REQUEST + 4, "v=", "1");
	for (int i = 2; argv[i] != NULL && !too_big; i++)
		too_big = put_item(request, &len, AGENT_MAX_REQUEST + 4, "arg=", argv[i]);
	if (too_big) {
		free(request);
		snprintf(why, why_len, "the request is over the agent's limit of %d bytes", AGENT_MAX_REQUEST);
		return AGENT_FAULTY;
	}
	uint32_t body = (uint32_t) (len - 4);
	request[0] = (char) (body >> 24);
	request[1] = (char) (body >> 16);
	request[2] = (char) (body >> 8);
	request[3] = (char) body;

	long deadline = now_ms() + 1000L * (timeout_seconds < AGENT_SECONDS ? timeout_seconds : AGENT_SECONDS);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		free(request);
		snprintf(why, why_len, "cannot make a unix socket: %s", strerror(errno));
		return AGENT_FAULTY;
	}
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	strcpy(addr.sun_path, agent);
	if (connect(fd, (struct sockaddr *) &addr, sizeof addr) != 0) {
		int e = errno;
		close(fd);
		free(request);
		snprintf(why, why_len, "no affinity agent answers on %s (%s)", agent, strerror(e));
		/* EAGAIN: its backlog is full, it is there but swamped */
		return e == ENOENT || e == ECONNREFUSED || e == ENOTDIR ? AGENT_ABSENT : AGENT_FAULTY;
	}
	int failed = 0;
	for (size_t sent = 0; sent < len && !failed;) {
		if (await_fd(fd, POLLOUT, deadline) < 0) {
			failed = -1;
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
		if (n > AGENT_MAX_REPLY || (reply = malloc(n + 1)) == NULL)
			got = -3;
		else
			got = read_exactly(fd, reply, n, deadline);
	}
	close(fd);
	if (got != 0) {
		free(reply);
		if (got == -1)
			snprintf(why, why_len, "the affinity agent on %s gave no answer within %d s", agent,
				 timeout_seconds < AGENT_SECONDS ? timeout_seconds : AGENT_SECONDS);
		else if (got == -3)
			snprintf(why, why_len, "the affinity agent on %s announced a reply of %u bytes (limit %d)", agent, n,
				 AGENT_MAX_REPLY);
		else
			snprintf(why, why_len, "the affinity agent on %s hung up without a whole answer", agent);
		return AGENT_FAULTY;
	}
	reply[n] = '\0';
	/* exit=N NUL out=TEXT NUL err=TEXT NUL, or unserved=REASON NUL */
	const char *item[3] = { NULL, NULL, NULL };
	int items = 0;
	for (uint32_t at = 0; n > 0 && reply[n - 1] == '\0' && at < n; at += (uint32_t) strlen(reply + at) + 1) {
		if (items == 3) {
			items = 0; /* more than three items: not a reply of this version */
			break;
		}
		item[items++] = reply + at;
	}
	int rc = AGENT_FAULTY;
	if (items == 1 && strncmp(item[0], "unserved=", 9) == 0) {
		snprintf(why, why_len, "the affinity agent on %s did not serve the call: %.300s", agent, item[0] + 9);
	} else if (items == 3 && strncmp(item[0], "exit=", 5) == 0 && strncmp(item[1], "out=", 4) == 0
		   && strncmp(item[2], "err=", 4) == 0) {
		char *end = NULL;
		long code = strtol(item[0] + 5, &end, 10);
		if (end == item[0] + 5 || *end != '\0' || code < 0 || code > 255) {
			snprintf(why, why_len, "the affinity agent on %s answered exit code '%.20s'", agent, item[0] + 5);
		} else if ((r->out = copy_stream(item[1] + 4)) == NULL || (r->err = copy_stream(item[2] + 4)) == NULL) {
			snprintf(why, why_len, "no memory for the agent's answer");
		} else {
			r->exited = 1;
			r->status = (int) (code & 0xff) << 8; /* as waitpid reports an exit with that code */
			rc = AGENT_ANSWERED;
		}
	} else {
		snprintf(why, why_len, "the affinity agent on %s answered something else than exit=N out= err= or unserved=",
			 agent);
	}
	free(reply);
	if (rc != AGENT_ANSWERED) {
		free_run(r);
		memset(r, 0, sizeof *r);
	}
	return rc;
}

/* The marker file of "steps start the generator instead" for this socket: one per socket path, in /run. */
static void marker_path(char *buf, size_t len)
{
	int n = snprintf(buf, len, MARKER_DIR "/reduced-auto-affinity.fallback.");
	for (const char *c = agent; *c && (size_t) n + 1 < len; c++)
		buf[n++] = *c == '/' ? '_' : *c;
	buf[n < (int) len ? n : (int) len - 1] = '\0';
}

/*
 * Tells slurmd's log (info: no agent; error, which also reaches the user's terminal: an agent that answers
 * wrongly) that this step starts the generator instead, once: the first step to create the marker file says it,
 * the next ones find it and stay quiet, until a step the agent answers removes it. slurmstepd is a process per
 * step, so a marker on the node is what makes "once" mean once per node and outage rather than once per step.
 */
static void say_fallback_once(int faulty, const char *why)
{
	char marker[sizeof agent + 64];
	marker_path(marker, sizeof marker);
	int fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == EEXIST)
		return;
	char note[sizeof marker + 128];
	if (fd >= 0)
		snprintf(note, sizeof note, "said once, until an agent answers again (%s)", marker);
	else
		snprintf(note, sizeof note, "said at every step: cannot write %s: %s", marker, strerror(errno));
	if (faulty)
		slurm_error(NAME ": %s; starting mask generator %s instead (%s)", why, generator, note);
	else
		slurm_info(NAME ": %s; steps start mask generator %s instead, which is slower (%s)", why, generator, note);
	if (fd >= 0) {
		dprintf(fd, "%s\n", why);
		close(fd);
	}
}

/* An agent answered: the next fallback is news again. */
static void forget_fallback(void)
{
	char marker[sizeof agent + 64];
	marker_path(marker, sizeof marker);
	unlink(marker);
}

/* The first line of the generator's stderr, without its "affinity: " prefix. */
static const char *reason(char *err)
{
	char *nl = strchr(err, '\n');
	if (nl)
		*nl = '\0';
	if (strncmp(err, "affinity: ", 10) == 0)
		err += 10;
	return *err ? err : "(no message on stderr)";
}

/* Reads "<localid> <cpulist>" lines: every local task exactly once, nothing else. */
static int parse_tasks(char *out)
{
	masks = calloc(local_tasks, sizeof(cpu_set_t));
	char *seen = calloc(local_tasks, 1);
	if (!masks || !seen)
		return -1;
	int line_no = 0;
	char *save = NULL;
	for (char *line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		line_no++;
		char *end = NULL;
		errno = 0;
		long id = strtol(line, &end, 10);
		cpu_set_t set;
		if (end == line || errno || *end != ' ' || id < 0 || (uint32_t) id >= local_tasks || seen[id]
		    || parse_list(end + 1, &set) != 0) {
			slurm_error(NAME ": mask generator %s printed '%.200s' on line %d; expected '<localid> <cpulist>' "
				    "once for each of the %u local tasks", source, line, line_no, local_tasks);
			free(seen);
			return -1;
		}
		seen[id] = 1;
		masks[id] = set;
	}
	for (uint32_t i = 0; i < local_tasks; i++) {
		if (!seen[i]) {
			slurm_error(NAME ": mask generator %s gave no CPUs for local task %u of %u", source, i, local_tasks);
			free(seen);
			return -1;
		}
	}
	free(seen);
	return 0;
}

/*
 * The binding the user asked srun for: srun exports --cpu-bind=TYPE as SLURM_CPU_BIND_TYPE into the step's
 * environment (by user_init, before any task plugin has rewritten it): "cores", "map_cpu:" with the list in
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
	if (type[n - 1] == ':')
		spank_getenv(sp, "SLURM_CPU_BIND_LIST", list, sizeof list);
	snprintf(out, len, "--cpu-bind=%s%s", type, list);
	return 1;
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

static int read_int(int cpu, const char *file)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	FILE *f = fopen(path, "r");
	int v = -1;
	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* A file holding a Linux CPU list (sysfs's present, online); 0, or -1 if it cannot be read as one. */
static int read_list(const char *path, cpu_set_t *set)
{
	char text[4096];
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	int ok = fgets(text, sizeof text, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	text[strcspn(text, "\n")] = '\0';
	return parse_list(text, set);
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
	    || parse_list(step_cores, &cores) != 0)
		return 0; /* Slurm does not say: keep slurmstepd's own CPUs */
	struct cpu_core *all = calloc(CPU_SETSIZE, sizeof *all);
	if (all == NULL)
		return -1;
	/* Only the CPUs the kernel knows of: trying all CPU_SETSIZE of them cost 3-15 ms of failed opens per step. */
	cpu_set_t present;
	if (read_list("/sys/devices/system/cpu/present", &present) != 0) {
		CPU_ZERO(&present);
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET(c, &present);
	}
	int n = 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &present))
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
		if (index < CPU_SETSIZE && CPU_ISSET(index, &cores))
			CPU_SET(all[i].cpu, &step);
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

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (!spank_remote(sp))
		return 0;
	int enabled = user_enabled == UNSET ? site_enabled : user_enabled;
	if (enabled != ON)
		return 0;
	uint32_t stepid = 0;
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS && stepid >= 0xfffffff0u)
		return 0; /* batch script, extern or interactive step: no tasks to place */
	uint32_t cpt = 1;
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local_tasks) != ESPANK_SUCCESS || local_tasks == 0) {
		slurm_error(NAME ": cannot read the number of local tasks");
		refused = 1;
		return 0;
	}
	if (spank_get_item(sp, S_STEP_CPUS_PER_TASK, &cpt) != ESPANK_SUCCESS || cpt == 0)
		cpt = 1;
	char binding[sizeof srun_binding];
	if (srun_binds(sp, binding, sizeof binding)) {
		if (user_enabled == ON) {
			/* Two explicit and different requests: running either one silently would surprise the user. */
			slurm_error(NAME ": srun %s and --reduced-auto-affinity both bind the tasks; ask for one of them "
				    "(--cpu-bind=none with --reduced-auto-affinity=on, or --reduced-auto-affinity=off)", binding);
			refused = 1;
		} else {
			strcpy(srun_binding, binding); /* only the site default asked: the user's own request wins */
		}
		return 0;
	}
	/* task/cgroup has put slurmstepd in the step's cpuset by now; the step's cores narrow it where not. */
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
		slurm_error(NAME ": cannot read the step's CPUs: %s", strerror(errno));
		refused = 1;
		return 0;
	}
	if (narrow_to_step_cores(sp, &allowed) != 0) {
		refused = 1;
		return 0;
	}
	char allowed_list[8192], ntasks_arg[16], cpt_arg[16];
	format_cpus(&allowed, 2, allowed_list, sizeof allowed_list);
	snprintf(ntasks_arg, sizeof ntasks_arg, "%u", local_tasks);
	snprintf(cpt_arg, sizeof cpt_arg, "%u", cpt);
	const char *policy = user_policy[0] ? user_policy : site_policy;
	char *argv[] = { generator, "affinity", "--topology", "sysfs", "--ntasks", ntasks_arg, "--cpus-per-task", cpt_arg,
			 "--allowed", allowed_list, "--policy", (char *) policy, "--format", "tasks", NULL };
	struct run r;
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
	if (!answered && run_generator(argv, &r) != 0) {
		slurm_error(NAME ": cannot start mask generator %s: %s", generator, strerror(errno));
		free_run(&r);
		refused = 1;
		return 0;
	}
	int rc = -1;
	if (r.exec_errno) {
		slurm_error(NAME ": mask generator '%s' cannot be run: %s (set generator=PATH in plugstack.conf)",
			    generator, strerror(r.exec_errno));
	} else if (r.timed_out) {
		slurm_error(NAME ": mask generator %s gave no answer within %d s and was killed (plugstack timeout=%d)",
			    generator, timeout_seconds, timeout_seconds);
	} else if (!r.exited || !WIFEXITED(r.status)) {
		slurm_error(NAME ": mask generator %s was killed by signal %d", generator,
			    r.exited && WIFSIGNALED(r.status) ? WTERMSIG(r.status) : 0);
	} else if (WEXITSTATUS(r.status) == 1) {
		slurm_error(NAME ": %s (%u tasks, cpus-per-task %u, CPUs %s, policy %s)", reason(r.err), local_tasks, cpt,
			    allowed_list, policy);
	} else if (WEXITSTATUS(r.status) != 0) {
		slurm_error(NAME ": mask generator %s failed with exit code %d: %s", source, WEXITSTATUS(r.status),
			    reason(r.err));
	} else if (parse_tasks(r.out) == 0) {
		active = 1;
		verbose = user_verbose == UNSET ? site_verbose : user_verbose;
		rc = 0;
	}
	free_run(&r);
	/* Failing user_init would fail the launch, yet srun 22.05 then exits 0 as if the step had run; instead
	 * every task ends in task_init, before its program runs, so the step and srun exit 1. */
	refused = rc != 0;
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
	if (!active)
		return 0;
	int id = -1;
	if (spank_get_item(sp, S_TASK_ID, &id) != ESPANK_SUCCESS || id < 0 || (uint32_t) id >= local_tasks) {
		slurm_error(NAME ": cannot read the local task id");
		_exit(1);
	}
	if (sched_setaffinity(0, sizeof masks[id], &masks[id]) != 0) {
		char list[8192];
		format_cpus(&masks[id], 2, list, sizeof list);
		slurm_error(NAME ": local task %d: cannot bind to CPUs %s: %s", id, list, strerror(errno));
		_exit(1);
	}
	if (verbose) {
		char list[8192];
		format_cpus(&masks[id], 3, list, sizeof list);
		fprintf(stderr, NAME ": local task %d: CPUs: %s\n", id, list);
		fflush(stderr);
	}
	return 0;
}
