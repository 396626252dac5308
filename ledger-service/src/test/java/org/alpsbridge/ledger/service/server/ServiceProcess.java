package org.alpsbridge.ledger.service.server;

import java.nio.file.Path;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.service.console.Console;

/**
 * A ledger service in a process of its own, for tests that kill it ({@code kill -9}) and start it again:
 * {@code ServiceProcess DB_URL SETTINGS_FILE}; prints {@code READY} once it listens, runs until killed.
 */
public final class ServiceProcess {

    private ServiceProcess() {
    }

    public static void main(String[] args) throws Exception {
        Ledger ledger = Ledger.open(args[0]);
        ServiceSettings settings = ServiceSettings.load(Path.of(args[1]));
        LedgerServer.start(ledger, settings, "test", Console.of(settings));
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
