package org.alpsbridge.ledger.service.server;

/** What a caller may do (HADM's roles); assigned by uid and gid from the settings. */
enum Role {
    /** Everything, for any user. */
    SUPERUSER,
    /** Reads everything; sends job events for any user (the Slurm hooks' role); no credit movements. */
    ADMIN,
    /**
     * Sends job events (RESERVE, CONFIRM, RELEASE, bind, void) for any user and reads like a standard user:
     * the least privilege that charges, for the Slurm hooks' SlurmUser. No credit movements, no reports of others.
     */
    CHARGER,
    /** Reads its groups' projects and its own jobs; job events of its own jobs only if the site allows. */
    STANDARD
}
