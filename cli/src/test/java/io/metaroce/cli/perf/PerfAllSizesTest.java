package io.metaroce.cli.perf;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** perftest's {@code -a} (every size 2..2^23 over one device) and {@code --run_infinitely} (a line per -D). */
class PerfAllSizesTest {
    @Test
    void flagsThatDoNotGoTogetherAreRefusedInOneLine() {
        for (List<String> args : List.of(List.of("-a", "-s", "4096"), List.of("-a", "--run_infinitely"),
                List.of("--run_infinitely", "-n", "10"), List.of("-a", "--json"), List.of("--run_infinitely",
                        "--record", "x.yaml"))) {
            List<String> a = new ArrayList<>(List.of("write-bw", "127.0.0.1"));
            a.addAll(args);
            PerfHarness.Run r = PerfHarness.run(a.toArray(String[]::new));
            assertEquals(PerfException.ERROR, r.exit(), args + ": " + r);
            assertEquals(1, r.err().strip().lines().count(), args + ": " + r);
        }
    }

    /** A started write-bw client with {@code --run_infinitely -D 0.2} and {@code more}, printing into {@code out}. */
    private static Thread infiniteClient(int port, PerfHarness.Capture out, int[] exit, String... more) {
        List<String> args = new ArrayList<>(List.of("write-bw", "127.0.0.1", "-p", String.valueOf(port), "--timeout",
                "20", "--min-rto-us", "20000", "-s", "4096", "--run_infinitely", "-D", "0.2"));
        args.addAll(List.of(more));
        Thread client = new Thread(() -> {
            picocli.CommandLine cl = new picocli.CommandLine(new PerfCommand());
            cl.setOut(new java.io.PrintWriter(out, true));
            exit[0] = cl.execute(args.toArray(String[]::new));
        });
        client.start();
        return client;
    }

    @Test
    void runInfinitelyPrintsALinePerIntervalAndStopsCleanlyWhenInterrupted() throws Exception {
        PerfHarness.Server server = new PerfHarness.Server("write-bw", "-p", "0", "--timeout", "20",
                "--min-rto-us", "20000", "-s", "4096");
        PerfHarness.Capture out = new PerfHarness.Capture();
        int[] exit = {Integer.MIN_VALUE};
        Thread client = infiniteClient(server.port(), out, exit, "--report-gbits");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (out.text().lines().filter(l -> l.startsWith(" 4096 ")).count() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(50); // waits for output, times nothing
        }
        client.interrupt(); // what Ctrl-C does through the shutdown hook
        client.join(30_000);
        String text = out.text();
        assertEquals(0, exit[0], text);
        List<String> rows = text.lines().filter(l -> l.startsWith(" 4096 ")).toList();
        assertTrue(rows.size() >= 4, text); // at least 3 intervals and the whole run's line
        assertEquals(1, text.lines().filter(l -> l.startsWith(" #bytes")).count(), "one column header: " + text);
        assertTrue(text.contains("(the whole run: "), text);
        PerfHarness.Run srv = server.join(30_000);
        assertEquals(0, srv.exit(), srv.toString());
    }

    @Test
    void anInterruptDuringOmitStopsTheRunAtOnce() throws Exception {
        PerfHarness.Server server = new PerfHarness.Server("write-bw", "-p", "0", "--timeout", "20",
                "--min-rto-us", "20000", "-s", "4096", "--omit", "60");
        PerfHarness.Capture out = new PerfHarness.Capture();
        int[] exit = {Integer.MIN_VALUE};
        Thread client = infiniteClient(server.port(), out, exit, "--omit", "60");
        assertTrue(out.await(java.util.regex.Pattern.compile(" Omitted +: the first 60.0 s"), 60_000) != null,
                out.text()); // the header is printed right before the posting loop
        client.interrupt(); // Ctrl-C, 60 s before the omission would end
        client.join(30_000);
        assertTrue(!client.isAlive(), "still omitting after the interrupt: " + out.text());
        assertEquals(0, exit[0], out.text());
        PerfHarness.Run srv = server.join(30_000);
        assertEquals(0, srv.exit(), srv.toString());
    }

    @Test
    @Tag("slow")
    void allSizesRunsEverySizeFrom2To8MiBOnOneTable() throws Exception {
        PerfHarness.Run[] r = PerfHarness.pair("send-lat", List.of("-a"), List.of("-a", "-n", "3", "--warmup", "1"));
        assertEquals(0, r[0].exit(), r[0].toString());
        assertEquals(0, r[1].exit(), r[1].toString());
        List<Long> sizes = new ArrayList<>();
        boolean inTable = false;
        for (String l : r[1].out().lines().toList()) {
            if (l.startsWith(" #bytes")) {
                inTable = true;
            } else if (inTable && l.startsWith("---")) {
                break;
            } else if (inTable) {
                String[] f = l.trim().split("\\s+");
                assertEquals(8, f.length, l);
                assertEquals(3, Long.parseLong(f[1]), l);
                sizes.add(Long.parseLong(f[0]));
            }
        }
        List<Long> want = new ArrayList<>();
        for (long s = 2; s <= 1 << 23; s *= 2) {
            want.add(s);
        }
        assertEquals(want, sizes, r[1].out());
    }
}
