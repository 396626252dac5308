package org.alpsbridge.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.emulator.Emulator;
import org.junit.jupiter.api.Test;

/** The fault actions of {@code basil emulate-control} as an operator types them. */
class EmulateControlCommandTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    private static ResponseData reserve(Emulator e) throws Exception {
        return CODEC.readResponse(e.handle(CODEC.write(BasilRequest.reserve("1.4", "alice", "1", null,
                java.util.List.of(ReserveParam.builder().architecture("XT").width(1).build()))))).responseData();
    }

    @Test
    void aFailActionNamesItsErrorSourceAfterTheClassAndDefaultsToBackend() throws Exception {
        Emulator e = Emulator.create("xc30:2");
        EmulateControlCommand.apply(e.control(), "fail:RESERVE:permanent/system:ALPS error: no allocation: left");
        ResponseData permanent = reserve(e);
        assertEquals(ErrorClass.PERMANENT, permanent.errorClass());
        assertEquals("SYSTEM", permanent.errorSource());
        assertEquals("ALPS error: no allocation: left", permanent.messageText());
        EmulateControlCommand.apply(e.control(), "fail:RESERVE:PERMANENT:ALPS error: node changed role");
        assertEquals("BACKEND", reserve(e).errorSource(), "what pbs_mom treats as TRANSIENT on RESERVE");
        assertThrows(IllegalArgumentException.class,
                () -> EmulateControlCommand.apply(e.control(), "fail:RESERVE:PERMANENT/ALPS:x"));
    }
}
