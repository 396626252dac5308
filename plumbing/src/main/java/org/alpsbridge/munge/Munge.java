package org.alpsbridge.munge;

import java.nio.file.Path;

/**
 * MUNGE credentials: encode a payload as the calling process's uid/gid, decode one to learn who made it.
 *
 * <p>{@link #library} calls libmunge through JNA (what the daemon uses: no fork per request),
 * {@link #programs} runs the {@code munge}/{@code unmunge} programs, {@link #socket} encodes by talking to
 * munged's socket directly (what the drop-in client uses by default: neither JNA's load nor a process
 * start). All talk to the same {@code munged}, so TTL and replay detection are munged's own.
 */
public interface Munge {

    /**
     * Encodes {@code payload} into a credential string ({@code MUNGE:...:}).
     *
     * @param ttlSeconds the credential's time-to-live; 0 for munged's default
     */
    String encode(byte[] payload, int ttlSeconds) throws MungeException;

    /** Decodes and validates a credential; expired, replayed or forged credentials throw. */
    MungeCredential decode(String credential) throws MungeException;

    /** What this is, for logs: {@code libmunge (socket ...)} or {@code munge/unmunge programs (...)}. */
    String describe();

    /** libmunge through JNA; throws when the library cannot be loaded. {@code socket} null = munged's default. */
    static Munge library(Path socket) throws MungeException {
        return MungeLibrary.open(socket);
    }

    /** The {@code munge} and {@code unmunge} programs from PATH. {@code socket} null = munged's default. */
    static Munge programs(Path socket) {
        return new MungePrograms(socket);
    }

    /**
     * Encodes by talking to munged's socket directly (no process, no JNA: what the drop-in client uses by
     * default); decodes, and encodes if munged speaks another message version, through the programs.
     */
    static Munge socket(Path socket) {
        return new MungeSocket(socket, programs(socket));
    }

    /** libmunge when it loads, else the programs. */
    static Munge best(Path socket) {
        try {
            return library(socket);
        } catch (MungeException | LinkageError e) {
            return programs(socket);
        }
    }
}
