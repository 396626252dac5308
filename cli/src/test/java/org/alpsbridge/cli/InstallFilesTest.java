package org.alpsbridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.alpsbridge.ledger.service.server.ServiceSettings;
import org.alpsbridge.proxy.server.ProxyConfig;
import org.alpsbridge.settings.Setting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The files a package installs beside the jars say what --help says, because they are made from the same definitions. */
class InstallFilesTest {

    @TempDir
    Path out;

    @Test
    void everyCommandGetsAPageNamedAfterItsPathAndEveryOptionOfItsHelpIsOnIt() throws Exception {
        InstallFiles.write(out, "9.9.9");
        List<CommandLine> commands = InstallFiles.commands(Main.commandLine(), new java.util.ArrayList<>());
        assertTrue(commands.size() > 40, "the whole tree: " + commands.size());
        for (CommandLine cmd : commands) {
            String name = ManPage.pageName(cmd.getCommandSpec());
            Path page = out.resolve("man/man1/" + name + ".1");
            assertTrue(Files.exists(page), name);
            String text = Files.readString(page);
            assertTrue(text.contains("\n.SH NAME\n" + ManPage.escape(name) + " \\- "), name);
            assertTrue(text.contains("\"alpsbridge 9.9.9\""), name);
            String help = InstallFiles.help(cmd);
            for (OptionSpec o : cmd.getCommandSpec().options()) {
                if (!o.hidden()) {
                    // A negatable option shows as --[no-]progress in --help.
                    String bare = o.longestName().replaceFirst("^-+", "");
                    assertTrue(help.contains(bare), o.longestName() + " in --help of " + name);
                    assertTrue(text.contains(ManPage.escape(o.longestName())), o.longestName() + " on page " + name);
                }
            }
        }
        String serve = Files.readString(out.resolve("man/man1/alpsbridge-proxy-serve.1"));
        assertTrue(serve.contains("\\fB\\-\\-config\\fR \\fIFILE\\fR"), serve);
        assertFalse(serve.contains("Default: {}"), "an empty map has no default worth printing");
    }

    @Test
    void requiredOptionsAreMarkedSoWithNoDefaultAndUnitsAreNamed() throws Exception {
        InstallFiles.write(out, "9.9.9");
        for (CommandLine cmd : InstallFiles.commands(Main.commandLine(), new java.util.ArrayList<>())) {
            String text = Files.readString(out.resolve("man/man1/" + ManPage.pageName(cmd.getCommandSpec()) + ".1"));
            for (OptionSpec o : cmd.getCommandSpec().options()) {
                if (o.required() && !o.hidden() && o.group() == null) {
                    int at = text.indexOf("\\fB" + ManPage.escape(String.join(", ", o.names())) + "\\fR");
                    assertTrue(at >= 0, o.longestName() + " on the page of " + cmd.getCommandSpec().qualifiedName());
                    String entry = text.substring(at);
                    entry = entry.substring(0, entry.indexOf("\n.TP") < 0 ? entry.length() : entry.indexOf("\n.TP"));
                    assertTrue(entry.contains("Required.") && !entry.contains("Default:"),
                            o.longestName() + " of " + cmd.getCommandSpec().qualifiedName() + ": " + entry);
                    // the usage line shows it without [ ]: --help and the page agree it must be given
                    String synopsis = cmd.getHelp().synopsis(0);
                    assertTrue(java.util.Arrays.stream(o.names()).anyMatch(n -> synopsis.matches(
                                    "(?s).*\\s" + java.util.regex.Pattern.quote(n) + "\\b.*")),
                            o.longestName() + " unbracketed in " + cmd.getHelp().synopsis(0));
                }
            }
            // one way of writing a PostgreSQL URL, the one every command and settings file accepts
            assertFalse(text.replace("jdbc:postgresql://", "").contains("postgresql://"),
                    ManPage.pageName(cmd.getCommandSpec()));
        }
        String reserve = Files.readString(out.resolve("man/man1/alpsbridge-ledger-reserve.1"));
        assertTrue(reserve.contains("Time limit in minutes"), reserve);
        String release = Files.readString(out.resolve("man/man1/alpsbridge-ledger-release.1"));
        assertTrue(release.contains("Seconds the job ran"), release);
        assertTrue(InstallFiles.help(Main.commandLine().getSubcommands().get("ledger").getSubcommands().get("reserve"))
                .contains(" --batch-id=<batchId>"), "required in the usage line");
    }

    @Test
    void theSettingsFilesAndCompletionAreWrittenToo() throws Exception {
        InstallFiles.write(out, "9.9.9");
        assertTrue(Files.readString(out.resolve("etc/proxy.conf")).contains("\n#listen=127.0.0.1:6830\n"));
        assertTrue(Files.readString(out.resolve("etc/apbasil.conf")).contains("\n#proxy=127.0.0.1:6830\n"));
        assertTrue(Files.readString(out.resolve("etc/ledger.conf")).contains("\n#db=\n"));
        String completion = Files.readString(out.resolve("bash-completion/alpsbridge"));
        assertTrue(completion.contains("complete -F") && completion.contains("proxy"), "bash completion");
    }

    @Test
    void theDaemonsPagesListEverySettingsKeyAtItsDefault() throws Exception {
        InstallFiles.write(out, "9.9.9");
        Map<String, List<Setting>> pages = Map.of("alpsbridge-proxy-serve", ProxyConfig.settings(),
                "alpsbridge-ledger-serve", ServiceSettings.settings());
        for (Map.Entry<String, List<Setting>> page : pages.entrySet()) {
            String text = Files.readString(out.resolve("man/man1/" + page.getKey() + ".1"));
            for (Setting k : page.getValue()) {
                String shown = k.defaultValue().isEmpty() ? "(empty)" : k.defaultValue();
                assertTrue(Pattern.compile("(?m)^  " + Pattern.quote(ManPage.escape(k.name())) + " +"
                        + Pattern.quote(ManPage.escape(shown)) + "( |$)").matcher(text).find(), page.getKey() + ": " + k.name());
            }
        }
    }

    @Test
    void troffControlCharactersAreEscaped() {
        assertEquals("\\-\\-db a\\ec", ManPage.escape("--db a\\c"));
        assertEquals("text\n\\&.TH not a request\n\\&'neither", ManPage.escape("text\n.TH not a request\n'neither"));
    }
}
