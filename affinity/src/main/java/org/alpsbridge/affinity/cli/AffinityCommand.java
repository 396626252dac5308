package org.alpsbridge.affinity.cli;

import picocli.CommandLine.Command;

/** {@code alpsbridge affinity}: the front door of this module's command line. */
@Command(name = "affinity",
        mixinStandardHelpOptions = true,
        description = "Reduced-auto-affinity CPU masks for the tasks of a node.",
        subcommands = {})
public final class AffinityCommand {
}
