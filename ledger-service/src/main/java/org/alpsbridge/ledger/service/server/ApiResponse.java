package org.alpsbridge.ledger.service.server;

/**
 * An answer: HTTP status and body (JSON but for {@code /metrics}, whose {@code contentType} is the
 * Prometheus text format); {@code keepAlive} carries the request's wish to the encoder.
 */
record ApiResponse(int status, byte[] json, boolean keepAlive, String contentType) {

    static final String JSON = "application/json";

    ApiResponse(int status, byte[] json, boolean keepAlive) {
        this(status, json, keepAlive, JSON);
    }
}
