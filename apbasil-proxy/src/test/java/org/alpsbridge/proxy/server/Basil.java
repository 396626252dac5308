package org.alpsbridge.proxy.server;

import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.ReserveParam;

/** Requests written and responses read with the project's codec, for the daemon's tests. */
final class Basil {

    private static final BasilCodec CODEC = BasilCodec.standard();

    private Basil() {
    }

    static byte[] engine(String protocol) throws BasilException {
        return CODEC.write(BasilRequest.query(protocol, "ENGINE"));
    }

    static byte[] inventory(String protocol) throws BasilException {
        return CODEC.write(BasilRequest.query(protocol, "INVENTORY"));
    }

    static byte[] summary(String protocol) throws BasilException {
        return CODEC.write(BasilRequest.query(protocol, "SUMMARY"));
    }

    static byte[] reserve(String protocol, String batchId, int width) throws BasilException {
        return CODEC.write(BasilRequest.reserve(protocol, "alice", batchId, null,
                List.of(ReserveParam.builder().width(width).build())));
    }

    static byte[] release(String protocol, long reservationId) throws BasilException {
        return CODEC.write(BasilRequest.release(protocol, reservationId));
    }

    static ResponseData data(byte[] response) throws BasilException {
        BasilResponse r = CODEC.readResponse(response);
        return r.responseData();
    }

    static boolean success(byte[] response) throws BasilException {
        return data(response).isSuccess();
    }

    static long reservationId(byte[] response) throws BasilException {
        return data(response).content(Reserved.class).orElseThrow(() -> new AssertionError(
                "no Reserved in " + new String(response))).reservationId();
    }
}
