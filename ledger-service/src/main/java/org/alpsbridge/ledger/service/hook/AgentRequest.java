package org.alpsbridge.ledger.service.hook;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One call of {@code ledger-prolog} or {@code ledger-epilog} as the C client sends it to the agent (and as a
 * settlement waits in the agent's spool): the hook, the call's options and slurmctld's {@code SLURM_*}
 * environment. Immutable; {@link AgentCodec} reads and writes it.
 *
 * @param prolog the prolog (true) or the epilog
 * @param at when the epilog was called (a spooled settlement); null for a call as it arrives
 * @param spooled the name of the file in the agent's spool into which the C client wrote this epilog's
 *     settlement itself (it tells the agent and does not wait); null when the agent is to spool it
 */
record AgentRequest(boolean prolog, List<String> options, Map<String, String> env, Instant at, String spooled) {

    AgentRequest {
        options = List.copyOf(options);
        env = Map.copyOf(env);
    }

    AgentRequest(boolean prolog, List<String> options, Map<String, String> env, Instant at) {
        this(prolog, options, env, at, null);
    }

    String mode() {
        return prolog ? "prolog" : "epilog";
    }

    /** This request as the spool keeps it: stamped with the epilog's time. */
    AgentRequest at(Instant when) {
        return new AgentRequest(prolog, options, env, when, null);
    }
}
