package org.alpsbridge.ledger.service.server;

import java.util.Set;

/**
 * Who sent a request, as munged vouches (uid, gid), with what the service looked up about them.
 *
 * @param user the login name, or the uid as text when the uid has none
 * @param groups every gid the user is a member of, the credential's gid included
 */
record Caller(int uid, int gid, String user, Set<Integer> groups, Role role) {

    Caller {
        groups = Set.copyOf(groups);
    }

    /** Whether {@code owner} (a job's user: a name or a uid) is this caller. */
    boolean is(String owner) {
        return owner != null && (owner.equals(user) || owner.equals(Integer.toString(uid)));
    }

    @Override
    public String toString() {
        return "uid " + uid + " (" + user + ", " + role.name().toLowerCase() + ")";
    }
}
