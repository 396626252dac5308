package org.alpsbridge.emulator;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One ALPS reservation: who made it, what it asked for (one command per ReserveParam, shown in the
 * inventory as the {@code cmd="BASIL"} pseudo-application) and what it holds on each node. Mutable
 * only through {@link Apsched}, under its lock.
 */
final class Reservation {

    /** What one ReserveParam asked for, as the BASIL pseudo-application's Command shows it. */
    record Command(long width, long depth, long nppn, long memoryMb, String architecture) {
    }

    /**
     * What the reservation holds on one node: processors by node-local index, memory pages by segment,
     * and whether it holds the node's accelerator.
     */
    record Share(int node, BitSet processors, long[] pages, boolean accelerator, String memoryType) {
        long totalPages() {
            long sum = 0;
            for (long p : pages) {
                sum += p;
            }
            return sum;
        }
    }

    /** An aprun application running inside the reservation (made by the control API, never by BASIL). */
    record Application(long apid, long userId, long groupId, long timeStamp, String cmd, long width, long depth, long nppn) {
    }

    final long id;
    final String user;
    final String account;
    final String batchId;
    final boolean shared;
    final String gpcMode;
    final long timeStamp;
    final List<Command> commands;
    final List<Share> shares;
    final List<Application> applications = new ArrayList<>();
    /** APID of the {@code cmd="BASIL"} pseudo-application; given when ALPS takes the reservation. */
    long basilApid;
    long pagg;
    boolean suspended;
    /** RELEASE arrived while applications still ran: the reservation goes when the last one ends. */
    boolean releasing;

    Reservation(long id, String user, String account, String batchId, boolean shared, String gpcMode, long timeStamp,
                List<Command> commands, List<Share> shares) {
        this.id = id;
        this.user = user;
        this.account = account;
        this.batchId = batchId;
        this.shared = shared;
        this.gpcMode = gpcMode;
        this.timeStamp = timeStamp;
        this.commands = List.copyOf(commands);
        this.shares = List.copyOf(shares);
    }

    /** An independent copy: same fields, own processor sets and applications. */
    Reservation copy() {
        List<Share> copied = shares.stream()
                .map(s -> new Share(s.node(), (BitSet) s.processors().clone(), s.pages().clone(), s.accelerator(), s.memoryType()))
                .toList();
        Reservation r = new Reservation(id, user, account, batchId, shared, gpcMode, timeStamp, commands, copied);
        r.applications.addAll(applications);
        r.basilApid = basilApid;
        r.pagg = pagg;
        r.suspended = suspended;
        r.releasing = releasing;
        return r;
    }

    boolean confirmed() {
        return pagg != 0;
    }

    /** NIDs are the caller's business; this is the node indices the reservation holds, in placement order. */
    int[] nodes() {
        return shares.stream().mapToInt(Share::node).toArray();
    }
}
