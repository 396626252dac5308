package org.alpsbridge.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonTextTest {

    @Test
    void jsonQuotingEscapesWhatJsonRequires() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", JsonText.quote("a\"b\\c\nd\u0001"));
        assertEquals("null", JsonText.quote(null));
    }
}
