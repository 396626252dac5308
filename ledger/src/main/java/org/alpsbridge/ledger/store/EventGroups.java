package org.alpsbridge.ledger.store;

import java.util.LinkedHashMap;
import java.util.Map;
import org.alpsbridge.ledger.Lookup;

/**
 * Which project a job event charges, remembered from the RESERVE (and the bind) of this process, so a
 * later CONFIRM, RELEASE, bind or void of the same reservation joins the same group-commit writer as
 * the other events on that allocation. Only a routing hint: a miss (another process reserved it, or it
 * was forgotten) costs some lock waiting between writers, never correctness.
 */
final class EventGroups {

    /** Reservations remembered at most (the oldest forgotten first). */
    static final int CAPACITY = 65_536;

    private final Map<String, String> projects = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > CAPACITY;
        }
    };

    /** The reservation {@code key} (ALPS id {@code resId} on {@code cluster}, 0 if not known yet) is in {@code group}. */
    synchronized void remember(String key, String cluster, long resId, String group) {
        if (group == null) {
            return;
        }
        projects.put(key, group);
        if (resId > 0) {
            projects.put(cluster + "#" + resId, group);
        }
    }

    synchronized String of(String key) {
        return projects.get(key);
    }

    synchronized String of(Lookup l) {
        return projects.get(l.cluster() + "#" + l.resId());
    }
}
