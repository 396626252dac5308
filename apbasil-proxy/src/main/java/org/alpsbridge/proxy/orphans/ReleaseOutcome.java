package org.alpsbridge.proxy.orphans;

import java.util.List;
import java.util.stream.Collectors;
import org.alpsbridge.json.JsonText;

/**
 * What releasing one orphan did.
 *
 * @param reservationId the reservation
 * @param released ALPS took the RELEASE, or no longer knew the reservation
 * @param message ALPS's answer, or why there was none
 * @param kills one {@code apkill -9} per launched application, run only once released
 */
public record ReleaseOutcome(long reservationId, boolean released, String message, List<Kill> kills) {

    public ReleaseOutcome {
        kills = List.copyOf(kills);
    }

    /**
     * One {@code apkill} run.
     *
     * @param apid the application
     * @param exitStatus apkill's exit status, or -1 when it could not be run or timed out
     * @param message what went wrong, or empty
     */
    public record Kill(long apid, int exitStatus, String message) {
        public boolean succeeded() {
            return exitStatus == 0;
        }
    }

    /** One line: {@code released, apkill 1000001 ok}. */
    public String summary() {
        return (released ? "released" : "not released: " + message)
                + kills.stream().map(k -> ", apkill " + k.apid() + (k.succeeded() ? " ok" : " failed: " + k.message()))
                .collect(Collectors.joining());
    }

    String toJson() {
        return "{\"released\":" + released + ",\"message\":" + JsonText.quote(message) + ",\"apkill\":["
                + kills.stream().map(k -> "{\"apid\":" + k.apid() + ",\"exitStatus\":" + k.exitStatus() + ",\"message\":"
                + JsonText.quote(k.message()) + "}").collect(Collectors.joining(",")) + "]}";
    }
}
