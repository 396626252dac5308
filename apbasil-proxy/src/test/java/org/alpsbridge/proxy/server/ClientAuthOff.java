package org.alpsbridge.proxy.server;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** For tests of a daemon with auth=none: the in-process client attaches no MUNGE credential either. */
final class ClientAuthOff implements BeforeAllCallback, AfterAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        System.setProperty("apbasil.auth", "none");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        System.clearProperty("apbasil.auth");
    }
}
