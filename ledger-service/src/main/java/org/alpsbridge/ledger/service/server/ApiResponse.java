package org.alpsbridge.ledger.service.server;

/** An answer: HTTP status and JSON body; {@code keepAlive} carries the request's wish to the encoder. */
record ApiResponse(int status, byte[] json, boolean keepAlive) {
}
