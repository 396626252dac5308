package org.alpsbridge.proxy.orphans;

import java.util.List;
import org.alpsbridge.basil.nodes.NidSet;

/**
 * One reservation as a full inventory shows it: what the detector judges.
 *
 * @param id {@code reservation_id}
 * @param user {@code user_name}
 * @param account {@code account_name}
 * @param batchId {@code batch_id}; null before 1.1
 * @param timeStamp {@code time_stamp} in epoch seconds; 0 before 1.1
 * @param nids nodes with an allocation for it
 * @param apids application ids with a non-zero time stamp (real aprun launches, not the BASIL pseudo-application)
 */
record Seen(long id, String user, String account, String batchId, long timeStamp, NidSet nids, List<Long> apids) {
}
