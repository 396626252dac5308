package org.alpsbridge.ledger.slurm;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What slurmdbd holds of the accounts, as {@code sacctmgr -nP show} lists it: every account's description and
 * organisation (accounts are global), and on the synchronised cluster each account's own association (its limits)
 * and the user associations under it.
 *
 * @param accounts account name → its record
 * @param limits account name → the limits of its association on the cluster (absent: no association there)
 * @param userAssociations every user association on the cluster
 * @param qos QOS name → its record (QOS are global, like accounts)
 * @param defaults user → their default account on the cluster (slurmdbd refuses to delete a user's default account's
 *     associations while the user keeps others there)
 */
record SlurmState(Map<String, Account> accounts, Map<String, Limits> limits, Set<UserAssociation> userAssociations,
                  Map<String, Qos> qos, Map<String, String> defaults) {

    SlurmState {
        accounts = Map.copyOf(accounts);
        limits = Map.copyOf(limits);
        userAssociations = Set.copyOf(userAssociations);
        qos = Map.copyOf(qos);
        defaults = Map.copyOf(defaults);
    }

    /** A state whose users' default accounts are not known. */
    SlurmState(Map<String, Account> accounts, Map<String, Limits> limits, Set<UserAssociation> userAssociations,
               Map<String, Qos> qos) {
        this(accounts, limits, userAssociations, qos, Map.of());
    }

    /** A state without any QOS (one the sync need not look at). */
    SlurmState(Map<String, Account> accounts, Map<String, Limits> limits, Set<UserAssociation> userAssociations) {
        this(accounts, limits, userAssociations, Map.of());
    }

    /** A QOS as slurmdbd keeps it: its description (the ledger's carry the mark) and its aggregate cap. */
    record Qos(String name, String description, Map<String, Long> grpTres) {
        Qos {
            grpTres = java.util.Collections.unmodifiableMap(new TreeMap<>(grpTres));
        }
    }

    /** An account as slurmdbd keeps it (sacctmgr lower-cases names; descriptions keep what was given). */
    record Account(String name, String description, String organization) {
    }

    /**
     * An account association's limits: its aggregate cap ({@code GrpTRES}, by resource), its job counts
     * ({@code GrpJobs}, {@code GrpSubmitJobs}; -1 unset, 0 blocks), the QOS its jobs may use and their default
     * ({@code ""}: none set).
     */
    record Limits(Map<String, Long> grpTres, long grpJobs, long grpSubmit, Set<String> qos, String defaultQos) {
        Limits {
            grpTres = java.util.Collections.unmodifiableMap(new TreeMap<>(grpTres));
            qos = java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(qos));
        }

        Limits(Map<String, Long> grpTres, long grpJobs, long grpSubmit) {
            this(grpTres, grpJobs, grpSubmit, Set.of(), "");
        }

        static final Limits NONE = new Limits(Map.of(), -1, -1);

        boolean blocked() {
            return grpJobs == 0 && grpSubmit == 0;
        }
    }

    /** A user's association with an account, in one partition or in all ({@code ""}). */
    record UserAssociation(String account, String user, String partition) {
    }
}
