package org.alpsbridge.ledger.service.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.ledger.service.api.Requests;
import org.alpsbridge.ledger.service.client.ServiceOpener;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code alpsbridge ledger web-login}: a sign-in link to the ledger service's web console. */
@Command(name = "web-login",
        mixinStandardHelpOptions = true,
        description = {"Prints a link that signs your browser in to the ledger service's web console as you (your",
                "uid, vouched for by MUNGE, with the role the service gives it). The link works once, for a",
                "minute (console_link_seconds); keep it to yourself: whoever opens it first is signed in as you.",
                "The service is --db (http://HOST:PORT or https://...), else ALPSBRIDGE_LEDGER, else",
                "/etc/alpsbridge/ledger.conf."},
        footer = {"", "Example:", "  alpsbridge ledger --db http://ledger-host:7070 web-login",
                "", "Exit codes: 0 link printed (on stdout); 1 refused or unreachable (reason on stderr)."})
public final class WebLoginCommand implements Callable<Integer> {

    @ParentCommand
    LedgerCommand ledgerCommand;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Requests.SignInLink link;
        try {
            link = ServiceOpener.webLogin(ledgerCommand.url(), ledgerCommand.environment());
        } catch (LedgerException e) {
            spec.commandLine().getErr().println("ledger web-login: " + e.getMessage());
            return 1;
        }
        spec.commandLine().getOut().println(link.url());
        spec.commandLine().getOut().flush();
        long seconds = Math.max(0, Duration.between(Instant.now(), link.expires()).toSeconds());
        spec.commandLine().getErr().println("ledger web-login: signs in " + link.user() + " (" + link.role()
                + ") once, within " + seconds + " s");
        return 0;
    }
}
