package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.time.Duration;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.client.ApbasilException;

/**
 * Another daemon as the backend ({@code proxy:HOST:PORT} or {@code proxy:unix:/path}), asked from this process as
 * {@code bin/apbasil} asks (its settings: {@code APBASIL_AUTH}, {@code APBASIL_MUNGE_SOCKET}, ... of this daemon's
 * environment), so no process is started per call. What it is for: a daemon in front of a resident ALPS that another
 * daemon fronts as well, e.g. the interop bench's on- and off-system runs, whose ALPS must cost the same both ways.
 */
final class ProxyBackend implements Backend {

    private final String address;
    private final Duration timeout;

    ProxyBackend(String address, Duration timeout) {
        if (address.isBlank()) {
            throw new IllegalArgumentException("backend proxy: needs the daemon's address, host:port or unix:/path");
        }
        this.address = address;
        this.timeout = timeout;
    }

    @Override
    public byte[] call(Call call) throws BackendException {
        try {
            return Apbasil.call(address, call.request(), timeout);
        } catch (ApbasilException e) {
            throw new BackendException(describe() + ": " + e.getMessage(), e.isTransient(), e);
        } catch (IOException e) {
            throw new BackendException(describe() + ": " + e.getMessage(), true, e);
        }
    }

    @Override
    public String describe() {
        return "proxy:" + address;
    }
}
