package org.alpsbridge.proxy.server;

import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;

/**
 * The ALPS emulator in this process ({@code emulator:SPEC}): the embedded backend for labs, tests and
 * benchmarks. Its answers are checked like exec's, so the emulator's own garbage and truncation faults
 * reach callers as BASIL FAILUREs, as a broken apbasil's would.
 */
public final class EmulatorBackend implements Backend {

    private final String spec;
    private final Emulator emulator;

    public EmulatorBackend(String spec, Emulator emulator) {
        this.spec = spec;
        this.emulator = emulator;
    }

    /** @throws IllegalArgumentException naming what is wrong with the machine spec */
    static EmulatorBackend create(String spec) {
        return new EmulatorBackend(spec, Emulator.create(spec));
    }

    /** The emulator itself, for its fault and scenario controls. */
    public Emulator emulator() {
        return emulator;
    }

    @Override
    public byte[] call(Call call) throws BackendException {
        byte[] out = emulator.handle(call.request());
        if (Thread.interrupted()) {
            throw new BackendException("the emulator was interrupted (time limit)", true);
        }
        String problem = BasilDocuments.responseProblem(out);
        if (problem != null) {
            throw new BackendException(describe() + " wrote " + out.length + " bytes that are not a BASIL response ("
                    + problem + ")", true);
        }
        return out;
    }

    @Override
    public String describe() {
        return "emulator:" + spec;
    }
}
