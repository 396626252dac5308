package org.alpsbridge.ledger.service.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Test;

/** What the pages are made of: escaping, figures, the burn-down's series and the forms' amounts. */
class PagesTest {

    static final Instant FROM = Instant.parse("2026-01-01T00:00:00Z");
    static final Instant TO = Instant.parse("2026-07-01T00:00:00Z");

    @Test
    void everythingFromTheLedgerOrTheBrowserIsEscaped() {
        assertEquals("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;",
                Html.esc("<script>alert('x')</script> & \"q\""));
        String page = Html.page("<b>chem</b>", new Html.Frame("<i>eve</i>", "standard", "t\"k", "/"), "");
        assertFalse(page.contains("<b>chem") || page.contains("<i>eve") || page.contains("t\"k"), page);
        assertTrue(Html.jobLink("default/<x>/7").contains("batch_id=%3Cx%3E"), Html.jobLink("default/<x>/7"));
    }

    @Test
    void minutesAreShownAsExactHours() {
        assertEquals("1,000 h", Html.hours(60_000));
        assertEquals("12.5 h", Html.hours(750));
        assertEquals("88.72 h", Html.hours(5_323));
        assertEquals("\u22127.5 h", Html.hours(-450));
        assertEquals("0 h", Html.hours(0));
    }

    @Test
    void hoursInAFormAreWholeMinutesOrRefused() {
        assertEquals(750, Bookkeeping.minutes(Map.of("hours", "12.5"), "hours"));
        assertEquals(3, Bookkeeping.minutes(Map.of("hours", "0.05"), "hours"));
        assertThrows(Calls.Refused.class, () -> Bookkeeping.minutes(Map.of("hours", "0.01"), "hours"));
        assertThrows(Calls.Refused.class, () -> Bookkeeping.minutes(Map.of("hours", "ten"), "hours"));
        assertThrows(Calls.Refused.class, () -> Bookkeeping.minutes(Map.of(), "hours"));
    }

    @Test
    void theBurnDownIsTheRunningSumOfTheJournalInItsOrderNeverDrawnBackInTime() {
        Balance b = new Balance("chem", 1, Resource.CPU, null, FROM, TO, 10_000, 0, 2_000, 7_000);
        List<JournalEntry> entries = List.of(
                entry(1, Kind.CREDIT, 10_000, "2025-12-20T00:00:00Z"),        // booked before the period: at its start
                entry(2, Kind.WITHDRAW, -1_000, "2026-03-01T00:00:00Z"),
                entry(3, Kind.HOLD, -3_000, "2026-02-01T00:00:00Z"),           // a job event with the scheduler's time
                entry(4, Kind.SETTLE, -2_000, "2026-02-02T00:00:00Z"),
                entry(5, Kind.RETURN, 3_000, "2026-02-02T00:00:00Z"));
        // each step a balance the journal's "available after" shows (in time order it drew 5,000 and 8,000, which
        // the ledger never had); the job events entered after the withdrawal are drawn at its time, not before it
        Instant withdrawn = Instant.parse("2026-03-01T00:00:00Z");
        assertEquals(List.of(new BurnDown.Point(FROM, 10_000),
                new BurnDown.Point(withdrawn, 9_000),
                new BurnDown.Point(withdrawn, 6_000),
                new BurnDown.Point(withdrawn, 4_000),
                new BurnDown.Point(withdrawn, 7_000)), BurnDown.points(b, entries));
        String svg = BurnDown.svg(b, entries, Instant.parse("2026-04-01T00:00:00Z"));
        assertTrue(svg.contains("data-available=\"7000\"") && svg.contains("data-steps=\"5\""), svg);
        assertTrue(svg.contains("expires 2026-07-01") && svg.contains("class=\"even\""), svg);
        assertFalse(svg.contains("NaN") || svg.contains("style="), svg);
        assertEquals(5_000, BurnDown.evenUse(b, Instant.parse("2026-04-01T12:00:00Z")), 100);
        assertEquals(10_000, BurnDown.evenUse(b, FROM));
        assertEquals(0, BurnDown.evenUse(b, TO.plusSeconds(86_400)));
    }

    @Test
    void anAllocationWithoutEntriesStillDraws() {
        Balance b = new Balance("chem", 1, Resource.CPU, null, FROM, TO, 0, 0, 0, 0);
        String svg = BurnDown.svg(b, List.of(), FROM.plusSeconds(3_600));
        assertTrue(svg.startsWith("<svg") && !svg.contains("NaN"), svg);
    }

    private static JournalEntry entry(long seq, Kind kind, long amount, String at) {
        return new JournalEntry(seq, 1, seq, kind, amount, null, "admin", null, Instant.parse(at));
    }
}
