package org.alpsbridge.affinity.agent;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;

/** The plugin's side of the wire in Java, for the agent's tests: one request, one reply. */
final class AgentClient {

    /** An answer, or the agent's reason for not serving the call. */
    record Reply(AgentCodec.Answer answer, String unserved) {
    }

    private AgentClient() {
    }

    static Reply ask(Path socket, List<String> args) throws IOException {
        return send(socket, AgentCodec.request(args));
    }

    /** Sends these bytes as they are (a request, or anything else) and reads one reply frame. */
    static Reply send(Path socket, byte[] bytes) throws IOException {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                c.write(b);
            }
            c.shutdownOutput();
            InputStream in = Channels.newInputStream(c);
            StringBuilder unserved = new StringBuilder();
            AgentCodec.Answer a = AgentCodec.reply(AgentCodec.readFrame(in, AgentCodec.MAX_REPLY), unserved);
            return new Reply(a, a == null ? unserved.toString() : null);
        }
    }
}
