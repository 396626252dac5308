package org.alpsbridge.affinity;

import org.alpsbridge.architecture.PackageGraph;
import org.alpsbridge.affinity.policy.Policy;
import org.junit.jupiter.api.Test;

/** This module's main packages form layers: none uses, directly or through others, a package that uses it. */
class PackageCyclesTest {

    @Test
    void mainPackagesFormLayers() {
        PackageGraph.of(Policy.class).assertNoCycle();
    }
}
