package io.metaroce.cli;

import io.metaroce.conformance.agent.Agent;
import io.metaroce.conformance.target.Mutation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code metaroce conformance}: exit codes, live lines, reports, coverage, a remote run against the agent. */
class ConformanceCommandTest {
    private static int run(StringWriter out, String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        return cl.execute(args);
    }

    @Test
    void inProcessSectionPassesAndWritesReports(@TempDir Path dir) {
        StringWriter out = new StringWriter();
        assertEquals(0, run(out, "conformance", "run", "--section", "wire", "--out", dir.toString()), out.toString());
        assertTrue(out.toString().contains("PASS  wire-bad-crc"), out.toString());
        assertTrue(out.toString().contains("CONFORMS"), out.toString());
        assertTrue(Files.exists(dir.resolve("conformance-report.html")));
        assertTrue(Files.exists(dir.resolve("conformance-junit.xml")));
        assertTrue(Files.exists(dir.resolve("conformance-results.json")));
    }

    @Test
    void theSummaryAccountsForEveryCase() {
        StringWriter out = new StringWriter();
        assertEquals(0, run(out, "conformance", "run", "--section", "wire"), out.toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("the suite has (\\d+) cases: (\\d+) run"
                + "(?:, (\\d+) SHOULD cases? not run \\(--strict runs them\\))?, (\\d+) outside the selection")
                .matcher(out.toString());
        assertTrue(m.find(), out.toString());
        int should = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        assertEquals(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)) + should + Integer.parseInt(m.group(4)));
        assertEquals("the suite has 280 cases: 272 run, 8 SHOULD cases not run (--strict runs them)",
                ConformanceCommand.Run.accounting(280, 280, 272));
        assertEquals("the suite has 10 cases: 10 run", ConformanceCommand.Run.accounting(10, 10, 10));
    }

    @Test
    void brokenEngineExitsOne() {
        StringWriter out = new StringWriter();
        assertEquals(1, run(out, "conformance", "run", "--section", "nak", "--mutation", "NO_RKEY_BOUNDS_CHECK"));
        assertTrue(out.toString().contains("FAIL  nak-write-out-of-bounds"), out.toString());
        assertTrue(out.toString().contains("DOES NOT CONFORM"), out.toString());
    }

    @Test
    void coverageAndListAndBadSelection() {
        StringWriter out = new StringWriter();
        assertEquals(0, run(out, "conformance", "coverage"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) of (\\d+) behaviour IDs covered")
                .matcher(out.toString());
        assertTrue(m.find(), out.toString());
        assertEquals(m.group(2), m.group(1), "every behaviour ID covered: " + out);
        assertTrue(Integer.parseInt(m.group(2)) >= 165, out.toString());
        StringWriter list = new StringWriter();
        assertEquals(0, run(list, "conformance", "list", "--section", "SACK-10"));
        assertTrue(list.toString().contains("sack-floor-check-floor-above-psn"), list.toString());
        assertEquals(2, run(new StringWriter(), "conformance", "run", "--case", "no-such-case"));
    }

    @Test
    void remoteRunAgainstOurAgent() throws Exception {
        Agent agent = new Agent(new InetSocketAddress("127.0.0.1", 0), 0, Mutation.NONE);
        try {
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                try {
                    agent.serve();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            StringWriter out = new StringWriter();
            int rc = run(out, "conformance", "run", "--section", "verbs", "--target",
                    "127.0.0.1:" + agent.controlAddress().getPort(), "--time-scale", "100");
            assertEquals(0, rc, out.toString());
            assertTrue(out.toString().contains("against agent 127.0.0.1"), out.toString());
            agent.close();
            t.join(2000);
        } finally {
            agent.close();
        }
    }
}
