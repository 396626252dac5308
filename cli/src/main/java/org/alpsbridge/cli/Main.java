package org.alpsbridge.cli;

import org.alpsbridge.affinity.cli.AffinityCommand;
import org.alpsbridge.basil.cli.BasilCommand;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.proxy.cli.ProxyCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code alpsbridge} launcher: one root command, one subcommand per module.
 *
 * <p>Exit codes shared by every subcommand: 0 success, 1 the work failed (the reason is on stderr),
 * 2 the command line was wrong. Subcommands document any further codes in their own help.
 */
@Command(name = "alpsbridge",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Slurm on Cray ALPS: BASIL tools, the apbasil proxy, task affinity and the allocation ledger.",
        subcommands = {
                BasilCommand.class,
                ProxyCommand.class,
                AffinityCommand.class,
                LedgerCommand.class,
                TimeCommand.class,
                DemoCommand.class,
                CommandLine.HelpCommand.class
        },
        footer = {"", "Exit codes: 0 success, 1 failure (reason on stderr), 2 usage error; see each subcommand's help."})
public final class Main {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command tree, for tests that run commands black-box. */
    public static CommandLine commandLine() {
        CommandLine cmd = new CommandLine(new Main());
        // Descriptions are written as lines of up to 120 characters; picocli's 80 would re-wrap them mid-line.
        cmd.setUsageHelpWidth(120);
        cmd.setExecutionExceptionHandler((ex, line, parsed) -> {
            line.getErr().println(line.getCommandName() + ": " + ex.getMessage());
            return 1;
        });
        return cmd;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"alpsbridge " + (v == null ? "development build" : v)};
        }
    }
}
