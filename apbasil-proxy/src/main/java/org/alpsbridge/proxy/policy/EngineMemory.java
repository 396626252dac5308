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
 * while ALPS answers, passes through. With a pair of proxies the answers are kept for both ({@link #share}): the
 * survivor of a failover while ALPS is unreachable has never asked ALPS itself.
 */
final class EngineMemory {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(EngineMemory.class);

    private final Map<String, byte[]> last = new ConcurrentHashMap<>();
    private final Counter answered;
    private volatile InventoryPolicy.SharedAnswers shared;

    EngineMemory(Counter answered) {
        this.answered = answered;
    }

    /** Also keeps each answer where the other proxy of a pair finds it, and looks there for one not known here. */
    void share(InventoryPolicy.SharedAnswers pair) {
        this.shared = pair;
    }

    byte[] call(Backend below, Call call) throws BackendException {
        String key = new String(call.request(), StandardCharsets.UTF_8);
        byte[] answer;
        try {
            answer = below.call(call);
        } catch (BackendException e) {
            byte[] remembered = remembered(key);
            if (remembered == null || !e.isTransient()) {
                throw e;
            }
            answered.increment("memory");
            return remembered;
        }
        if (isSuccess(answer)) {
            byte[] before = last.put(key, answer);
            InventoryPolicy.SharedAnswers pair = shared;
            if (pair != null && !java.util.Arrays.equals(before, answer)) {
                try {
                    pair.put(key, answer);
                } catch (Exception e) {
                    last.remove(key, answer); // kept for the pair at the next answer
                    log.warn("policy: cannot keep the ENGINE answer for the other proxy of the pair: {}", e.getMessage());
                }
            }
            answered.increment("backend");
            return answer;
        }
        byte[] remembered = remembered(key);
        if (remembered != null && isTransientFailure(answer)) {
            answered.increment("memory");
            return remembered;
        }
        return answer;
    }

    /** The last answer to {@code key} known here, else the pair's (a survivor that never asked ALPS itself). */
    private byte[] remembered(String key) {
        byte[] known = last.get(key);
        InventoryPolicy.SharedAnswers pair = shared;
        if (known != null || pair == null) {
            return known;
        }
        try {
            known = pair.get(key);
        } catch (Exception e) {
            log.warn("policy: cannot read the pair's ENGINE answer: {}", e.getMessage());
            return null;
        }
        if (known != null && isSuccess(known)) {
            last.putIfAbsent(key, known);
            return known;
        }
        return null;
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
