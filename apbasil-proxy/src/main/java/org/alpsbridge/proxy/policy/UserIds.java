package org.alpsbridge.proxy.policy;

import org.alpsbridge.passwd.PasswordDatabase;

/**
 * Where the policy finds the uid and gid ALPS will write in the pseudo-application of a user's reservation
 * when no inventory has shown that user yet. A RESERVE request names the user but not the ids; ALPS takes
 * them from the system's password database, so a daemon on the same system asks the same database, and the
 * first RESERVE of each user can be applied to the cache instead of costing a full INVENTORY.
 *
 * <p>Ids seen in inventories always win over a lookup, and each refresh compares the looked-up ids with what
 * ALPS wrote: the policy stops looking up (and says so in its log) the first time they differ.
 */
@FunctionalInterface
public interface UserIds {

    /**
     * @return {uid, gid} as ALPS will write them, or null when the user is not known here (the RESERVE then
     *     costs a full INVENTORY, as without a lookup)
     */
    long[] lookup(String user);

    /** No lookups: ids are learned from full inventories only (one refresh per user's first reservation). */
    UserIds NONE = user -> null;

    /**
     * The daemon host's password database ({@link PasswordDatabase}: {@code getent passwd NAME}, as NSS is
     * configured on the service node), which is what ALPS on that system consults. The gid is the user's primary
     * group.
     */
    static UserIds nameService() {
        return PasswordDatabase::lookup;
    }
}
