package org.alpsbridge.proxy.policy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.stats.Counter;

/**
 * The last QUERY(ENGINE) answer ALPS gave to each request, given again while ALPS cannot answer. What ALPS is does
 * not change while it is unreachable, and a scheduler program that starts then cannot do without it: Slurm 18.08's
 * slurmstepd asks ENGINE first at every job's start and end and fatal()s without an answer ("can not determine ALPS
 * Engine version", libalps/do_query.c), which leaves its job's reservation held. Any other answer, and every answer
 * while ALPS answers, passes through.
 */
final class EngineMemory {

    private final Map<String, byte[]> last = new ConcurrentHashMap<>();
    private final Counter answered;

    EngineMemory(Counter answered) {
        this.answered = answered;
    }

    byte[] call(Backend below, Call call) throws BackendException {
        String key = new String(call.request(), StandardCharsets.UTF_8);
        byte[] answer;
        try {
            answer = below.call(call);
        } catch (BackendException e) {
            byte[] remembered = last.get(key);
            if (remembered == null || !e.isTransient()) {
                throw e;
            }
            answered.increment("memory");
            return remembered;
        }
        if (isSuccess(answer)) {
            last.put(key, answer);
            answered.increment("backend");
            return answer;
        }
        byte[] remembered = last.get(key);
        if (remembered != null && isTransientFailure(answer)) {
            answered.increment("memory");
            return remembered;
        }
        return answer;
    }

    private static boolean isSuccess(byte[] answer) {
        ResponseData d = read(answer);
        return d != null && d.isSuccess();
    }

    private static boolean isTransientFailure(byte[] answer) {
        ResponseData d = read(answer);
        return d != null && !d.isSuccess() && d.errorClass() == ErrorClass.TRANSIENT;
    }

    private static ResponseData read(byte[] answer) {
        try {
            return BasilCodec.standard().readResponse(answer).responseData();
        } catch (BasilException e) {
            return null;
        }
    }
}
