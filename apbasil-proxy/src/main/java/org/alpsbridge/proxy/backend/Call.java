package org.alpsbridge.proxy.backend;

/**
 * One BASIL request as it travels through the backend chain.
 *
 * @param request the request document, byte for byte as the client sent it
 * @param protocol the request's {@code protocol} attribute, e.g. {@code 1.3}
 * @param method the BASIL method: {@code QUERY}, {@code RESERVE}, {@code CONFIRM}, {@code RELEASE}, {@code SWITCH}
 * @param queryType for QUERY, its {@code type} ({@code ENGINE}, {@code INVENTORY}, {@code SUMMARY}, ...); otherwise null
 * @param caller who sent it, as authenticated by the daemon
 * @param exchangeId the client's id for this exchange, unique per logical call (retries reuse it), or null
 */
public record Call(byte[] request, String protocol, String method, String queryType, Caller caller, String exchangeId) {

    /** The key operators see in tables and metrics: {@code QUERY/INVENTORY}, {@code RESERVE}, ... */
    public String methodKey() {
        return queryType == null ? method : method + "/" + queryType;
    }

    /** True for the methods that change ALPS reservations and so must never run twice. */
    public boolean changesReservations() {
        return !"QUERY".equals(method);
    }
}
