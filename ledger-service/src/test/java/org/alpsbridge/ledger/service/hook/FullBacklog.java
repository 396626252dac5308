package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Connections queued on a unix socket whose listener does not accept them (an agent stopped or in a long pause),
 * until its backlog is full: the next caller's connect waits. Closing them frees the backlog.
 */
final class FullBacklog implements AutoCloseable {

    private final List<SocketChannel> queued = new ArrayList<>();

    FullBacklog(Path socket) throws IOException {
        for (int i = 0; i < 4096; i++) {
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            c.configureBlocking(false);
            try {
                c.connect(UnixDomainSocketAddress.of(socket));
                queued.add(c);
            } catch (IOException full) { // EAGAIN: the backlog is full
                c.close();
                return;
            }
        }
        close();
        throw new IllegalStateException("the backlog of " + socket + " never filled: is its listener accepting?");
    }

    @Override
    public void close() throws IOException {
        for (SocketChannel c : queued) {
            c.close();
        }
        queued.clear();
    }
}
