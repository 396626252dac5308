package org.alpsbridge.timing;

import java.io.IOException;
import java.time.Duration;
import org.alpsbridge.proxy.client.Apbasil;

/**
 * The proxy daemon through the drop-in client's own code path ({@link Apbasil#call}), minus the JVM start
 * a per-call {@code bin/apbasil} process adds: what an off-system slurmctld pays per BASIL call. Time a few
 * {@code exec:bin/apbasil} calls beside it to see the process cost.
 */
final class ProxyTarget implements Target {

    private final String name;
    private final String address;
    private final Duration timeout;

    ProxyTarget(String name, String address, Duration timeout) {
        this.name = name;
        this.address = address;
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public byte[] call(byte[] request) throws IOException {
        return Apbasil.call(address, request, timeout);
    }
}
