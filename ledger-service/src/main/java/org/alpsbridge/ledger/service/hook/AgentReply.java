package org.alpsbridge.ledger.service.hook;

import java.util.List;

/**
 * The agent's answer to one call: the exit code the C client exits with (the hooks' own, see
 * {@link SlurmHook}) and the lines it prints on stderr. Immutable; {@link AgentCodec} reads and writes it.
 */
record AgentReply(int exit, List<String> lines) {

    AgentReply {
        lines = List.copyOf(lines);
    }
}
