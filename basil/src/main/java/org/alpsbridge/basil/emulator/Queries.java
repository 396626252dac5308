package org.alpsbridge.basil.emulator;

import java.io.OutputStream;
import org.alpsbridge.basil.model.BasilRequest;

/** QUERY INVENTORY, SUMMARY and SYSTEM: the answers that grow with the machine, streamed onto the caller's stream. */
final class Queries {

    private Queries() {
    }

    static void write(Apsched apsched, BasilRequest req, OutputStream out) throws Rejection {
        throw Rejection.transientFailure("ALPS error: QUERY(" + req.type() + ") is not available in this emulator build yet");
    }
}
