package org.alpsbridge.proxy.server;

import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;

/** The ALPS emulator in this process: the embedded backend for labs, tests and benchmarks. */
final class EmulatorBackend implements Backend {

    private EmulatorBackend() {
    }

    static Backend create(String spec) {
        throw new IllegalArgumentException("emulator:" + spec + ": the ALPS emulator is not in this build yet");
    }

    @Override
    public byte[] call(Call call) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String describe() {
        return "emulator";
    }
}
