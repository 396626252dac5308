package org.alpsbridge.proxy.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.munge.MungeException;
import org.alpsbridge.retry.Attempts;
import org.alpsbridge.retry.Backoff;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;

/**
 * The drop-in {@code apbasil}: the program slurmctld, Torque or PBS runs instead of the real one, and
 * the Java API other tools use to talk to the daemon.
 *
 * <p>As a program it reads one BASIL request on stdin, prints the response on stdout and exits 0. When
 * the proxy cannot answer it prints a TRANSIENT BASIL FAILURE on stdout (so the scheduler logs a reason
 * and retries), the reason on stderr, and exits 1. Settings: see {@link ClientSettings} and the module
 * README ({@code APBASIL_PROXY}, {@code APBASIL_AUTH}, ...).
 *
 * <p>Only plain JDK classes load on the success path: this runs once per BASIL call, and every class
 * loaded is start-up time.
 */
public final class Apbasil {

    /** Rounds over the proxy list: 100 ms, then doubling, for {@code retries} more rounds within the call's timeout. */
    static final Backoff ROUNDS = Backoff.doubling(100, Long.MAX_VALUE);

    private Apbasil() {
    }

    /**
     * Sends one BASIL request through the proxy and returns the response document.
     *
     * @param address {@code host:port} or {@code unix:/path}, or several of them comma-separated: tried in order
     * @param timeout the whole call's limit, retries included
     * @throws ApbasilException when no response document could be had; the message says why
     */
    public static byte[] call(String address, byte[] request, Duration timeout) throws IOException {
        ClientSettings settings = ClientSettings.load();
        Exchange exchange = new Exchange(Exchange.Kind.BASIL, newExchangeId(), "", request);
        Reply reply = exchange(settings, ProxyAddress.parseList(address), exchange, timeout,
                RetryPolicy.forRequest(request));
        return reply.payload();
    }

    /**
     * Runs an operator command on the daemon ({@code stats}, {@code orphans}, ...) and returns its output.
     *
     * @throws ApbasilException when the daemon cannot be reached or the command failed (message from the daemon)
     */
    public static byte[] admin(String address, String name, Map<String, String> args, Duration timeout)
            throws IOException {
        ClientSettings settings = ClientSettings.load();
        Exchange exchange = Exchange.admin(newExchangeId(), "", name, args);
        return exchange(settings, ProxyAddress.parseList(address), exchange, timeout, RetryPolicy.UNSENT_ONLY)
                .payload();
    }

    /** The settings file as packaged in {@code /etc/alpsbridge/apbasil.conf}, every key at its default. */
    public static String settingsTemplate() {
        return ClientSettings.template();
    }

    public static void main(String[] args) {
        PrintStream stdout = System.out;
        byte[] request = new byte[0];
        int status;
        try {
            request = System.in.readAllBytes();
            ClientSettings settings = ClientSettings.load();
            byte[] response = call(settings.proxy(), request, settings.timeout());
            stdout.write(response);
            stdout.flush();
            status = 0;
        } catch (IOException | RuntimeException e) {
            System.err.println("apbasil: " + e.getMessage());
            boolean retryable = !(e instanceof ApbasilException ae) || ae.isTransient();
            byte[] failure = FailureDocument.of(request, retryable, String.valueOf(e.getMessage()));
            stdout.write(failure, 0, failure.length);
            stdout.flush();
            status = 1;
        }
        System.exit(status);
    }

    /**
     * Tries the proxies in order until one answers. A round over the list is one attempt: {@code retries} more
     * rounds follow, with doubling waits, while the failures allow it and the whole call's deadline leaves time.
     * The next proxy is tried after a failure that is safe to retry ({@link RetryPolicy}); a proxy that answers
     * NOT_ACTIVE ran nothing, so moving on from it is always safe, and so is moving on from one that did not accept the
     * connection within {@code connect_timeout} (a host that is down). Any other failure ends the call at once with
     * its own message: above all a RESERVE that reached a proxy which then failed is never sent to another.
     * Each connection gets a fresh credential: the proxies may share one munged, which refuses a replay.
     */
    private static Reply exchange(ClientSettings settings, List<ProxyAddress> proxies, Exchange exchange,
            Duration timeout, RetryPolicy policy) throws ApbasilException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Duration connectTimeout = settings.connectTimeout();
        SSLSocketFactory tls = allUnix(proxies) ? null : tls(settings.tlsCa());
        Munge munge = settings.mungeAuth() ? munge(settings) : null;
        Attempts rounds = ROUNDS.attempts(settings.retries() + 1).within(timeout.toMillis()).start();
        while (true) {
            StringBuilder round = new StringBuilder();
            ApbasilException last = null;
            boolean sent = false;
            for (ProxyAddress address : proxies) {
                if (last != null && deadline - System.nanoTime() < 1_000_000L) {
                    round.append("; ").append(address).append(": not tried, the call's timeout had passed");
                    continue;
                }
                Exchange signed = munge == null ? exchange
                        : exchange.withCredential(credential(munge, exchange, proxies, tls, connectTimeout, deadline));
                try {
                    Reply reply = ProxyConnection.roundTrip(address, signed,
                            Duration.ofNanos(Math.max(1, deadline - System.nanoTime())), connectTimeout, tls,
                            ProxyConnection.DEFAULT_MAX_REPLY_BYTES);
                    if (reply.isOk()) {
                        return reply;
                    }
                    last = refusal(address, reply);
                } catch (ApbasilException e) {
                    last = e;
                }
                if (!last.isTransient() || !policy.mayRetry(last)) {
                    throw last;
                }
                sent |= last.requestSent();
                round.append("; ").append(address).append(": ").append(withoutAddress(last.getMessage(), address));
            }
            ApbasilException failed = proxies.size() == 1 ? last
                    : new ApbasilException("no apbasil proxy answered: " + round.substring(2), sent, true, last);
            if (!rounds.pauseForNext()) {
                throw failed;
            }
        }
    }

    /** A reply that is not an answer. NOT_ACTIVE: a standby that ran nothing, so the request counts as not sent. */
    private static ApbasilException refusal(ProxyAddress address, Reply reply) {
        if (reply.status() == Reply.Status.NOT_ACTIVE) {
            return new ApbasilException("the apbasil proxy at " + address + " is not active: " + reply.reason(), false,
                    true, null);
        }
        return new ApbasilException("the apbasil proxy at " + address + " refused the request: " + reply.reason(),
                true, reply.status() == Reply.Status.REJECTED_TRANSIENT, null);
    }

    /** A failure's message as one entry of the list's summary, after the address: "cannot connect: ...", "failed: ...". */
    private static String withoutAddress(String message, ProxyAddress address) {
        String connect = "cannot connect to the apbasil proxy at " + address + ": ";
        String at = "the apbasil proxy at " + address + " ";
        if (message.startsWith(connect)) {
            return "cannot connect: " + message.substring(connect.length());
        }
        if (message.startsWith(at + "is ")) {
            return message.substring(at.length() + 3);
        }
        return message.startsWith(at) ? message.substring(at.length()) : message;
    }

    private static boolean allUnix(List<ProxyAddress> proxies) {
        for (ProxyAddress p : proxies) {
            if (!p.isUnix()) {
                return false;
            }
        }
        return true;
    }

    private static Munge munge(ClientSettings settings) throws ApbasilException {
        switch (settings.mungeVia()) {
            case "program":
                return Munge.programs(settings.mungeSocket());
            case "library":
                try {
                    return Munge.library(settings.mungeSocket());
                } catch (MungeException e) {
                    throw new ApbasilException(e.getMessage(), false, false, e);
                }
            default:
                return Munge.socket(settings.mungeSocket());
        }
    }

    private static String credential(Munge munge, Exchange exchange, List<ProxyAddress> proxies,
            SSLSocketFactory tls, Duration connectTimeout, long deadline) throws ApbasilException {
        try {
            return munge.encode(exchange.digest(), 0);
        } catch (MungeException e) {
            ProxyAddress address = e.isServiceFailure() ? daemonWithoutAuth(proxies, tls, connectTimeout, deadline) : null;
            if (address != null) {
                throw new ApbasilException("APBASIL_AUTH is munge (the default) but the apbasil proxy at " + address
                        + " runs with auth=none: set APBASIL_AUTH=none (or auth=none in " + ClientSettings.DEFAULT_CONFIG
                        + ") for this client, or run the daemon with auth=munge", false, false, e);
            }
            throw new ApbasilException("no MUNGE credential for the request: " + e.getMessage(), false,
                    e.isServiceFailure(), e);
        }
    }

    /**
     * The first proxy of the list that takes requests without a credential, or null. Asked only when no
     * credential could be had, so that a lab client left on the default {@code auth=munge} in front of an
     * {@code auth=none} daemon is told that, not "is munged running?". The question is an admin command no daemon
     * registers, so nothing runs anywhere: an {@code auth=munge} daemon refuses it for want of a credential, an
     * {@code auth=none} one as unknown. The proxies are asked in order; an unreachable, busy or standby one is
     * passed over, and if none says "yes" the munge error stands.
     */
    private static ProxyAddress daemonWithoutAuth(List<ProxyAddress> proxies, SSLSocketFactory tls,
            Duration connectTimeout, long deadline) {
        for (ProxyAddress address : proxies) {
            long left = Math.min(deadline - System.nanoTime(), 5_000_000_000L);
            if (left <= 0) {
                return null;
            }
            try {
                Reply reply = ProxyConnection.roundTrip(address,
                        Exchange.admin(newExchangeId(), "", "apbasil-auth-probe", Map.of()), Duration.ofNanos(left),
                        connectTimeout, tls, ProxyConnection.DEFAULT_MAX_REPLY_BYTES);
                if (reply.status() == Reply.Status.REJECTED) {
                    return reply.reason().startsWith("authentication failed") ? null : address;
                }
            } catch (ApbasilException e) {
                // the next proxy
            }
        }
        return null;
    }

    private static SSLSocketFactory tls(Path caPem) throws ApbasilException {
        if (caPem == null) {
            return null;
        }
        try (InputStream in = Files.newInputStream(caPem)) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int i = 0;
            try {
                for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    trust.setCertificateEntry("ca" + i++, c);
                }
            } catch (java.security.cert.CertificateException notPem) {
                i = 0;
            }
            if (i == 0) {
                throw new ApbasilException("cannot use tls_ca " + caPem + ": no PEM certificate in it", false, false,
                        null);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (ApbasilException e) {
            throw e;
        } catch (IOException e) {
            String why = e instanceof java.nio.file.NoSuchFileException ? "No such file or directory"
                    : ClientSettings.reason(caPem, e);
            throw new ApbasilException("cannot use tls_ca " + caPem + ": " + why, false, false, e);
        } catch (GeneralSecurityException e) {
            throw new ApbasilException("cannot use tls_ca " + caPem + ": " + e.getMessage(), false, false, e);
        }
    }

    /**
     * Unique per call among all clients of a daemon within its exchange memory: wall time, monotonic
     * nanoseconds and 64 random bits. Not {@code UUID.randomUUID()} (seeding SecureRandom) nor the pid
     * ({@code ProcessHandle} starts a thread pool): both are visible parts of the client's start-up.
     */
    static String newExchangeId() {
        return Long.toHexString(System.currentTimeMillis()) + "-" + Long.toHexString(System.nanoTime()) + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong());
    }
}
