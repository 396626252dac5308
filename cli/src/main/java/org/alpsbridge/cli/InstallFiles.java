package org.alpsbridge.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.ledger.service.server.ServiceSettings;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.server.ProxyConfig;
import picocli.AutoComplete;
import picocli.CommandLine;

/**
 * Writes the files a package installs beside the jars, all made from the code so they cannot drift from it:
 * a manual page per command ({@code man/man1/alpsbridge-proxy-serve.1}, ...; the package gzips them with
 * {@code gzip -9n}, as Debian policy wants), bash completion for
 * {@code alpsbridge} ({@code bash-completion/alpsbridge}) and the commented settings files
 * ({@code etc/proxy.conf}, {@code etc/apbasil.conf}, {@code etc/ledger.conf}, {@code etc/ledger-service.conf}). Run by the {@code dist}
 * module's build: {@code java -cp alpsbridge.jar org.alpsbridge.cli.InstallFiles OUTDIR VERSION}.
 */
public final class InstallFiles {

    private InstallFiles() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: InstallFiles OUTDIR VERSION");
            System.exit(2);
        }
        List<Path> written = write(Path.of(args[0]), args[1]);
        System.out.println("InstallFiles: wrote " + written.size() + " files under " + args[0]);
    }

    static List<Path> write(Path out, String version) throws IOException {
        List<Path> written = new ArrayList<>();
        CommandLine root = Main.commandLine();
        Path man1 = Files.createDirectories(out.resolve("man/man1"));
        for (CommandLine cmd : commands(root, new ArrayList<>())) {
            Path page = man1.resolve(ManPage.pageName(cmd.getCommandSpec()) + ".1");
            written.add(Files.writeString(page, new ManPage(cmd, version).render()));
        }
        Path completion = Files.createDirectories(out.resolve("bash-completion")).resolve("alpsbridge");
        Files.writeString(completion, AutoComplete.bash("alpsbridge", root));
        written.add(completion);
        Path etc = Files.createDirectories(out.resolve("etc"));
        written.add(Files.writeString(etc.resolve("proxy.conf"), ProxyConfig.template()));
        written.add(Files.writeString(etc.resolve("apbasil.conf"), Apbasil.settingsTemplate()));
        written.add(Files.writeString(etc.resolve("ledger.conf"), LedgerCommand.settingsTemplate()));
        written.add(Files.writeString(etc.resolve("ledger-service.conf"), ServiceSettings.template()));
        return written;
    }

    /** Every command of the tree once (aliases and the help command's repeats left out), root first. */
    static List<CommandLine> commands(CommandLine cmd, List<CommandLine> into) {
        if (!cmd.getCommandSpec().usageMessage().hidden() && !into.contains(cmd)) {
            into.add(cmd);
            cmd.getSubcommands().values().forEach(sub -> commands(sub, into));
        }
        return into;
    }

    /** A command's {@code --help} as a user sees it, for tests comparing it with the page. */
    static String help(CommandLine cmd) {
        StringWriter w = new StringWriter();
        cmd.usage(new PrintWriter(w), CommandLine.Help.Ansi.OFF);
        return w.toString();
    }
}
