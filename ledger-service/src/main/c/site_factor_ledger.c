/*
 * site_factor/ledger: the ledger's HADM site factor in Slurm's job priority (slurm.conf:
 * PriorityType=priority/multifactor, PrioritySiteFactorPlugin=site_factor/ledger,
 * PrioritySiteFactorParameters=file=PATH; default /var/lib/alpsbridge/site-factors).
 *
 * The factor of each account comes from a file that `alpsbridge ledger site-factor --slurm-file PATH` writes
 * from a timer (one line "ACCOUNT SCALED" per account, replaced whole by a rename): the plugin runs under
 * slurmctld's job write lock, on its scheduling path, so it never asks the ledger anything over the network. It
 * rereads the file when it changed (a stat per call) and sets each pending job's site factor to its account's
 * value (0 for an account the file does not name): at submission (site_factor_p_set) and at every priority
 * recalculation (site_factor_p_update, every PriorityCalcPeriod). Slurm adds the site factor to the priority
 * unweighted, so `ledger site-factor --weight` sets its scale against the site's PriorityWeight* values.
 *
 * One source for Slurm 22.05 and 26.05 (both tested), built against the configured source of the one that loads it:
 * the interface moved from src/common to src/interfaces (only slurmctld.h is included here), and 22.05's also
 * calls site_factor_p_reconfig at `scontrol reconfigure`, which 26.05's does not (its reconfigure restarts
 * slurmctld, so init reads the parameters again); the symbol is kept for 22.05 and is unused on 26.05. On 26.05
 * priority/multifactor also calls site_factor_p_update without slurmdbd, every PriorityCalcPeriod.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "site-factors.h"

/* Slurm's error() by its Slurm-only name: glibc's error(3) has the same name and would win by link order alone. */
extern int slurm_error(const char *, ...) __attribute__((format(printf, 1, 2)));
#undef error
#define error slurm_error

const char plugin_name[] = "alpsbridge ledger site factor plugin";
const char plugin_type[] = "site_factor/ledger";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define DEFAULT_FILE "/var/lib/alpsbridge/site-factors"

/* The plugin's state. Under `lock`: the job write lock serialises set and update, but 22.05 calls reconfig at
 * `scontrol reconfigure` with none of slurmctld's locks held (controller.c, after unlock_slurmctld), while a
 * submission may be in site_factor_p_set. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char path[4096] = DEFAULT_FILE;
static struct factor *factors; /* sorted by account, case-insensitively (Slurm's accounts are lower case) */
static size_t count;
static struct stat loaded;     /* the file's identity when it was read; st_ino 0: never read */
static bool missing_said;

/* PrioritySiteFactorParameters: file=PATH (the only parameter). Under lock. */
static void read_parameters(void) {
    snprintf(path, sizeof path, "%s", DEFAULT_FILE);
    const char *p = slurm_conf.site_factor_params;
    if (p && strncmp(p, "file=", 5) == 0 && p[5]) {
        snprintf(path, sizeof path, "%s", p + 5);
    } else if (p && *p) {
        error("%s: PrioritySiteFactorParameters=%s: expected file=PATH; using %s", plugin_type, p, path);
    }
    memset(&loaded, 0, sizeof loaded);
}

/* Rereads the file if it is not the one read last (another inode after a rename, or another size or time). Under
 * lock. */
static void refresh(void) {
    struct stat now;
    if (stat(path, &now) != 0) {
        if (!missing_said) {
            error("%s: cannot read %s (%m): every account's site factor is 0 until it exists (alpsbridge ledger"
                  " site-factor --slurm-file %s)", plugin_type, path, path);
            missing_said = true;
        }
        count = 0;
        memset(&loaded, 0, sizeof loaded);
        return;
    }
    missing_said = false;
    if (loaded.st_ino == now.st_ino && loaded.st_dev == now.st_dev && loaded.st_size == now.st_size
        && loaded.st_mtim.tv_sec == now.st_mtim.tv_sec && loaded.st_mtim.tv_nsec == now.st_mtim.tv_nsec) {
        return;
    }
    FILE *f = fopen(path, "re");
    if (!f) {
        error("%s: cannot open %s: %m", plugin_type, path);
        return;
    }
    struct factor *read = NULL;
    size_t n = 0;
    int bad = 0, first_bad = 0;
    int r = factors_parse(f, &read, &n, &bad, &first_bad);
    fclose(f);
    if (r != 0) {
        error("%s: out of memory reading %s", plugin_type, path);
        return;
    }
    if (bad) error("%s: %s:%d: expected ACCOUNT SCALED, skipped (%d such lines)", plugin_type, path, first_bad, bad);
    free(factors);
    factors = read;
    count = n;
    loaded = now;
    verbose("%s: %zu account(s) from %s", plugin_type, count, path);
}

static void set(job_record_t *job_ptr) {
    job_ptr->site_factor = NICE_OFFSET + factors_find(factors, count, job_ptr->account);
}

static int update_pending(void *x, void *unused) {
    (void)unused;
    job_record_t *job_ptr = x;
    if (IS_JOB_PENDING(job_ptr)) set(job_ptr);
    return SLURM_SUCCESS;
}

extern int init(void) {
    pthread_mutex_lock(&lock);
    read_parameters();
    pthread_mutex_unlock(&lock);
    return SLURM_SUCCESS;
}

/* void: Slurm's plugin loader (plugin_unload) calls it so, 22.05's and 26.05's alike */
extern void fini(void) {
    pthread_mutex_lock(&lock);
    free(factors);
    factors = NULL;
    count = 0;
    memset(&loaded, 0, sizeof loaded);
    pthread_mutex_unlock(&lock);
}

/* 22.05's interface only (above) */
extern void site_factor_p_reconfig(void) {
    /* slurm_conf under slurmctld's config read lock: called with none held (above) */
    slurmctld_lock_t config_read = {.conf = READ_LOCK};
    lock_slurmctld(config_read);
    pthread_mutex_lock(&lock);
    read_parameters();
    pthread_mutex_unlock(&lock);
    unlock_slurmctld(config_read);
}

/* At submission, under the job write lock. */
extern void site_factor_p_set(job_record_t *job_ptr) {
    pthread_mutex_lock(&lock);
    refresh();
    set(job_ptr);
    pthread_mutex_unlock(&lock);
}

/* At every priority recalculation, under the job write lock. */
extern void site_factor_p_update(void) {
    pthread_mutex_lock(&lock);
    refresh();
    list_for_each(job_list, update_pending, NULL);
    pthread_mutex_unlock(&lock);
}
