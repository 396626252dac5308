package org.alpsbridge.ledger;

/**
 * Which reservation a CONFIRM or RELEASE is about. BASIL CONFIRM and RELEASE carry only the ALPS
 * reservation id, so {@code batchId} may be null: the most recent reservation with that id on that
 * cluster is meant (ALPS reuses ids only long after release).
 */
public record Lookup(String cluster, long resId, String batchId) {

    public Lookup {
        cluster = Ledger.cluster(cluster);
        if (resId <= 0) {
            throw new LedgerException("reservation id must be positive, got " + resId);
        }
    }

    public static Lookup of(long resId) {
        return new Lookup(null, resId, null);
    }

    @Override
    public String toString() {
        return cluster + "/" + (batchId == null ? "*" : batchId) + "/" + resId;
    }
}
