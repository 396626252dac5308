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
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.alpsbridge.proxy.auth.Munge;
import org.alpsbridge.proxy.auth.MungeException;
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

    private static final long FIRST_BACKOFF_MILLIS = 100;

    private Apbasil() {
    }

    /**
     * Sends one BASIL request through the proxy and returns the response document.
     *
     * @param address {@code host:port} or {@code unix:/path}
     * @param timeout the whole call's limit, retries included
     * @throws ApbasilException when no response document could be had; the message says why
     */
    public static byte[] call(String address, byte[] request, Duration timeout) throws IOException {
        ClientSettings settings = ClientSettings.load();
        Exchange exchange = new Exchange(Exchange.Kind.BASIL, newExchangeId(), "", request);
        Reply reply = exchange(settings, ProxyAddress.parse(address), exchange, timeout,
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
        return exchange(settings, ProxyAddress.parse(address), exchange, timeout, RetryPolicy.UNSENT_ONLY)
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

    private static Reply exchange(ClientSettings settings, ProxyAddress address, Exchange exchange,
            Duration timeout, RetryPolicy policy) throws ApbasilException {
        long deadline = System.nanoTime() + timeout.toNanos();
        SSLSocketFactory tls = address.isUnix() ? null : tls(settings.tlsCa());
        Munge munge = settings.mungeAuth() ? munge(settings) : null;
        int retries = settings.retries();
        long backoff = FIRST_BACKOFF_MILLIS;
        for (int attempt = 0; ; attempt++) {
            Exchange signed = munge == null ? exchange
                    : exchange.withCredential(credential(munge, exchange, address, tls, deadline));
            try {
                Reply reply = ProxyConnection.roundTrip(address, signed,
                        Duration.ofNanos(Math.max(1, deadline - System.nanoTime())), tls,
                        ProxyConnection.DEFAULT_MAX_REPLY_BYTES);
                if (reply.isOk()) {
                    return reply;
                }
                boolean retryable = reply.status() == Reply.Status.REJECTED_TRANSIENT;
                throw new ApbasilException("the apbasil proxy at " + address + " refused the request: "
                        + reply.reason(), true, retryable, null);
            } catch (ApbasilException e) {
                boolean timeLeft = deadline - System.nanoTime() > backoff * 1_000_000L;
                if (attempt >= retries || !timeLeft || !e.isTransient() || !policy.mayRetry(e)) {
                    throw e;
                }
            }
            sleep(backoff);
            backoff *= 2;
        }
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

    private static String credential(Munge munge, Exchange exchange, ProxyAddress address, SSLSocketFactory tls,
            long deadline) throws ApbasilException {
        try {
            return munge.encode(exchange.digest(), 0);
        } catch (MungeException e) {
            if (e.isServiceFailure() && daemonWithoutAuth(address, tls, deadline)) {
                throw new ApbasilException("APBASIL_AUTH is munge (the default) but the apbasil proxy at " + address
                        + " runs with auth=none: set APBASIL_AUTH=none (or auth=none in " + ClientSettings.DEFAULT_CONFIG
                        + ") for this client, or run the daemon with auth=munge", false, false, e);
            }
            throw new ApbasilException("no MUNGE credential for the request: " + e.getMessage(), false,
                    e.isServiceFailure(), e);
        }
    }

    /**
     * Whether the daemon takes requests without a credential. Asked only when no credential could be had,
     * so that a lab client left on the default {@code auth=munge} in front of an {@code auth=none} daemon is
     * told that, not "is munged running?". The question is an admin command no daemon registers, so nothing
     * runs anywhere: an {@code auth=munge} daemon refuses it for want of a credential, an {@code auth=none} one
     * as unknown. An unreachable or busy daemon counts as "no": the munge error then stands.
     */
    private static boolean daemonWithoutAuth(ProxyAddress address, SSLSocketFactory tls, long deadline) {
        long left = Math.min(deadline - System.nanoTime(), 5_000_000_000L);
        if (left <= 0) {
            return false;
        }
        try {
            Reply reply = ProxyConnection.roundTrip(address,
                    Exchange.admin(newExchangeId(), "", "apbasil-auth-probe", Map.of()), Duration.ofNanos(left), tls,
                    ProxyConnection.DEFAULT_MAX_REPLY_BYTES);
            return reply.status() == Reply.Status.REJECTED && !reply.reason().startsWith("authentication failed");
        } catch (ApbasilException e) {
            return false;
        }
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

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
