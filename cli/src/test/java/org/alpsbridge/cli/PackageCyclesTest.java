package org.alpsbridge.cli;

import org.alpsbridge.affinity.policy.Policy;
import org.alpsbridge.architecture.PackageGraph;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.failure.Failures;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.service.server.LedgerServer;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.junit.jupiter.api.Test;

/**
 * The launcher's packages form layers, and so do the packages of every product it carries taken together: each
 * module checks its own, this one also sees a circle that would cross modules (two modules sharing a package).
 */
class PackageCyclesTest {

    @Test
    void mainPackagesOfTheWholeLauncherFormLayers() {
        PackageGraph.of(Main.class, Failures.class, BasilCodec.class, Emulator.class, Ledger.class,
                ProxyDaemon.class, LedgerServer.class, Policy.class).assertNoCycle();
    }
}
