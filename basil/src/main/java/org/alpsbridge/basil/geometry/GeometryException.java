package org.alpsbridge.basil.geometry;

/**
 * A job geometry ALPS cannot place on the node type, found before any RESERVE is sent. The message says which
 * limit is broken and by how much; the parts are available for callers that report it their own way.
 */
public final class GeometryException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String limit;
    private final long requested;
    private final long available;

    GeometryException(String limit, long requested, long available, String message) {
        super(message);
        this.limit = limit;
        this.requested = requested;
        this.available = available;
    }

    /** Short name of the broken limit, e.g. {@code processors per node} or {@code memory per node}. */
    public String limit() {
        return limit;
    }

    /** What the job needs of the limited quantity. */
    public long requested() {
        return requested;
    }

    /** What the node type (or machine) offers of it. */
    public long available() {
        return available;
    }

    /** By how much the request exceeds the limit. */
    public long excess() {
        return requested - available;
    }
}
