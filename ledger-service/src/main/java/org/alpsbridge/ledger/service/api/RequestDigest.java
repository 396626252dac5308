package org.alpsbridge.ledger.service.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What a request's MUNGE credential carries: SHA-256 of its method, its path with query, and its body.
 * The service recomputes it, so a credential taken from one request is useless on another; munged refuses
 * the same credential twice and after its time-to-live.
 */
public final class RequestDigest {

    /** The request header that carries the credential: {@code Authorization: MUNGE <credential>}. */
    public static final String HEADER = "Authorization";
    /** The scheme before the credential in {@link #HEADER}. */
    public static final String SCHEME = "MUNGE";

    private RequestDigest() {
    }

    public static byte[] of(String method, String pathAndQuery, byte[] body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(method.getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) '\n');
            sha.update(pathAndQuery.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) '\n');
            sha.update(body);
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
