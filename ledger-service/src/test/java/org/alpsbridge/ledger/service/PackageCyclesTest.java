package org.alpsbridge.ledger.service;

import org.alpsbridge.architecture.PackageGraph;
import org.alpsbridge.ledger.service.server.LedgerServer;
import org.junit.jupiter.api.Test;

/** This module's main packages form layers: none uses, directly or through others, a package that uses it. */
class PackageCyclesTest {

    @Test
    void mainPackagesFormLayers() {
        PackageGraph.of(LedgerServer.class).assertNoCycle();
    }
}
