/*
 * A stand-in slurmctld for site_factor/ledger: loads the built site_factor_ledger.so, exports what the plugin takes
 * from slurmctld, and calls site_factor_p_set (as a submission does, under the job write lock) from one thread while
 * another calls site_factor_p_reconfig (as 22.05's `scontrol reconfigure` does, with none of slurmctld's locks held)
 * N times each. Run under ThreadSanitizer it reports any state the two touch without a lock.
 *   site-factor-host PLUGIN FILE N     FILE the site factors ("acct1 7"); passes when every job got acct1's factor
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include "src/common/log.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

slurm_conf_t slurm_conf;
__typeof__(job_list) job_list; /* List in 22.05, list_t * later */
static pthread_rwlock_t conf_lock = PTHREAD_RWLOCK_INITIALIZER, job_lock = PTHREAD_RWLOCK_INITIALIZER;

int get_log_level(void) {
    return LOG_LEVEL_INFO;
}

void log_var(const log_level_t level, const char *fmt, ...) {
    (void)level;
    (void)fmt;
}

int slurm_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

int error(const char *fmt, ...) {
    (void)fmt;
    return -1;
}

int list_for_each(__typeof__(job_list) l, ListForF f, void *arg) {
    (void)l;
    (void)f;
    (void)arg;
    return 0;
}

void lock_slurmctld(slurmctld_lock_t locks) {
    if (locks.conf == READ_LOCK) pthread_rwlock_rdlock(&conf_lock);
    if (locks.job == WRITE_LOCK) pthread_rwlock_wrlock(&job_lock);
}

void unlock_slurmctld(slurmctld_lock_t locks) {
    if (locks.job == WRITE_LOCK) pthread_rwlock_unlock(&job_lock);
    if (locks.conf == READ_LOCK) pthread_rwlock_unlock(&conf_lock);
}

static void (*set)(job_record_t *);
static void (*reconfig)(void);
static int rounds, wrong;

static void *submissions(void *unused) {
    (void)unused;
    for (int i = 0; i < rounds; i++) {
        job_record_t job = {.account = "acct1"};
        pthread_rwlock_wrlock(&job_lock);
        set(&job);
        pthread_rwlock_unlock(&job_lock);
        if (job.site_factor != NICE_OFFSET + 7) wrong++;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) return fprintf(stderr, "usage: site-factor-host PLUGIN FILE N\n"), 2;
    static char params[4200];
    snprintf(params, sizeof params, "file=%s", argv[2]);
    slurm_conf.site_factor_params = params;
    rounds = atoi(argv[3]);
    void *plugin = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!plugin) return fprintf(stderr, "%s\n", dlerror()), 1;
    int (*init)(void);
    *(void **)&init = dlsym(plugin, "init");
    *(void **)&set = dlsym(plugin, "site_factor_p_set");
    *(void **)&reconfig = dlsym(plugin, "site_factor_p_reconfig");
    if (!init || !set || !reconfig || init() != 0) return fprintf(stderr, "not the site factor plugin\n"), 1;
    pthread_t t;
    if (pthread_create(&t, NULL, submissions, NULL) != 0) return 1;
    for (int i = 0; i < rounds; i++) reconfig();
    pthread_join(t, NULL);
    printf("site factor: %d submissions beside %d reconfigures, %d with another factor than acct1's\n", rounds, rounds,
           wrong);
    return wrong ? 1 : 0;
}
