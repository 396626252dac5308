package org.alpsbridge.proxy.policy;

import java.util.List;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;

/** Receives every full inventory the policy fetched from the backend (the orphan watch is one). */
@FunctionalInterface
public interface FullInventoryListener {

    /**
     * @param fetchStartedNanos {@link System#nanoTime()} when the fetch started: anything the proxy
     *     forwarded after that may or may not be in this inventory
     */
    void fullInventory(InventoryHeader header, List<NodeView> nodes, List<ReservationView> reservations,
                       long fetchStartedNanos);
}
