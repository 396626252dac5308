package org.alpsbridge.affinity.topology;

/** A topology source could not be read or describes an impossible node; the message names the problem. */
public final class TopologyException extends Exception {

    public TopologyException(String message) {
        super(message);
    }

    public TopologyException(String message, Throwable cause) {
        super(message, cause);
    }
}
