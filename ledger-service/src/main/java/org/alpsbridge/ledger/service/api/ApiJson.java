package org.alpsbridge.ledger.service.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The API's JSON: the ledger's own records ({@code Balance}, {@code Outcome}, {@code ReserveRequest}, ...)
 * as objects of their components, instants as ISO-8601 strings ({@code 2026-01-01T00:00:00Z}).
 */
public final class ApiJson {

    private ApiJson() {
    }

    /**
     * A new mapper; {@code strict} refuses unknown fields (what the service reads: a misspelt field is an
     * error, not a default), the client is lenient so that a newer service may add fields.
     */
    public static ObjectMapper mapper(boolean strict) {
        return new ObjectMapper().registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, strict)
                .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, strict);
    }
}
