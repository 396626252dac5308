package org.alpsbridge.proxy.cli;

import picocli.CommandLine.Command;

/** {@code alpsbridge proxy}: the front door of this module's command line. */
@Command(name = "proxy",
        mixinStandardHelpOptions = true,
        description = "The apbasil proxy daemon and its operator commands.",
        subcommands = {ProxyServeCommand.class, ProxyStatsCommand.class, ProxyOrphansCommand.class, ProxyInterruptedCommand.class,
            ProxyBenchCommand.class})
public final class ProxyCommand {
}
