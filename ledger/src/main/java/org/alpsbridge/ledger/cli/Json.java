package org.alpsbridge.ledger.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.alpsbridge.ledger.LedgerException;

/**
 * {@code --json} output: objects built in the order their keys should print (the field names are this
 * command line's interface, not the records' own), written compactly by Jackson.
 */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    /** An insertion-ordered object under construction. */
    static Map<String, Object> object() {
        return new LinkedHashMap<>();
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new LedgerException("cannot write JSON: " + e.getOriginalMessage());
        }
    }
}
