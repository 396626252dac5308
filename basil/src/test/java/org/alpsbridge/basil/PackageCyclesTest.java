package org.alpsbridge.basil;

import org.alpsbridge.architecture.PackageGraph;
import org.alpsbridge.basil.codec.BasilCodec;
import org.junit.jupiter.api.Test;

/** This module's main packages form layers: none uses, directly or through others, a package that uses it. */
class PackageCyclesTest {

    @Test
    void mainPackagesFormLayers() {
        PackageGraph.of(BasilCodec.class).assertNoCycle();
    }
}
