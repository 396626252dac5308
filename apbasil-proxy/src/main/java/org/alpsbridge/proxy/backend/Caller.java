package org.alpsbridge.proxy.backend;

/**
 * The authenticated identity behind a call.
 *
 * @param uid the caller's uid as MUNGE vouched for it, or -1 when authentication is off
 * @param gid the caller's gid as MUNGE vouched for it, or -1 when authentication is off
 */
public record Caller(int uid, int gid) {

    /** The caller when the daemon runs with {@code --auth none}. */
    public static final Caller UNAUTHENTICATED = new Caller(-1, -1);
}
