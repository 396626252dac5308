package org.alpsbridge.proxy.orphans;

import java.util.List;
import org.alpsbridge.basil.nodes.NidSet;
import java.util.stream.Collectors;

/**
 * An ALPS reservation no live scheduler job owns, as found in a full inventory.
 *
 * @param reservationId ALPS reservation id
 * @param user {@code user_name}
 * @param account {@code account_name}
 * @param batchId {@code batch_id}, or null before BASIL 1.1
 * @param nids the nodes it holds (with a processor, memory or accelerator allocation)
 * @param ageSeconds inventory time minus the reservation's {@code time_stamp}, by ALPS's clock
 * @param reasons why it is an orphan, at least one
 * @param apids its applications launched by aprun (time stamp not 0): what {@code apkill} gets after RELEASE
 */
public record Orphan(long reservationId, String user, String account, String batchId, NidSet nids,
                     long ageSeconds, List<Reason> reasons, List<Long> apids) {

    public Orphan {
        reasons = List.copyOf(reasons);
        apids = List.copyOf(apids);
    }

    /** The reasons as one operator phrase, e.g. {@code not created through the proxy; its batch job is gone}. */
    public String why() {
        return reasons.stream().map(Reason::text).collect(Collectors.joining("; "));
    }
}
