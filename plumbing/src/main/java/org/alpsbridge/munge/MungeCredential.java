package org.alpsbridge.munge;

/**
 * A decoded, valid MUNGE credential.
 *
 * @param uid the uid of the process that encoded it, as munged vouches
 * @param gid its gid
 * @param payload what it carried
 */
public record MungeCredential(int uid, int gid, byte[] payload) {
}
