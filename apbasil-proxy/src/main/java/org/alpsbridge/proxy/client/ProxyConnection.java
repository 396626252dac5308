package org.alpsbridge.proxy.client;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;
import org.alpsbridge.proxy.wire.WireException;

/**
 * One connection, one exchange: connect, write the length-prefixed {@link Exchange}, read the
 * length-prefixed {@link Reply}, close. Plain JDK: TCP through {@link Socket} (optionally TLS),
 * unix sockets through {@link SocketChannel}. A watchdog closes the connection at the deadline, so
 * a daemon that stalls half-way through a reply cannot hold the caller past {@code timeout}.
 */
public final class ProxyConnection {

    /** The largest reply accepted unless configured otherwise: far above a 100,000-node inventory. */
    public static final int DEFAULT_MAX_REPLY_BYTES = 512 * 1024 * 1024;

    private ProxyConnection() {
    }

    /** Sends one exchange and waits for its reply, with no connect limit but the whole {@code timeout}. */
    public static Reply roundTrip(ProxyAddress address, Exchange exchange, Duration timeout,
            SSLSocketFactory tls, int maxReplyBytes) throws ApbasilException {
        return roundTrip(address, exchange, timeout, Duration.ZERO, tls, maxReplyBytes);
    }

    /**
     * Sends one exchange and waits for its reply.
     *
     * @param timeout the limit for the whole exchange, connecting included
     * @param connectTimeout the limit for connecting (and the TLS handshake) when shorter than {@code timeout};
     *        zero for none of its own. A connect that runs out of it has sent nothing: the next proxy may be tried.
     * @param tls socket factory for TLS on TCP, or null for plain TCP (ignored for unix sockets)
     */
    public static Reply roundTrip(ProxyAddress address, Exchange exchange, Duration timeout, Duration connectTimeout,
            SSLSocketFactory tls, int maxReplyBytes) throws ApbasilException {
        byte[] body = exchange.encode();
        long start = System.nanoTime();
        Duration connectLimit = connectTimeout.isZero() || connectTimeout.compareTo(timeout) > 0 ? timeout
                : connectTimeout;
        Watchdog connecting = new Watchdog(connectLimit);
        Closeable connection = null;
        InputStream in;
        OutputStream out;
        try {
            if (address.isUnix()) {
                // A unix connect blocks while the daemon's backlog is full (a daemon that stopped accepting).
                SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                connection = ch;
                connecting.guard(ch);
                ch.connect(address.socketAddress());
                in = Channels.newInputStream(ch);
                out = Channels.newOutputStream(ch);
            } else {
                Socket s = new Socket();
                connection = s;
                connecting.guard(s);
                s.setTcpNoDelay(true);
                s.connect(address.resolved(), (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectLimit.toMillis())));
                if (tls != null) {
                    InetSocketAddress daemon = (InetSocketAddress) address.socketAddress();
                    SSLSocket ssl = (SSLSocket) tls.createSocket(s, daemon.getHostString(), daemon.getPort(), true);
                    SSLParameters params = ssl.getSSLParameters();
                    // The certificate must name the host the client was pointed at, not merely chain to tls_ca.
                    params.setEndpointIdentificationAlgorithm("HTTPS");
                    ssl.setSSLParameters(params);
                    // The watchdog still guards the plain socket: closing it ends a handshake that gets no answer.
                    connection = ssl;
                    ssl.startHandshake();
                    s = ssl;
                }
                in = s.getInputStream();
                out = s.getOutputStream();
            }
            if (!connecting.disarm()) {
                // connected just as the limit passed, and the watchdog has closed (or is closing) the connection
                throw new SocketTimeoutException();
            }
        } catch (IOException e) {
            connecting.disarm();
            closeQuietly(connection);
            String why = connecting.fired() || e instanceof SocketTimeoutException
                    ? "timed out after " + connectLimit.toMillis() + " ms" : describe(e);
            throw new ApbasilException("cannot connect to the apbasil proxy at " + address + ": " + why,
                    false, true, e);
        }
        Watchdog watchdog = new Watchdog(timeout.minusNanos(System.nanoTime() - start));
        try {
            watchdog.guard(connection);
        } catch (IOException e) {
            // closed at once: the call's deadline has passed; the read below reports it
        }
        boolean sent = false;
        try (Closeable c = connection) {
            // One write, so the frame leaves as one segment (TCP_NODELAY) instead of five.
            byte[] frame = new byte[Integer.BYTES + body.length];
            ByteBuffer.wrap(frame).putInt(body.length).put(body);
            try {
                out.write(frame);
                out.flush();
            } catch (IOException writeFailed) {
                // The daemon may have refused the request part-way (e.g. over its size limit) and said why
                // before closing; that reason beats "broken pipe".
                sent = true;
                DataInputStream din = new DataInputStream(in);
                try {
                    return readReply(din, address, maxReplyBytes);
                } catch (IOException noReason) {
                    throw writeFailed;
                }
            }
            sent = true;
            return readReply(new DataInputStream(in), address, maxReplyBytes);
        } catch (WireException e) {
            throw new ApbasilException("the apbasil proxy at " + address + " sent an unreadable reply: "
                    + e.getMessage(), true, true, e);
        } catch (ApbasilException e) {
            throw e;
        } catch (IOException e) {
            String why;
            if (watchdog.fired()) {
                why = "no reply within " + timeout.toMillis() + " ms";
            } else if (e instanceof EOFException) {
                why = "the connection closed before a reply (daemon stopped or restarted?)";
            } else {
                why = describe(e);
            }
            throw new ApbasilException("the apbasil proxy at " + address + " failed: " + why, sent, true, e);
        } finally {
            watchdog.cancel();
        }
    }

    private static Reply readReply(DataInputStream din, ProxyAddress address, int maxReplyBytes)
            throws IOException {
        int length = din.readInt();
        if (length < 0 || length > maxReplyBytes) {
            throw new ApbasilException("the apbasil proxy at " + address + " announced a reply of " + length
                    + " bytes (limit " + maxReplyBytes + ")", true, true, null);
        }
        byte[] reply = new byte[length];
        din.readFully(reply);
        return Reply.decode(ByteBuffer.wrap(reply));
    }

    private static void closeQuietly(Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // nothing was sent on it
            }
        }
    }

    private static String describe(IOException e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    /**
     * Closes the connection when the deadline passes. One shared timer thread for the whole JVM: the drop-in
     * client starts one thread, and a tool making many calls at once does not start one per call.
     */
    private static final class Watchdog extends TimerTask {
        private static Timer timer;

        private Closeable target;
        private boolean fired;
        private boolean disarmed;

        Watchdog(Duration timeout) {
            // Rounded up: the deadline must have passed when it fires, so a caller with a list of proxies sees the
            // call's time used up and tries no next one with a millisecond left (the native client's poll does so).
            timer().schedule(this, Math.max(1, (timeout.toNanos() + 999_999) / 1_000_000));
        }

        private static synchronized Timer timer() {
            if (timer == null) {
                timer = new Timer("apbasil-deadline", true);
            }
            return timer;
        }

        void guard(Closeable c) throws IOException {
            synchronized (this) {
                target = c;
                if (!fired) {
                    return;
                }
            }
            c.close(); // the deadline passed before there was anything to close
        }

        /** Stops the watchdog; false if it has fired (or is firing) and so closes, or has closed, the target. */
        synchronized boolean disarm() {
            cancel();
            disarmed = true;
            return !fired;
        }

        @Override
        public void run() {
            Closeable c;
            synchronized (this) {
                if (disarmed) {
                    return;
                }
                fired = true;
                c = target;
            }
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // closing is all the watchdog can do
                }
            }
        }

        synchronized boolean fired() {
            return fired;
        }
    }
}
