package org.alpsbridge.basil.inventory;

import java.util.ArrayList;
import java.util.List;

/**
 * One inventory reservation, version-neutral. Attributes a version does not carry are {@code null}
 * ({@code timeStamp} and {@code batchId} before 1.1, the modes before "1.1+").
 *
 * @param batchId the batch job id given at RESERVE, or {@code UNKNOWN} for aprun on interactive nodes
 */
public record ReservationView(long reservationId, String userName, String accountName, Long timeStamp,
                              String batchId, String reservationMode, String gpcMode,
                              List<Application> applications) {

    /** What marks reservations aprun made on interactive nodes; they are never orphans. */
    public static final String UNKNOWN_BATCH_ID = "UNKNOWN";

    public ReservationView {
        applications = List.copyOf(applications);
    }

    /** An application; {@code timeStamp == 0} marks the reservation's BASIL pseudo-application. */
    public record Application(long applicationId, long userId, long groupId, long timeStamp, List<Command> commands) {
        public Application {
            commands = List.copyOf(commands);
        }

        /** Whether this is the {@code cmd="BASIL"} pseudo-application every reservation carries. */
        public boolean isReservationPseudoApplication() {
            return timeStamp == 0;
        }
    }

    /** A command: width, depth, nppn, memory per PE in MB, architecture, binary name ({@code BASIL} for the pseudo-application). */
    public record Command(long width, long depth, long nppn, long memory, String architecture, String cmd) {
    }

    /** APIDs of real aprun launches ({@code time_stamp} ≠ 0): what a safe release must {@code apkill}. */
    public List<Long> launchedApplicationIds() {
        List<Long> ids = new ArrayList<>();
        for (Application a : applications) {
            if (!a.isReservationPseudoApplication()) {
                ids.add(a.applicationId());
            }
        }
        return ids;
    }

    /** Whether aprun made this reservation on an interactive node ({@code batch_id="UNKNOWN"}). */
    public boolean isInteractive() {
        return UNKNOWN_BATCH_ID.equals(batchId);
    }
}
