package org.alpsbridge.ledger.service.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.alpsbridge.ledger.service.api.Requests;

/** Error answers made before a request reaches the {@link Dispatcher}. */
final class Problems {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Problems() {
    }

    static ApiResponse of(int status, String message, boolean keepAlive) {
        try {
            return new ApiResponse(status, JSON.writeValueAsBytes(new Requests.Problem(message, null)), keepAlive);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
