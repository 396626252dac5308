package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.alpsbridge.proxy.client.Apbasil;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A socket-level campaign against a running daemon: each input is a connection that sends arbitrary bytes
 * (whole frames, partial frames, garbage, in several writes), sometimes left open as a slow writer would; after
 * each, a well-formed client must still get its answer. The daemon must stay up and never mix the bad
 * connection into the good one.
 */
@ExtendWith(ClientAuthOff.class)
class DaemonSocketFuzzTest {

    /** Slow writers kept open at once, beyond which the oldest is closed (the daemon's timeouts cut the rest). */
    private static final int OPEN_SLOW_WRITERS = 16;
    private static ProxyDaemon daemon;
    private static final Deque<Socket> slowWriters = new ArrayDeque<>();

    @FuzzTest
    void theDaemonSurvivesAnyConnectionAndAnswersTheNextClient(FuzzedDataProvider data) throws Exception {
        // Jazzer's SSRF detector flags every connection; these go only to the test's own daemon on loopback.
        try (SilentCloseable loopbackOnly = BugDetectors.allowNetworkConnections(
                (host, port) -> host.equals("127.0.0.1") || host.equals("localhost"))) {
            oneConnectionThenAWellFormedClient(data);
        }
    }

    private static void oneConnectionThenAWellFormedClient(FuzzedDataProvider data) throws Exception {
        InetSocketAddress at = start();
        Socket s = new Socket();
        s.connect(at, 2000);
        s.setSoTimeout(200);
        OutputStream out = s.getOutputStream();
        try {
            for (int writes = data.consumeInt(1, 4); writes > 0 && data.remainingBytes() > 0; writes--) {
                out.write(data.consumeBytes(data.consumeInt(0, 4096)));
                out.flush();
            }
        } catch (IOException cutOff) {
            // The daemon may close a connection whose frame is already wrong: that is its right.
        }
        if (data.consumeBoolean()) {
            keepOpen(s); // a slow writer: neither finishes nor closes
        } else {
            try {
                s.shutdownOutput();
                drain(s.getInputStream());
            } catch (IOException cutOff) {
                // closed by the daemon: fine
            }
            s.close();
        }
        byte[] answer = Apbasil.call(at.getHostString() + ":" + at.getPort(), ProxyDaemonTest.QUERY_ENGINE,
                Duration.ofSeconds(10));
        assertArrayEquals(ProxyDaemonTest.ENGINE, answer, "the next well-formed client gets its answer");
    }

    @org.junit.jupiter.api.AfterAll
    static void stop() throws IOException {
        for (Socket s : slowWriters) {
            s.close();
        }
        slowWriters.clear();
        if (daemon != null) {
            daemon.close();
            daemon = null;
        }
    }

    private static synchronized InetSocketAddress start() throws Exception {
        if (daemon == null) {
            // Short limits so slow writers are cut off quickly, as a site's would be eventually.
            daemon = ProxyDaemon.builder().config(ProxyDaemonTest.lab("127.0.0.1:0")
                            .with(Map.of("request_timeout", "0.5", "reply_timeout", "2", "max_request_bytes", "65536")))
                    .backend(new ProxyDaemonTest.Canned()).start();
        }
        String text = daemon.address().text();
        int colon = text.lastIndexOf(':');
        return new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    }

    private static void keepOpen(Socket s) throws IOException {
        slowWriters.addLast(s);
        if (slowWriters.size() > OPEN_SLOW_WRITERS) {
            slowWriters.removeFirst().close();
        }
    }

    private static void drain(InputStream in) throws IOException {
        byte[] buf = new byte[8192];
        try {
            while (in.read(buf) >= 0) {
                // the daemon's refusal, if any
            }
        } catch (SocketTimeoutException enough) {
            // it said what it had to say
        }
    }
}
