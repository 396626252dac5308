package org.alpsbridge.cli;

import org.alpsbridge.affinity.cli.AffinityCommand;
import org.alpsbridge.basil.cli.BasilCommand;
import org.alpsbridge.emulator.cli.EmulateCommand;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.ledger.service.cli.ServeCommand;
import org.alpsbridge.proxy.cli.ProxyCommand;
import org.alpsbridge.proxy.cli.ProxyServeCommand;
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
        ServeCommand.install(cmd.getSubcommands().get("ledger"));
        EmulateCommand.install(cmd.getSubcommands().get("basil"));
        ProxyServeCommand.listSettings(cmd.getSubcommands().get("proxy").getSubcommands().get("serve"));
        cmd.setUsageHelpWidth(120);
        summarizeCommandLists(cmd);
        cmd.setExecutionExceptionHandler((ex, line, parsed) -> {
            // "proxy serve: ...", as the ledger's commands name themselves; the failure in words, never a bare path
            String name = line.getCommandSpec().qualifiedName(" ").replaceFirst("^alpsbridge ", "");
            line.getErr().println(name + ": " + org.alpsbridge.failure.Failures.describe(ex));
            return 1;
        });
        return cmd;
    }

    /**
     * Command lists show each subcommand's first sentence: picocli shows the first line of its description,
     * which for descriptions written as several lines stops mid-sentence.
     */
    private static void summarizeCommandLists(CommandLine cmd) {
        if (!cmd.getSubcommands().isEmpty()) {
            cmd.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, Main::commandList);
            cmd.getSubcommands().values().stream().distinct().forEach(Main::summarizeCommandLists);
        }
    }

    private static String commandList(CommandLine.Help help) {
        var subcommands = help.subcommands();
        int nameWidth = subcommands.keySet().stream().mapToInt(String::length).max().orElse(0) + 4;
        int width = help.commandSpec().usageMessage().width();
        CommandLine.Help.TextTable table = CommandLine.Help.TextTable.forColumns(help.colorScheme(),
                new CommandLine.Help.Column(nameWidth, 2, CommandLine.Help.Column.Overflow.SPAN),
                new CommandLine.Help.Column(width - nameWidth, 2, CommandLine.Help.Column.Overflow.WRAP));
        subcommands.forEach((name, sub) -> table.addRowValues(name, firstSentence(sub.commandSpec())));
        return table.toString();
    }

    static String firstSentence(CommandLine.Model.CommandSpec spec) {
        String[] header = spec.usageMessage().header();
        String text = String.join(" ", header.length > 0 ? header : spec.usageMessage().description()).replaceAll("\\s+", " ").trim();
        // The first sentence; a colon ends it too once it has said something ("Balances: granted, ..." goes on).
        for (int i = 0; i < text.length() - 1; i++) {
            char c = text.charAt(i);
            if (text.charAt(i + 1) == ' ' && (c == '.' || c == ':' && i >= 40)) {
                return text.substring(0, i) + ".";
            }
        }
        return text;
    }

    /** The version and commit written into the jar at build time ({@code build.properties}). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws java.io.IOException {
            java.util.Properties build = new java.util.Properties();
            try (java.io.InputStream in = Main.class.getResourceAsStream("build.properties")) {
                if (in != null) {
                    build.load(in);
                }
            }
            return new String[] {"alpsbridge " + build.getProperty("version", "(version unknown)") + " (commit "
                    + build.getProperty("commit", "unknown") + ")"};
        }
    }
}
