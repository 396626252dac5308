package org.alpsbridge.proxy.wire;

/** A proxy frame that does not follow the wire format; the message says what is wrong with it. */
public final class WireException extends RuntimeException {

    public WireException(String message) {
        super(message);
    }
}
