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
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/slurmctld/slurmctld.h"

const char plugin_name[] = "alpsbridge ledger site factor plugin";
const char plugin_type[] = "site_factor/ledger";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define DEFAULT_FILE "/var/lib/alpsbridge/site-factors"

struct factor {
    char account[128];
    uint32_t value;
};

static char path[4096] = DEFAULT_FILE;
static struct factor *factors; /* sorted by account, case-insensitively (Slurm's accounts are lower case) */
static size_t count;
static struct stat loaded;     /* the file's identity when it was read; st_ino 0: never read */
static bool missing_said;

static int by_account(const void *a, const void *b) {
    return strcasecmp(((const struct factor *)a)->account, ((const struct factor *)b)->account);
}

/* PrioritySiteFactorParameters: file=PATH (the only parameter). */
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

/* Rereads the file if it is not the one read last (another inode after a rename, or another size or time). */
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
    FILE *f = fopen(path, "r");
    if (!f) {
        error("%s: cannot open %s: %m", plugin_type, path);
        return;
    }
    struct factor *read = NULL;
    size_t n = 0, capacity = 0;
    char line[512];
    int number = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        number++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char account[128];
        unsigned long value;
        char extra;
        if (sscanf(line, "%127s %lu %c", account, &value, &extra) != 2 || value > UINT32_MAX / 2) {
            if (bad++ == 0) error("%s: %s:%d: expected ACCOUNT SCALED, skipped", plugin_type, path, number);
            continue;
        }
        if (n == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            struct factor *more = realloc(read, capacity * sizeof *read);
            if (!more) {
                error("%s: out of memory reading %s", plugin_type, path);
                free(read);
                fclose(f);
                return;
            }
            read = more;
        }
        snprintf(read[n].account, sizeof read[n].account, "%s", account);
        read[n].value = (uint32_t)value;
        n++;
    }
    fclose(f);
    qsort(read, n, sizeof *read, by_account);
    free(factors);
    factors = read;
    count = n;
    loaded = now;
    verbose("%s: %zu account(s) from %s", plugin_type, count, path);
}

static uint32_t factor_of(const char *account) {
    if (!account || !count) return 0;
    struct factor key;
    snprintf(key.account, sizeof key.account, "%s", account);
    const struct factor *found = bsearch(&key, factors, count, sizeof *factors, by_account);
    return found ? found->value : 0;
}

static void set(job_record_t *job_ptr) {
    job_ptr->site_factor = NICE_OFFSET + factor_of(job_ptr->account);
}

static int update_pending(void *x, void *unused) {
    (void)unused;
    job_record_t *job_ptr = x;
    if (IS_JOB_PENDING(job_ptr)) set(job_ptr);
    return SLURM_SUCCESS;
}

extern int init(void) {
    read_parameters();
    return SLURM_SUCCESS;
}

/* void: Slurm's plugin loader (plugin_unload) calls it so, 22.05's and 26.05's alike */
extern void fini(void) {
    free(factors);
    factors = NULL;
    count = 0;
}

/* 22.05's interface only (above) */
extern void site_factor_p_reconfig(void) {
    read_parameters();
}

/* At submission, under the job write lock. */
extern void site_factor_p_set(job_record_t *job_ptr) {
    refresh();
    set(job_ptr);
}

/* At every priority recalculation, under the job write lock. */
extern void site_factor_p_update(void) {
    refresh();
    list_for_each(job_list, update_pending, NULL);
}
