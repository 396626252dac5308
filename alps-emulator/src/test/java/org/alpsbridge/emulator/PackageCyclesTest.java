package org.alpsbridge.emulator;

import org.alpsbridge.architecture.PackageGraph;
import org.junit.jupiter.api.Test;

/** This module's main packages form layers: none uses, directly or through others, a package that uses it. */
class PackageCyclesTest {

    @Test
    void mainPackagesFormLayers() {
        PackageGraph.of(Emulator.class).assertNoCycle();
    }
}
