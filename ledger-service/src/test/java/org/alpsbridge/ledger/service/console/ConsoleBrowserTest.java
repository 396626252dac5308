package org.alpsbridge.ledger.service.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.ledger.service.cli.ServeCommand;
import org.alpsbridge.ledger.service.server.RunningService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import picocli.CommandLine;

/**
 * The console as a bookkeeper and a user see it, in a real browser: Debian's headless Chromium driven through its
 * chromedriver, against the service on 127.0.0.1 with a test-private munged. This test runs as root, the default
 * superuser; the second user is uid 65534 (nobody), in no project's group. One browser serves every scenario;
 * each scenario signs in afresh and works on projects of its own. At the end, a screenshot of every page goes to
 * {@code target/console-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserTest {

    static final Instant FROM = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(20, ChronoUnit.DAYS);
    static final Instant TO = FROM.plus(90, ChronoUnit.DAYS);
    static final Path SHOTS = Path.of("target", "console-screenshots");

    Path dir;
    RunningService service;
    Ledger ledger;
    ChromeDriver browser;
    final AtomicInteger n = new AtomicInteger();

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        this.dir = dir;
        String chromium = installed("/usr/bin/chromium", "chromium", "apt-get install chromium");
        String driver = installed("/usr/bin/chromedriver", "chromedriver", "apt-get install chromium-driver");
        service = RunningService.start(dir, Map.of());
        ledger = service.ledger();
        ChromeOptions o = new ChromeOptions();
        o.setBinary(chromium);
        o.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--window-size=1366,900", "--lang=en-US", "--user-data-dir=" + dir.resolve("profile"));
        ChromeDriverService s = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver))
                .usingAnyFreePort().build();
        browser = new ChromeDriver(s, o);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    @AfterEach
    void signOut() {
        if (browser != null) {
            browser.manage().deleteAllCookies();
        }
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (browser != null) {
                screenshots();
            }
        } finally {
            if (browser != null) {
                browser.quit();
            }
            if (service != null) {
                service.close();
            }
        }
    }

    private static String installed(String path, String what, String how) {
        if (Files.isExecutable(Path.of(path))) {
            return path;
        }
        String reason = what + " is not installed (" + how + "; .ci/install-deps installs it)";
        if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            fail(reason + ", but ALPSBRIDGE_REQUIRE_SERVICES=1");
        }
        Assumptions.abort(reason);
        return null;
    }

    // ---- the scenarios

    @Test
    void aBookkeeperSignsInCreatesAProjectGrantsAndSeesTheBalance() {
        String name = "chem" + n.incrementAndGet();
        signInAsRoot();
        assertEquals("Projects", heading());

        open("/book/new-project");
        type("f-name", name);
        type("f-gid", "5001");
        type("f-account", name + "_acct");
        click("Review the change");
        assertTrue(text().contains("A new project " + name + ", Unix group 5001"), text());
        click("Confirm: new project");
        assertEquals("Done", heading());
        assertTrue(text().contains("Added project " + name), text());

        open("/book/grant?from=" + day(FROM) + "&to=" + day(TO));
        choose("f-project", name);
        type("f-hours", "1000");
        type("f-category", "research");
        click("Review the change");
        assertTrue(text().contains("(a new allocation)"), text());
        assertEquals(List.of("0 h", "1,000 h"), row("Granted"));
        click("Confirm: grant");
        assertTrue(text().contains("granted 1,000 h, available 1,000 h"), text());

        open("/?q=" + name);
        WebElement r = browser.findElement(By.xpath("//table[@class='projects']/tbody/tr[th//a[text()='" + name
                + "']]"));
        String row = r.getText();
        assertTrue(row.contains("5001") && row.contains(name + "_acct") && row.contains("cpu research"), row);
        assertEquals("1,000 h", cell(r, 4));  // granted
        assertEquals("0 h", cell(r, 5));      // held
        assertEquals("1,000 h", cell(r, 7));  // available
        assertEquals(day(TO), cell(r, 8));    // expiry
        assertEquals(60_000, ledger.balances(name).get(0).available(), "the ledger itself");
    }

    @Test
    void aUserOfAnotherGroupSeesNothingOfIt() {
        String name = "secret" + n.incrementAndGet();
        ledger.addProject(name, 5002, name + "_acct");
        ledger.grant(name, Resource.CPU, 90_000, FROM, TO, "research", null);
        ledger.reserve(ReserveRequest.of(500 + n.get(), "s" + n.get(), name, "carol", 1000, 64, 6000, Instant.now()));
        String own = "nobodys" + n.get();
        ledger.addProject(own, 65534, null);  // nobody's own group: what it does see
        ledger.grant(own, Resource.CPU, 1_200, FROM, TO, null, null);
        signIn(service.signInPath(65534, 65534, "nobody"));
        assertEquals("Projects", heading());
        assertTrue(text().contains("nobody (standard)"), text());
        assertTrue(projectColumn().contains(own), "its own group's project is listed: " + projectColumn());
        open("/project?name=" + own);
        assertEquals("Project " + own, heading());
        assertTrue(browser.findElement(By.cssSelector("svg.burndown")).isDisplayed());
        for (String page : List.of("/", "/holds", "/failures", "/alerts")) {
            open(page);
            assertFalse(browser.getPageSource().contains(name), page + " shows " + name);
        }
        open("/?q=" + name);  // the filter box shows what was typed, the table nothing
        assertEquals(0, browser.findElements(By.cssSelector("table.projects tbody tr")).size());
        assertTrue(text().contains("No project to show."), text());
        open("/project?name=" + name);
        assertEquals("Not allowed", heading());
        assertTrue(text().contains("standard-reads-own-groups"), text());
        assertFalse(text().contains("1,500 h"), text());
        open("/job?cluster=default&batch_id=s" + n.get());
        assertEquals("Not allowed", heading());
        open("/book/grant");
        assertEquals("Not allowed", heading());
        assertTrue(text().contains("superuser-only"), text());
        assertFalse(text().contains("Bookkeeping"), "no bookkeeping in the navigation of a standard user");
    }

    @Test
    void aTransferMovesExactlyTheAmountAndTheBurnDownShowsIt() {
        String from = "src" + n.incrementAndGet();
        String to = "dst" + n.get();
        ledger.addProject(from, 5003, null);
        ledger.addProject(to, 5004, null);
        ledger.grant(from, Resource.CPU, 36_000, FROM, TO, "research", null);
        ledger.grant(to, Resource.CPU, 3_600, FROM, TO, "startup", null);
        long before = available(from);
        long beforeTo = available(to);
        signInAsRoot();
        open("/project?name=" + from);
        WebElement chart = browser.findElement(By.cssSelector("svg.burndown"));
        assertEquals(Long.toString(before), chart.getAttribute("data-available"));
        int steps = Integer.parseInt(chart.getAttribute("data-steps"));

        open("/book/transfer");
        choose("f-from_project", from);
        choose("f-to_project", to);
        type("f-hours", "12.5");
        click("Review the change");
        assertEquals(List.of("600 h", "587.5 h"), row("Available", 0));
        assertEquals(List.of("60 h", "72.5 h"), row("Available", 1));
        click("Confirm: transfer");
        assertTrue(text().contains("Transferred 12.5 h"), text());
        assertEquals(before - 750, available(from), "exactly 12.5 h (750 min) left " + from);
        assertEquals(beforeTo + 750, available(to), "and exactly that arrived at " + to);

        open("/project?name=" + from);
        chart = browser.findElement(By.cssSelector("svg.burndown"));
        assertEquals(Long.toString(before - 750), chart.getAttribute("data-available"));
        assertEquals(steps + 1, Integer.parseInt(chart.getAttribute("data-steps")), "one more step: the transfer");
        assertTrue(chart.getText().isEmpty() || !chart.getText().contains("NaN"));
        assertTrue(browser.findElement(By.id("bd-desc")).getAttribute("textContent").contains("587.5 h of 587.5 h"),
                browser.findElement(By.id("bd-desc")).getAttribute("textContent"));
        WebElement newest = browser.findElement(By.xpath("//table[@class='journal']/tbody/tr[1]"));
        assertEquals("WITHDRAW", newest.findElement(By.tagName("th")).getText());
        assertTrue(newest.getText().contains("\u221212.5 h") && newest.getText().contains("587.5 h"),
                newest.getText());
    }

    /**
     * Jobs whose events carry the scheduler's time, before the grant was entered: the chart steps through the
     * balances the journal lists ("available after"), never below what the journal shows (it once drew -640 h).
     */
    @Test
    void theBurnDownNeverShowsABalanceTheJournalDoesNot() {
        String name = "late" + n.incrementAndGet();
        ledger.addProject(name, 5010, null);
        ledger.grant(name, Resource.CPU, 36_000, FROM, TO, "research", null);
        Instant early = FROM.plus(1, ChronoUnit.DAYS);
        for (int job = 1; job <= 3; job++) {
            Instant at = early.plus(job, ChronoUnit.HOURS);
            assertTrue(ledger.reserve(ReserveRequest.of(900 + job, "90" + job, name, "alice", 2, 32, 120, at)).ok());
            ledger.release(ReleaseRequest.of(900 + job, 3_600, at.plusSeconds(3_600)));
        }
        signInAsRoot();
        open("/project?name=" + name);
        WebElement chart = browser.findElement(By.cssSelector("svg.burndown"));
        List<String> drawn = java.util.Arrays.stream(chart.getAttribute("data-balances").split(" "))
                .map(m -> Html.hours(Long.parseLong(m))).toList();
        List<String> journal = browser.findElements(By.xpath("//table[@class='journal']/tbody/tr/td[4]")).stream()
                .map(WebElement::getText).toList();
        assertTrue(journal.size() >= 7, "the grant, three holds and their settlements: " + journal);
        for (String balance : drawn) {
            assertTrue(journal.contains(balance), "the chart shows " + balance + ", the journal only " + journal);
        }
        assertEquals(journal.get(0), drawn.get(drawn.size() - 1), "the newest entry is where the line ends");
        // no hour label below zero either: the axis spans what was drawn
        for (WebElement label : chart.findElements(By.tagName("text"))) {
            assertFalse(label.getAttribute("textContent").contains("\u2212"), label.getAttribute("textContent"));
        }
    }

    @Test
    void aRefundCannotExceedTheCharge() {
        String name = "refund" + n.incrementAndGet();
        ledger.addProject(name, 5005, null);
        ledger.grant(name, Resource.CPU, 60_000, FROM, TO, null, null);
        long resId = 7_000 + n.get();
        String batch = "r" + n.get();
        ledger.reserve(ReserveRequest.of(resId, batch, name, "alice", 2, 32, 120, Instant.now()));
        Outcome settled = ledger.release(ReleaseRequest.of(resId, 4_990, Instant.now()));
        long charge = settled.charge();
        assertEquals(5_323, charge);
        signInAsRoot();

        refundForm(batch, resId, charge + 1);
        assertEquals("Refused by the ledger", heading());
        assertTrue(text().contains("at most " + charge + " min"), text());
        assertTrue(browser.findElements(By.xpath("//button[starts-with(., 'Confirm')]")).isEmpty());

        // past the preview, the ledger's own rule holds: a confirm page whose amount is changed in the page
        refundForm(batch, resId, charge);
        ((JavascriptExecutor) browser).executeScript(
                "document.querySelector('input[name=minutes]').value = arguments[0]", Long.toString(charge + 1));
        click("Confirm: refund");
        assertEquals("Refused by the ledger", heading());
        assertTrue(text().contains("exceeds"), text());
        assertEquals(charge, ledger.reservation(new Lookup(null, resId, batch)).orElseThrow().charge());

        refundForm(batch, resId, charge);
        click("Confirm: refund");
        assertTrue(text().contains("it now stands charged 0 min"), text());
        refundForm(batch, resId, 1);
        assertEquals("Refused by the ledger", heading());
        assertEquals(60_000, available(name), "the whole charge came back, no more");
    }

    @Test
    void aStaleFormSubmittedTwiceAppliesOnce() {
        String name = "stale" + n.incrementAndGet();
        ledger.addProject(name, 5006, null);
        ledger.grant(name, Resource.CPU, 6_000, FROM, TO, null, null);
        signInAsRoot();
        open("/book/credit?project=" + name);
        type("f-hours", "5");
        type("f-reason", "supplement");
        click("Review the change");
        String confirmPage = browser.getCurrentUrl();
        click("Confirm: credit");
        assertEquals("Done", heading());
        assertEquals(6_300, available(name));
        browser.navigate().refresh();          // the result page: a GET, repeats nothing
        assertEquals("Done", heading());

        browser.get(confirmPage);              // the stale form, sent again
        click("Confirm: credit");
        assertEquals("Done", heading());
        assertEquals(6_300, available(name), "applied once");

        browser.manage().deleteAllCookies();   // even from a new session: the ledger knows the request id
        signInAsRoot();
        browser.get(confirmPage);
        click("Confirm: credit");
        assertEquals(6_300, available(name), "applied once, whoever sends it again");
    }

    @Test
    void aForgedFormPostWithoutTheTokenIsRefused() throws Exception {
        String name = "forged" + n.incrementAndGet();
        ledger.addProject(name, 5007, null);
        ledger.grant(name, Resource.CPU, 6_000, FROM, TO, null, null);
        signInAsRoot();
        open("/book/credit?project=" + name + "&hours=100");
        click("Review the change");
        ((JavascriptExecutor) browser).executeScript("document.querySelector('form.book input[name=csrf]').remove()");
        click("Confirm: credit");
        assertEquals("Refused", heading());
        assertEquals(6_000, available(name));

        // another site's page posting the same form (with a guessed token) from the signed-in browser
        open("/book/credit?project=" + name + "&hours=100");
        click("Review the change");
        StringBuilder fields = new StringBuilder();
        for (WebElement in : browser.findElements(By.cssSelector("form.book input[type=hidden]"))) {
            String v = in.getAttribute("name").equals("csrf") ? "guessed" : in.getAttribute("value");
            fields.append("<input type=hidden name='").append(in.getAttribute("name")).append("' value='")
                    .append(v).append("'>");
        }
        String attack = "<!DOCTYPE html><form method=post action='" + service.url() + "/book/credit'>" + fields
                + "<button id=go>Win a prize</button></form>";
        HttpServer evil = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        evil.createContext("/", x -> {
            byte[] b = attack.getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().set("Content-Type", "text/html");
            x.sendResponseHeaders(200, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        evil.start();
        try {
            browser.get("http://127.0.0.1:" + evil.getAddress().getPort() + "/");
            WebElement go = browser.findElement(By.id("go"));
            go.click();
            gone(go);
            assertTrue(List.of("Refused", "Sign in").contains(heading()), heading());
        } finally {
            evil.stop(0);
        }
        assertEquals(6_000, available(name), "nothing was credited");
    }

    @Test
    void theProjectsTableFiltersAndSortsAndAFormWorksFromTheKeyboard() {
        String tag = "kb" + n.incrementAndGet();
        ledger.addProject(tag + "-big", 5008, null);
        ledger.addProject(tag + "-small", 5009, null);
        ledger.grant(tag + "-big", Resource.CPU, 600_000, FROM, TO, null, null);
        ledger.grant(tag + "-small", Resource.CPU, 600, FROM, TO, null, null);
        signInAsRoot();
        open("/");
        type("q", tag);
        click("Filter");
        assertEquals(List.of(tag + "-big", tag + "-small"), projectColumn());
        browser.findElement(By.linkText("Available")).click();
        assertEquals(List.of(tag + "-small", tag + "-big"), projectColumn(), "ascending by available");
        assertEquals("ascending", browser.findElement(By.xpath("//th[a[starts-with(., 'Available')]]"))
                .getAttribute("aria-sort"));
        browser.findElement(By.partialLinkText("Available")).click();
        assertEquals(List.of(tag + "-big", tag + "-small"), projectColumn(), "descending by available");

        // keyboard only: the skip link first, then the fields in order; Enter submits
        open("/book/credit?project=" + tag + "-small");
        org.openqa.selenium.interactions.Actions keys = new org.openqa.selenium.interactions.Actions(browser);
        keys.sendKeys(org.openqa.selenium.Keys.TAB).perform();
        assertEquals("Skip to content", browser.switchTo().activeElement().getText());
        browser.findElement(By.id("f-hours")).sendKeys("1", org.openqa.selenium.Keys.TAB);
        assertEquals("f-reason", browser.switchTo().activeElement().getAttribute("id"));
        WebElement reason = browser.switchTo().activeElement();
        reason.sendKeys("keyboard", org.openqa.selenium.Keys.ENTER);
        gone(reason);
        assertEquals("Confirm: Credit", heading());
        for (WebElement field : browser.findElements(By.cssSelector("main input:not([type=hidden]), main select"))) {
            fail("a confirm page has no visible field: " + field.getAttribute("name"));
        }
        open("/book/grant");
        for (WebElement field : browser.findElements(By.cssSelector("main input:not([type=hidden]), main select"))) {
            String id = field.getAttribute("id");
            assertEquals(1, browser.findElements(By.cssSelector("label[for='" + id + "']")).size(), id + " has a label");
        }
    }

    private List<String> projectColumn() {
        return browser.findElements(By.cssSelector("table.projects tbody th")).stream().map(WebElement::getText).toList();
    }

    @Test
    void signingOutEndsTheSessionAndALinkWorksOnce() {
        String link = webLogin();
        signIn(link);
        assertEquals("Projects", heading());
        click("Sign out");
        open("/");
        assertEquals("Sign in", heading());
        browser.get(link);
        click("Sign in to the ledger console");
        assertTrue(text().contains("used already or has expired"), text());
        open("/");
        assertEquals("Sign in", heading());
    }

    // ---- screenshots of every page, for a person to look at

    private void screenshots() throws Exception {
        Files.createDirectories(SHOTS);
        browser.manage().deleteAllCookies();
        String name = "chemistry";
        if (ledger.projects().stream().noneMatch(p -> p.name().equals(name))) {
            ledger.addProject(name, 5100, "chem_acct");
            ledger.addProject("physics", 5101, "phys_acct");
            ledger.grant(name, Resource.CPU, 120_000, FROM, TO, "research", null);
            ledger.grant("physics", Resource.CPU, 60_000, FROM, TO, "startup", null);
            Instant t = Instant.now();
            String[] users = {"alice", "bob", "carol"};
            for (int i = 0; i < 6; i++) {
                long id = 90_000 + i;
                ledger.reserve(ReserveRequest.of(id, "9" + i, name, users[i % 3], 2, 32, 240, t));
                ledger.release(ReleaseRequest.of(id, 1_800L * (i + 1), t));
            }
            ledger.reserve(ReserveRequest.of(90_100, "9100", name, "alice", 2, 32, 720, t));
            ledger.confirm(Lookup.of(90_100), t, null);
            ledger.reserve(ReserveRequest.of(90_102, "9102", "physics", "erin", 2, 32, 600, t));
            ledger.reserve(ReserveRequest.of(90_101, "9101", "physics", "dave", 400, 64, 1440, t));
            ledger.confirm(Lookup.of(90_555), t, null);
            ledger.transfer(name, "physics", Resource.CPU, t, 6_000, "shot-transfer");
        }
        signInAsRoot();
        shot("/", "projects");
        shot("/project?name=" + name, "project-burndown");
        shot("/holds", "holds");
        shot("/failures", "failures");
        shot("/alerts", "alerts");
        shot("/job?cluster=default&batch_id=90", "job");
        shot("/book", "bookkeeping");
        open("/book/transfer");
        choose("f-from_project", name);
        choose("f-to_project", "physics");
        type("f-hours", "10");
        shot(null, "form-transfer");
        click("Review the change");
        shot(null, "confirm-transfer");
        browser.manage().deleteAllCookies();
        signIn(service.signInPath(65534, 65534, "nobody"));
        shot("/", "projects-as-standard-user");
        shot("/project?name=" + name, "project-refused-to-standard-user");
        browser.manage().deleteAllCookies();
        shot("/", "signed-out");
    }

    private void shot(String path, String file) throws Exception {
        if (path != null) {
            open(path);
        }
        Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), SHOTS.resolve(file + ".png"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    // ---- helpers

    /** What {@code alpsbridge ledger --db URL web-login} prints, run as this (root) process with its MUNGE credential. */
    private String webLogin() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new LedgerCommand(Map.of("ALPSBRIDGE_MUNGE_SOCKET", service.mungeSocket().toString())));
        ServeCommand.install(cmd);
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        int code = cmd.execute("--db", service.url(), "web-login");
        assertEquals(0, code, err.toString());
        assertTrue(err.toString().contains("(superuser) once, within"), err.toString());
        String link = out.toString().strip();
        assertTrue(link.startsWith(service.url() + "/sign-in?token="), link);
        return link;
    }

    private void signInAsRoot() {
        signIn(webLogin());
    }

    private void signIn(String link) {
        browser.get(link.startsWith("http") ? link : service.url() + link);
        click("Sign in to the ledger console");
        assertFalse(heading().equals("Sign in"), text());
    }

    private void open(String path) {
        browser.get(service.url() + path);
    }

    private String heading() {
        return browser.findElement(By.tagName("h1")).getText();
    }

    private String text() {
        return browser.findElement(By.tagName("body")).getText();
    }

    /** Clicks a button and waits for the page it leads to (a form's submission does not wait by itself). */
    private void click(String button) {
        WebElement b = browser.findElement(By.xpath("//button[normalize-space(.)='" + button + "']"));
        b.click();
        gone(b);
    }

    /**
     * Waits until {@code e}'s page has been replaced. While the new page loads, chromedriver may answer "node does
     * not belong to the document" rather than "stale": that is asked again.
     */
    private void gone(WebElement e) {
        new WebDriverWait(browser, Duration.ofSeconds(20)).ignoring(WebDriverException.class)
                .until(ExpectedConditions.stalenessOf(e));
    }

    private void type(String id, String value) {
        WebElement e = browser.findElement(By.id(id));
        e.clear();
        e.sendKeys(value);
    }

    private void choose(String id, String option) {
        new Select(browser.findElement(By.id(id))).selectByVisibleText(option);
    }

    private static String cell(WebElement row, int column) {
        return row.findElements(By.xpath("./th|./td")).get(column).getText();
    }

    /** The Now and After cells of a row of the confirm page's change table. */
    private List<String> row(String label) {
        return row(label, 0);
    }

    private List<String> row(String label, int table) {
        WebElement r = browser.findElements(By.cssSelector("table.change")).get(table)
                .findElement(By.xpath(".//tr[th='" + label + "']"));
        return r.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    }

    private void refundForm(String batch, long resId, long minutes) {
        open("/book/refund");
        type("f-batch_id", batch);
        type("f-res_id", Long.toString(resId));
        type("f-minutes", Long.toString(minutes));
        type("f-reason", "node failure");
        click("Review the change");
    }

    private long available(String project) {
        return ledger.balances(project).stream().filter(b -> b.activeAt(Instant.now())).mapToLong(Balance::available)
                .sum();
    }

    private static String day(Instant t) {
        return t.toString().substring(0, 10);
    }
}
