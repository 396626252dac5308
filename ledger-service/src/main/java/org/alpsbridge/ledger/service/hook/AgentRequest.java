package org.alpsbridge.ledger.service.hook;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One call of {@code ledger-prolog}, {@code ledger-epilog} or {@code ledger-submit} as the C client sends it to the
 * agent (and as a settlement waits in the agent's spool): the hook, the call's options and slurmctld's {@code SLURM_*}
 * environment (for a submission, the job_submit plugin's description of the job). Immutable; {@link AgentCodec}
 * reads and writes it.
 *
 * @param mode {@link #PROLOG}, {@link #EPILOG} or {@link #SUBMIT}
 * @param at when the epilog was called (a spooled settlement); null for a call as it arrives
 * @param spooled the name of the file in the agent's spool into which the C client wrote this epilog's
 *     settlement itself (it tells the agent and does not wait); null when the agent is to spool it
 */
record AgentRequest(String mode, List<String> options, Map<String, String> env, Instant at, String spooled) {

    static final String PROLOG = "prolog";
    static final String EPILOG = "epilog";
    /** A job being submitted: could its project cover its worst case now (job_submit plugin; nothing is held)? */
    static final String SUBMIT = "submit";

    AgentRequest {
        if (!PROLOG.equals(mode) && !EPILOG.equals(mode) && !SUBMIT.equals(mode)) {
            throw new IllegalArgumentException("mode must be prolog, epilog or submit, not '" + mode + "'");
        }
        options = List.copyOf(options);
        env = Map.copyOf(env);
    }

    AgentRequest(boolean prolog, List<String> options, Map<String, String> env, Instant at, String spooled) {
        this(prolog ? PROLOG : EPILOG, options, env, at, spooled);
    }

    AgentRequest(boolean prolog, List<String> options, Map<String, String> env, Instant at) {
        this(prolog, options, env, at, null);
    }

    boolean prolog() {
        return PROLOG.equals(mode);
    }

    boolean submit() {
        return SUBMIT.equals(mode);
    }

    /** This request as the spool keeps it: stamped with the epilog's time. */
    AgentRequest at(Instant when) {
        return new AgentRequest(mode, options, env, when, null);
    }
}
