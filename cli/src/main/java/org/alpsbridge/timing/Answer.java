package org.alpsbridge.timing;

import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;

/**
 * What the replay needs from a response: did it succeed, may a retry help, and the reservation id.
 * A successful QUERY is settled by a probe of its first elements, so a 12 MB inventory is not bound into
 * objects between timed calls; the small answers (RESERVE, failures) are read in full.
 */
record Answer(boolean success, boolean transientFailure, String reservationId, String message) {

    static Answer of(byte[] response) {
        try {
            Probe probe = Probe.of(response);
            if ("SUCCESS".equals(probe.status()) && !"RESERVE".equals(probe.method())) {
                return new Answer(true, false, null, "");
            }
            ResponseData data = BasilCodec.standard().readResponse(response).responseData();
            if (data == null) {
                return new Answer(false, true, null, "no ResponseData element in the response");
            }
            if (data.isSuccess()) {
                Long id = data.content(Reserved.class).map(Reserved::reservationId).orElse(null);
                if (id == null) {
                    return new Answer(false, false, null, "RESERVE answered SUCCESS without a reservation_id");
                }
                return new Answer(true, false, id.toString(), "");
            }
            return new Answer(false, data.errorClass() != ErrorClass.PERMANENT, null, data.messageText());
        } catch (BasilException e) {
            return new Answer(false, true, null, "unreadable response: " + e.getMessage());
        }
    }
}
