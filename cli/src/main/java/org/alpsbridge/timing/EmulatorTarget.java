package org.alpsbridge.timing;

import org.alpsbridge.emulator.Emulator;

/** The ALPS emulator in this process: what ALPS itself costs, with no process start and no network. */
final class EmulatorTarget implements Target {

    private final String name;
    private final Emulator emulator;

    EmulatorTarget(String name, Emulator emulator) {
        this.name = name;
        this.emulator = emulator;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public byte[] call(byte[] request) {
        return emulator.handle(request);
    }
}
