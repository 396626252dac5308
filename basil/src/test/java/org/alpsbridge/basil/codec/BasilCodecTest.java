package org.alpsbridge.basil.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Confirmed;
import org.alpsbridge.basil.model.Engine;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.Status;
import org.junit.jupiter.api.Test;

class BasilCodecTest {

    private final BasilCodec codec = BasilCodec.standard();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    @Test
    void reserveRequestKeepsEveryParameterAndTheNodeListAsOneNodeParam() throws Exception {
        BasilRequest r = BasilRequest.reserve("1.3", "alice", "1234", "proj", List.of(
                ReserveParam.builder().width(64).depth(2).nppn(32).nppcu(1).memoryPerPeMb(1000).nodes("1-2,5").build()));
        BasilRequest back = codec.readRequest(codec.write(r));
        assertEquals(Method.RESERVE, back.method());
        assertEquals("alice", back.user());
        assertEquals("1234", back.batchId());
        assertEquals("proj", back.account());
        ReserveParam p = back.reserveParams().get(0);
        assertEquals(64L, p.width());
        assertEquals(1L, p.nppcu());
        assertEquals(List.of("1-2,5"), p.nodeParams());
        assertEquals(1000L, p.memoryParams().get(0).sizeMb());
        assertTrue(text(codec.write(r)).contains("<NodeParamArray>"));
    }

    @Test
    void protocolOneZeroReserveHasNoBatchIdAndConfirmUsesAdminCookie() throws Exception {
        String reserve = text(codec.write(BasilRequest.reserve("1.0", "bob", "77", null,
                List.of(ReserveParam.builder().width(1).build()))));
        assertFalse(reserve.contains("batch_id"), reserve);
        String confirm = text(codec.write(BasilRequest.confirm("1.0", 5, 99)));
        assertTrue(confirm.contains("admin_cookie=\"99\""), confirm);
        assertEquals(99L, codec.readRequest(bytes(confirm)).paggId());
        assertTrue(text(codec.write(BasilRequest.confirm("1.3", 5, 99))).contains("pagg_id=\"99\""));
    }

    @Test
    void responsesCarryTheirTypedContentAndMessagesInDocumentOrder() throws Exception {
        BasilResponse r = codec.readResponse(bytes("""
                <?xml version="1.0"?>
                <BasilResponse protocol="1.3"><ResponseData status="SUCCESS" method="QUERY">
                <Message severity="DEBUG">hello</Message>
                <Engine name="ALPS" version="5.2.44" basil_support="1.3,1.2,1.1,1.0"/></ResponseData></BasilResponse>"""));
        assertEquals(Status.SUCCESS, r.responseData().status());
        Engine e = r.responseData().content(Engine.class).orElseThrow();
        assertEquals(List.of("1.3", "1.2", "1.1", "1.0"), e.supportedProtocols());
        assertEquals("hello", r.responseData().messageText());
    }

    @Test
    void unknownChildrenAreKeptAndWrittenBack() throws Exception {
        byte[] doc = bytes("<BasilResponse protocol=\"1.3\"><ResponseData status=\"SUCCESS\" method=\"QUERY\">"
                + "<Network foo=\"bar\"><Link a=\"1\"/></Network></ResponseData></BasilResponse>");
        BasilResponse r = codec.readResponse(doc);
        assertEquals(1, r.responseData().contents().size());
        assertTrue(text(codec.write(r)).contains("<Link a=\"1\"/>"));
    }

    @Test
    void versionShapesOfReservedConfirmedReleased() throws Exception {
        assertNull(Confirmed.of("1.0", 3, 4).reservationId());
        assertEquals(4L, Confirmed.of("1.2", 3, 4).paggId());
        assertNull(Released.of("1.1", 3, 0).claims());
        assertEquals(0L, Released.of("1.3", 3, 0).claims());
        assertEquals(0L, Reserved.of("1.0", 3, List.of(1L)).adminCookie());
        BasilResponse r = BasilResponse.success("1.3", Method.RESERVE, Reserved.of("1.3", 3, List.of(7L, 4_000_000_000L)));
        Reserved back = codec.readResponse(codec.write(r)).responseData().content(Reserved.class).orElseThrow();
        assertEquals(List.of(7L, 4_000_000_000L), back.nodeIds());
    }

    @Test
    void writingIsDeterministicAndAsciiWithAnAlpsStyleDeclaration() throws Exception {
        byte[] a = Failures.failure("1.3", "RESERVE", ErrorClass.TRANSIENT, "BACKEND", "caf\u00e9 closed");
        byte[] b = Failures.failure("1.3", "RESERVE", ErrorClass.TRANSIENT, "BACKEND", "caf\u00e9 closed");
        assertEquals(text(a), text(b));
        assertTrue(text(a).startsWith("<?xml version=\"1.0\"?>\n<BasilResponse protocol=\"1.3\">"), text(a));
        for (byte x : a) {
            assertTrue(x >= 0, "non-ASCII byte written");
        }
        assertEquals("caf\u00e9 closed", codec.readResponse(a).responseData().messageText());
    }

    @Test
    void failureResponsesEchoTheProtocolAndNameClassSourceAndMessage() throws Exception {
        BasilResponse r = codec.readResponse(Failures.failure("1.1", "CONFIRM", ErrorClass.PERMANENT, "BACKEND",
                "ALPS error: apsched: No entry for resId 9"));
        assertEquals("1.1", r.protocol());
        assertEquals(Status.FAILURE, r.responseData().status());
        assertEquals(Method.CONFIRM, r.responseData().method());
        assertEquals(ErrorClass.PERMANENT, r.responseData().errorClass());
        assertEquals("BACKEND", r.responseData().errorSource());
        assertEquals(Method.UNDEFINED, codec.readResponse(
                Failures.failure(null, "BOGUS", ErrorClass.TRANSIENT, "SYNTAX", "x")).responseData().method());
    }

    @Test
    void probeSniffsRequestsAndResponsesWithoutBindingThem() throws Exception {
        Probe q = Probe.of(codec.write(BasilRequest.query("1.3", "SUMMARY")));
        assertEquals(new Probe(true, "1.3", "QUERY", "SUMMARY", null), q);
        assertEquals("QUERY/SUMMARY", q.methodKey());
        Probe f = Probe.of(Failures.failure("1.2", "RELEASE", ErrorClass.PERMANENT, "BACKEND", "gone"));
        assertEquals(new Probe(false, "1.2", "RELEASE", null, "FAILURE"), f);
        assertThrows(BasilException.class, () -> Probe.of(bytes("<Foo/>")));
        assertThrows(BasilException.class, () -> Probe.of(bytes("garbage")));
    }

    @Test
    void aNumberThatIsNotANumberIsAnErrorWithItsPlace() {
        BasilException e = assertThrows(BasilException.class, () -> codec.readRequest(
                bytes("<BasilRequest protocol=\"1.3\" method=\"RELEASE\"\n reservation_id=\"12x\"/>")));
        assertTrue(e.getMessage().contains("12x"), e.getMessage());
        assertTrue(e.line() > 0, e.getMessage() + " / " + e.getCause());
    }

    @Test
    void aDoctypeIsRefusedBeforeAnyEntityIsDefined() {
        String xxe = "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
                + "<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"&x;\"/>";
        BasilException e = assertThrows(BasilException.class, () -> codec.readRequest(bytes(xxe)));
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
        assertEquals(2, e.line(), e.getMessage());
    }

    @Test
    void wrongRootTruncationAndBadEncodingAreCheckedErrors() {
        BasilException root = assertThrows(BasilException.class, () -> codec.readRequest(bytes("<BasilResponse protocol=\"1.3\"/>")));
        assertTrue(root.getMessage().contains("BasilResponse"), root.getMessage());
        BasilException unknownRoot = assertThrows(BasilException.class, () -> codec.readResponse(bytes("<Html/>")));
        assertTrue(unknownRoot.getMessage().contains("Html"), unknownRoot.getMessage());
        BasilException cut = assertThrows(BasilException.class, () -> codec.readResponse(
                bytes("<BasilResponse protocol=\"1.3\"><ResponseData status=\"SUCC")));
        assertTrue(cut.line() > 0, cut.getMessage());
        byte[] badUtf8 = {'<', 'B', 'a', 's', 'i', 'l', 'R', 'e', 'q', 'u', 'e', 's', 't', ' ', 'm', '=', '"', (byte) 0xC3, (byte) 0x28, '"', '/', '>'};
        assertThrows(BasilException.class, () -> codec.readRequest(badUtf8));
        assertThrows(BasilException.class, () -> codec.readRequest(new byte[0]));
    }

    @Test
    void limitsStopDeepNestingHugeAttributesAndOversizeDocuments() {
        StringBuilder deep = new StringBuilder("<BasilRequest protocol=\"1.3\" method=\"QUERY\">");
        deep.append("<a>".repeat(10_000));
        BasilException d = assertThrows(BasilException.class, () -> codec.readRequest(bytes(deep.toString())));
        assertTrue(d.getMessage().toLowerCase().contains("depth"), d.getMessage());
        String huge = "<BasilRequest protocol=\"" + "1".repeat(200_000) + "\"/>";
        assertThrows(BasilException.class, () -> codec.readRequest(bytes(huge)));
        BasilCodec small = BasilCodec.withLimits(Limits.DEFAULT.withMaxDocumentBytes(100));
        BasilException big = assertThrows(BasilException.class, () -> small.readRequest(
                new java.io.ByteArrayInputStream(bytes("<BasilRequest protocol=\"1.3\" method=\"QUERY\">" + " ".repeat(500) + "</BasilRequest>"))));
        assertTrue(big.getMessage().contains("limit"), big.getMessage());
    }
}
