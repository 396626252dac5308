package org.alpsbridge.proxy.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code alpsbridge proxy interrupted}: the exchanges a restarted daemon found running when it last stopped. */
@Command(name = "interrupted",
        mixinStandardHelpOptions = true,
        description = {
            "Lists the RESERVE/CONFIRM/RELEASE/SWITCH exchanges that were running when the daemon last stopped,",
            "as its exchange_journal recorded them: their outcome is unknown, so the daemon will not run them",
            "again. One line each: start time, uid, method, exchange id. Empty when there were none or the",
            "daemon keeps no journal. Check them against 'alpsbridge proxy orphans'."},
        footer = {"", "Exit codes: 0 listed, 1 the daemon could not be asked (reason on stderr), 2 usage error."})
public final class ProxyInterruptedCommand implements Callable<Integer> {

    @Mixin
    AdminConnection daemon = new AdminConnection();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        spec.commandLine().getOut().print(daemon.run("interrupted", Map.of()));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
