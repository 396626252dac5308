package org.alpsbridge.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AnswerTest {

    private static Answer of(String xml) {
        return Answer.of(xml.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aReservedAnswerCarriesItsReservationId() {
        Answer a = of("<?xml version=\"1.0\"?><BasilResponse protocol=\"1.3\"><ResponseData status=\"SUCCESS\" method=\"RESERVE\">"
                + "<Reserved reservation_id=\"77\" admin_cookie=\"0\" alloc_cookie=\"0\"/></ResponseData></BasilResponse>");
        assertTrue(a.success());
        assertEquals("77", a.reservationId());
    }

    @Test
    void aTransientFailureMayBeRetriedAndKeepsItsMessage() {
        Answer a = of("<BasilResponse protocol=\"1.3\"><ResponseData status=\"FAILURE\" error_class=\"TRANSIENT\" error_source=\"BACKEND\" method=\"RESERVE\">"
                + "<Message severity=\"ERROR\">ALPS error: insufficient resources</Message></ResponseData></BasilResponse>");
        assertFalse(a.success());
        assertTrue(a.transientFailure());
        assertEquals("ALPS error: insufficient resources", a.message());
    }

    @Test
    void aPermanentFailureIsNotRetried() {
        Answer a = of("<BasilResponse protocol=\"1.3\"><ResponseData status=\"FAILURE\" error_class=\"PERMANENT\" method=\"RESERVE\">"
                + "<Message severity=\"ERROR\">nppn exceeds</Message></ResponseData></BasilResponse>");
        assertFalse(a.success());
        assertFalse(a.transientFailure());
    }

    @Test
    void garbageIsATransientFailureNamingTheProblem() {
        Answer a = of("<BasilResponse><ResponseData status=\"SUCC");
        assertFalse(a.success());
        assertTrue(a.transientFailure());
        assertTrue(a.message().startsWith("unreadable response"), a::message);
    }

    @Test
    void aDocumentWithoutResponseDataIsAFailure() {
        Answer a = of("<BasilResponse protocol=\"1.3\"/>");
        assertFalse(a.success());
        assertTrue(a.message().contains("no ResponseData"), a::message);
    }
}
