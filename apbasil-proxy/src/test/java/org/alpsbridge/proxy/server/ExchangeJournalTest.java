package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.client.ProxyConnection;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** exchange_journal: what a restarted daemon still knows about RESERVE/CONFIRM/RELEASE/SWITCH exchanges. */
@ExtendWith(ClientAuthOff.class)
class ExchangeJournalTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration KEEP = Duration.ofMinutes(15);

    private static ProxyDaemon start(Emulator emulator, Path journal) throws Exception {
        ProxyConfig config = ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "none",
                "exchange_journal", journal.toString()));
        return ProxyDaemon.builder().config(config).backend(new EmulatorBackend("xc30:16", emulator)).start();
    }

    private static Reply send(ProxyDaemon daemon, Exchange exchange) throws Exception {
        return ProxyConnection.roundTrip(daemon.address(), exchange, TIMEOUT, null, 1 << 24);
    }

    @Test
    void aRestartedDaemonAnswersARepeatedReserveWithTheFirstAnswerInsteadOfReservingAgain(@TempDir Path dir)
            throws Exception {
        Emulator emulator = Emulator.create("xc30:16");
        Path journal = dir.resolve("exchanges.journal");
        Exchange reserve = new Exchange(Exchange.Kind.BASIL, "job-5-reserve", "", Basil.reserve("1.3", "5", 2));
        byte[] first;
        try (ProxyDaemon daemon = start(emulator, journal)) {
            first = send(daemon, reserve).payload();
        }
        try (ProxyDaemon restarted = start(emulator, journal)) {
            assertArrayEquals(first, send(restarted, reserve).payload());
            Reply other = send(restarted, new Exchange(Exchange.Kind.BASIL, "job-5-reserve", "",
                    Basil.reserve("1.3", "6", 2)));
            assertFalse(Basil.success(other.payload()), "the same id with another request is still refused");
        }
        assertArrayEquals(new long[] {Basil.reservationId(first)}, emulator.control().reservationIds());
    }

    @Test
    void anExchangeRunningWhenTheDaemonDiedIsReportedAndNotRunAgain(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("exchanges.journal");
        byte[] digest = {1, 2, 3};
        try (ExchangeJournal j = ExchangeJournal.open(file, KEEP)) {
            j.begin(1000, "job-9-reserve", "RESERVE", digest);
            j.begin(1000, "job-9-confirm", "CONFIRM", new byte[] {4});
            j.finish(1000, "job-9-confirm", "<answer/>".getBytes(StandardCharsets.UTF_8));
        }
        // A crash can leave the last line cut short; it is skipped, the rest is read.
        Files.writeString(file, "E 17 1000 job-9-res", StandardOpenOption.APPEND);

        Emulator emulator = Emulator.create("xc30:16");
        try (ProxyDaemon daemon = start(emulator, file)) {
            String interrupted = new String(Apbasil.admin(daemon.address().text(), "interrupted", Map.of(), TIMEOUT),
                    StandardCharsets.UTF_8);
            assertTrue(interrupted.contains("uid 1000 RESERVE exchange job-9-reserve"), interrupted);
            assertFalse(interrupted.contains("job-9-confirm"), interrupted);
        }
        try (ExchangeJournal reopened = ExchangeJournal.open(file, KEEP)) {
            List<ExchangeJournal.Entry> entries = reopened.entries();
            assertEquals(2, entries.size());
            assertArrayEquals("<answer/>".getBytes(StandardCharsets.UTF_8), entries.get(1).answer());
        }
    }

    @Test
    void aRetryOfAnInterruptedReserveGetsATransientFailureNamingTheUnknownOutcome(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("exchanges.journal");
        Exchange reserve = new Exchange(Exchange.Kind.BASIL, "job-3-reserve", "", Basil.reserve("1.3", "3", 1));
        try (ExchangeJournal j = ExchangeJournal.open(file, KEEP)) {
            j.begin(org.alpsbridge.proxy.backend.Caller.UNAUTHENTICATED.uid(), "job-3-reserve", "RESERVE", reserve.digest());
        }
        Emulator emulator = Emulator.create("xc30:16");
        try (ProxyDaemon daemon = start(emulator, file)) {
            byte[] answer = send(daemon, reserve).payload();
            ResponseData d = Basil.data(answer);
            String text = new String(answer, StandardCharsets.UTF_8);
            assertFalse(d.isSuccess(), text);
            assertEquals(ErrorClass.TRANSIENT, d.errorClass(), text);
            assertTrue(text.contains("its outcome is unknown, so it is not run again"), text);
        }
        assertEquals(0, emulator.control().reservationIds().length, "the RESERVE was not run a second time");
    }
}
