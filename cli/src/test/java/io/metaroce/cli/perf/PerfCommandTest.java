package io.metaroce.cli.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.DatagramSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.metaroce.cli.perf.PerfHarness.pair;
import static io.metaroce.cli.perf.PerfHarness.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Server and client of each perf test in one JVM over 127.0.0.1, small sizes. */
@Timeout(90)
class PerfCommandTest {
    @TempDir
    Path tmp;

    private static void bothExitZero(PerfHarness.Run[] r) {
        assertEquals(0, r[0].exit(), () -> "server: " + r[0] + "\nclient: " + r[1]);
        assertEquals(0, r[1].exit(), () -> "client: " + r[1] + "\nserver: " + r[0]);
    }

    private static void bwRowIsSane(String out, int size, int iters) {
        double[] v = row(out, " #bytes     #iterations    BW peak");
        assertEquals(5, v.length, out);
        assertEquals(size, v[0]);
        assertEquals(iters, v[1]);
        assertTrue(v[2] > 0 && v[3] > 0 && v[4] > 0, out);
    }

    @Test
    void writeBwVerifiesDataOnTheServerAndWritesARecord() throws Exception {
        Path rec = tmp.resolve("write-bw.yaml");
        PerfHarness.Run[] r = pair("write-bw", List.of("-s", "4096", "--verify"),
                List.of("-s", "4096", "-n", "300", "--report-gbits", "--record", rec.toString(),
                        "--expect-gbps", "0.0001"));
        bothExitZero(r);
        bwRowIsSane(r[1].out(), 4096, 300);
        bwRowIsSane(r[0].out(), 4096, 300); // the server prints the client's measurement
        assertTrue(r[0].out().contains("data verified"), r[0].out());
        String y = Files.readString(rec);
        assertTrue(y.contains("workload:\n    kind: write-bw\n    bytes: 4096\n    iters: 300\n    qps: 1\n"), y);
        assertTrue(y.contains("transport: metaroce"), y);
        assertTrue(y.contains("goodput_gbps: "), y);
        assertTrue(y.contains("goodput_gbps: '>= 0.0001'"), y);
        assertTrue(y.contains("retransmits: "), y);
        assertTrue(y.contains("cm_disconnects: 1"), "the client closed with a CM_DREQ: " + y);
        assertTrue(y.contains("\nverdict: pass\n"), y);
        assertTrue(!r[0].err().contains("CM_DREQ") && !r[1].err().contains("CM_DREQ"), r[0].err() + r[1].err());
    }

    @Test
    void parityTailRebuildsSegmentsTheServerDropsAndTheDataVerifies() throws Exception {
        // REL-18 over real sockets: the server drops 2% of what it receives before its engine sees it
        PerfHarness.Run[] r = pair("write-bw", List.of("-s", "65536", "--verify", "--stats", "--inject-loss", "0.02"),
                List.of("-s", "65536", "-n", "200", "--stats", "--parity-tail", "8"));
        bothExitZero(r);
        assertTrue(r[0].out().contains("data verified"), r[0].out());
        assertTrue(counter(r[1].out(), "PARITY_SENT") >= 200, r[1].out());
        assertTrue(counter(r[0].out(), "PARITY_REBUILT") > 0, r[0].out());
        PerfHarness.Run bad = PerfHarness.run("write-bw", "127.0.0.1", "--parity-tail", "1");
        assertEquals(PerfException.ERROR, bad.exit(), bad::toString);
        assertTrue(bad.err().contains("--parity-tail must be 0 (off) or in 2..255"), bad.err());
    }

    @Test
    void moreParitiesRebuildMoreAndTheDataVerifies() throws Exception {
        // REL-21 over real sockets: the server drops 10% of what it receives, the client sends four parities a tail
        PerfHarness.Run[] r = pair("write-bw", List.of("-s", "65536", "--verify", "--stats", "--inject-loss", "0.10"),
                List.of("-s", "65536", "-n", "200", "--stats", "--parity-tail", "8", "--parity-repairs", "4"));
        bothExitZero(r);
        assertTrue(r[0].out().contains("data verified"), r[0].out());
        assertTrue(counter(r[1].out(), "PARITY_R_SENT") >= 400, r[1].out());
        assertTrue(counter(r[0].out(), "PARITY_REBUILT") > 0, r[0].out());
        PerfHarness.Run bad = PerfHarness.run("write-bw", "127.0.0.1", "--parity-repairs", "17");
        assertEquals(PerfException.ERROR, bad.exit(), bad::toString);
        assertTrue(bad.err().contains("--parity-repairs must be in 1..16"), bad.err());
    }

    /** A counter's value in a --stats listing (0 when not listed). */
    private static long counter(String out, String name) {
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 2 && f[0].equals(name)) {
                return Long.parseLong(f[1]);
            }
        }
        return 0;
    }

    @Test
    void aServerWithATimeoutStillServesAClientThatComesLater() throws Exception {
        // --timeout limits a stalled run, not the wait for the first client: a stray datagram, then a client that
        // comes after more than --timeout, must run normally (the bug: "no progress" right after the handshake)
        PerfHarness.Server server = new PerfHarness.Server("write-bw", "-p", "0", "--timeout", "1", "-s", "4096",
                "--verify", "--min-rto-us", "20000");
        int port = server.port();
        try (DatagramSocket s = new DatagramSocket(0)) {
            byte[] stray = new byte[40];
            s.send(new java.net.DatagramPacket(stray, stray.length, java.net.InetAddress.getLoopbackAddress(), port));
        }
        Thread.sleep(1_500); // longer than the server's --timeout: the wall clock is what the option is about
        PerfHarness.Run client = PerfHarness.run("write-bw", "127.0.0.1", "-p", String.valueOf(port), "--timeout",
                "20", "--min-rto-us", "20000", "-s", "4096", "-n", "200");
        PerfHarness.Run srv = server.join(30_000);
        bothExitZero(new PerfHarness.Run[] {srv, client});
        assertTrue(srv.out().contains("data verified"), srv.out());
    }

    @Test
    void jsonIsOneDocumentOnStdoutWithPerftestFields() throws Exception {
        PerfHarness.Run[] r = pair("read-bw", List.of("-s", "8192"),
                List.of("-s", "8192", "-n", "100", "--report-gbits", "--json", "--verify"));
        bothExitZero(r);
        java.util.Map<String, Object> d = com.fasterxml.jackson.jr.ob.JSON.std.mapFrom(r[1].out());
        assertEquals("read-bw", d.get("test"));
        assertEquals("client", d.get("side"));
        assertEquals(8192, ((Number) d.get("MsgSize")).intValue());
        assertEquals(100, ((Number) d.get("n_iterations")).intValue());
        assertEquals("Gbit/sec", d.get("bw_unit"));
        assertTrue(((Number) d.get("BW_average")).doubleValue() > 0, r[1].out());
        assertEquals(0, ((Number) d.get("exit_code")).intValue());
        assertEquals(Boolean.TRUE, ((java.util.Map<?, ?>) d.get("metrics")).get("data_verified"), r[1].out());
        assertTrue(r[1].err().contains("BW average[Gb/sec]"), "the text report moves to stderr\n" + r[1]);
    }

    @Test
    void jsonReportsAFailedRunAsOneDocumentToo() throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0)) {
            port = s.getLocalPort();
        }
        PerfHarness.Run r = PerfHarness.run("write-bw", "127.0.0.1", "-p", String.valueOf(port), "--timeout", "1",
                "--json");
        assertEquals(2, r.exit(), r.toString());
        java.util.Map<String, Object> d = com.fasterxml.jackson.jr.ob.JSON.std.mapFrom(r.out());
        assertEquals(2, ((Number) d.get("exit_code")).intValue());
        assertTrue(String.valueOf(d.get("error")).contains("connect"), r.toString());
    }

    @Test
    void theDeprecatedMtuFlagWarnsAndStillWorks() {
        PerfHarness.Run r = PerfHarness.run("write-bw", "127.0.0.1", "--mtu", "2048", "--payload-mtu", "1024");
        assertEquals(1, r.exit(), r.toString());
        assertTrue(r.err().contains("--payload-mtu and --mtu are the same: give one"), r.toString());
    }

    @Test
    void sendBwOnTwoQpsVerifiesEveryMessage() throws Exception {
        PerfHarness.Run[] r = pair("send-bw", List.of("-s", "3000", "-q", "2", "-t", "32", "--verify"),
                List.of("-s", "3000", "-q", "2", "-t", "32", "-n", "200"));
        bothExitZero(r);
        bwRowIsSane(r[1].out(), 3000, 200);
        bwRowIsSane(r[0].out(), 3000, 200);
        assertTrue(r[0].out().contains("data verified"), r[0].out());
        assertTrue(r[0].out().contains("measured at the server"), r[0].out());
    }

    @Test
    void readBwVerifiesDataOnTheClient() throws Exception {
        Path rec = tmp.resolve("read-bw.yaml");
        PerfHarness.Run[] r = pair("read-bw", List.of("-s", "8192"),
                List.of("-s", "8192", "-n", "200", "--verify", "--record", rec.toString()));
        bothExitZero(r);
        bwRowIsSane(r[1].out(), 8192, 200);
        assertTrue(r[1].out().contains("data verified"), r[1].out());
        String y = Files.readString(rec);
        assertTrue(y.contains("data_verified: true"), y);
        assertTrue(y.contains("\nverdict: pass\n"), y);
    }

    @Test
    void writeLatPrintsPercentilesAndFailsAnImpossibleAcceptance() throws Exception {
        Path rec = tmp.resolve("write-lat.yaml");
        PerfHarness.Run[] r = pair("write-lat", List.of(),
                List.of("-n", "200", "--warmup", "10", "--record", rec.toString(), "--expect-p99-us", "0.001"));
        assertEquals(0, r[0].exit(), r[0]::toString);
        assertEquals(PerfException.ACCEPTANCE, r[1].exit(), r[1]::toString);
        assertTrue(r[1].err().contains("verdict: fail"), r[1].err());
        double[] v = row(r[1].out(), " #bytes #iterations    t_min");
        assertEquals(8, v.length);
        assertEquals(8, v[0]);
        assertEquals(200, v[1]);
        assertTrue(v[2] > 0 && v[2] <= v[3] && v[3] <= v[4] && v[4] <= v[5] && v[5] <= v[6], r[1].out());
        assertTrue(r[1].out().contains("one-way = RTT/2"), r[1].out());
        assertTrue(r[0].out().contains("answered 210 pings"), r[0].out());
        String y = Files.readString(rec);
        assertTrue(y.contains("lat_p99_us: "), y);
        assertTrue(y.contains("lat_p99_us: <= 0.001\n"), y);
        assertTrue(y.contains("\nverdict: fail\n"), y);
    }

    @Test
    void sendLatWithARecordAndAStatisticsFile() throws Exception {
        Path rec = tmp.resolve("send-lat.yaml");
        Path stats = tmp.resolve("server-stats.json");
        PerfHarness.Run[] r = pair("send-lat", List.of("-s", "100", "--stats-file", stats.toString()),
                List.of("-s", "100", "-n", "200", "--record", rec.toString(), "--stats"));
        bothExitZero(r);
        double[] v = row(r[1].out(), " #bytes #iterations    t_min");
        assertEquals(100, v[0]);
        assertEquals(200, v[1]);
        assertTrue(r[1].out().contains("RX_DATA_PACKETS"), r[1].out()); // --stats
        String y = Files.readString(rec);
        assertTrue(y.contains("workload:\n    kind: send-lat\n    bytes: 100\n    iters: 200\n"), y);
        assertTrue(y.contains("lat_p999_us: "), y);
        assertTrue(y.contains("\nverdict: pass\n"), y);
        // what the server's statistics file says, through `metaroce stats`
        PerfHarness.Capture out = new PerfHarness.Capture();
        picocli.CommandLine cl = new picocli.CommandLine(new StatsCommand());
        cl.setOut(new java.io.PrintWriter(out, true));
        assertEquals(0, cl.execute(stats.toString()));
        assertTrue(out.text().contains("device (") && out.text().contains("RX_DATA_PACKETS"), out.text());
        assertTrue(out.text().contains("path plane state"), out.text());
    }

    @Test
    void writeBwSurvivesInjectedLossAndRunsForADuration() throws Exception {
        Path rec = tmp.resolve("server.yaml");
        PerfHarness.Run[] r = pair("write-bw", List.of("-s", "4096", "--inject-loss", "0.02", "--verify",
                        "--record", rec.toString(), "--world", "loopback", "--name", "loss-smoke"),
                List.of("-s", "4096", "-D", "0.4", "-t", "64"));
        bothExitZero(r);
        assertTrue(r[0].err().contains("TEST-ONLY receiver-side drop"), r[0].err());
        assertTrue(r[0].out().contains("Injected loss   : 0.02"), r[0].out());
        assertTrue(r[0].out().contains("data verified"), r[0].out());
        double[] v = row(r[1].out(), " #bytes     #iterations    BW peak");
        assertTrue(v[1] > 0, r[1].out()); // -D: the messages completed
        String y = Files.readString(rec);
        assertTrue(y.contains("name: loss-smoke"), y);
        assertTrue(y.contains("faults:\n  - kind: receiver_drop\n    fraction: 0.02\n"), y);
        assertTrue(y.contains("side: server"), y);
        assertTrue(y.contains("data_verified: true"), y);
        assertTrue(!y.contains("injected_drops: 0\n"), y); // the server dropped some of what it received
        assertTrue(y.contains("\nverdict: pass\n"), y);
    }

    @Test
    void omitLeavesTheFirstPartOfTheRunOutOfEveryFigure() throws Exception {
        Path rec = tmp.resolve("omit.yaml");
        long t0 = System.nanoTime();
        PerfHarness.Run[] r = pair("write-bw", List.of("-s", "4096", "--verify", "--omit", "0.5"),
                List.of("-s", "4096", "-D", "0.3", "--omit", "0.5", "--record", rec.toString()));
        long wallNs = System.nanoTime() - t0;
        bothExitZero(r);
        assertTrue(r[1].out().contains("Omitted         : the first 0.5 s"), r[1].out());
        assertTrue(r[0].out().contains("data verified"), r[0].out()); // what flowed during --omit was written too
        String y = Files.readString(rec);
        assertTrue(y.contains("    omit_s: 0.5\n"), y);
        double elapsed = Double.parseDouble(y.replaceAll("(?s).*\n  elapsed_s: ([0-9.E-]+)\n.*", "$1"));
        // measured from the end of --omit: 0.3 s and what was in flight, not the whole 0.8 s of messages
        assertTrue(elapsed >= 0.3 && elapsed < 0.6, y);
        // the recovery counters of the measured part, beside the whole run's
        long timeouts = Long.parseLong(y.replaceAll("(?s).*\n  timeouts: ([0-9]+)\n.*", "$1"));
        long after = Long.parseLong(y.replaceAll("(?s).*\n  timeouts_after_omit: ([0-9]+)\n.*", "$1"));
        assertTrue(after <= timeouts, y);
        assertTrue(y.contains("\n  retransmits_after_omit: ") && y.contains("\n  path_failovers_after_omit: "), y);
        assertTrue(wallNs >= 800_000_000L, "the run lasted --omit + -D");
        r = pair("send-bw", List.of("-s", "4096", "--verify", "--omit", "0.2"),
                List.of("-s", "4096", "-D", "0.2", "--omit", "0.2"));
        bothExitZero(r);
        assertTrue(r[0].out().contains("data verified (send-bw"), r[0].out()); // checked while omitted too
    }

    @Test
    void helpListsTheTests() {
        PerfHarness.Run r = PerfHarness.run("--help");
        assertEquals(0, r.exit());
        for (String t : List.of("write-bw", "send-bw", "read-bw", "write-lat", "send-lat")) {
            assertTrue(r.out().contains(t), r.out());
        }
        r = PerfHarness.run("write-bw", "--help");
        assertTrue(r.out().contains("--inject-loss") && r.out().contains("--record"), r.out());
    }

    @Test
    void connectingToNobodyExitsWithCode2() throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0)) {
            port = s.getLocalPort(); // free a moment ago; nobody listens there now
        }
        PerfHarness.Run r = PerfHarness.run("write-bw", "127.0.0.1", "-p", String.valueOf(port), "--timeout", "0.3");
        assertEquals(PerfException.CONNECT, r.exit(), r::toString);
        assertTrue(r.err().contains("cannot connect"), r.err());
    }

    @Test
    void badFlagsExitWithAMessage() {
        PerfHarness.Run r = PerfHarness.run("write-bw", "127.0.0.1", "-n", "10", "-D", "1");
        assertEquals(PerfException.ERROR, r.exit(), r::toString);
        assertTrue(r.err().contains("exclusive"), r.err());
        r = PerfHarness.run("write-bw", "127.0.0.1", "-n", "10", "--omit", "1");
        assertEquals(PerfException.ERROR, r.exit(), r::toString);
        assertTrue(r.err().contains("--omit needs -D"), r.err());
        r = PerfHarness.run("write-lat", "127.0.0.1", "--omit", "1");
        assertEquals(PerfException.ERROR, r.exit(), r::toString);
        assertTrue(r.err().contains("--omit is for bandwidth tests"), r.err());
        r = PerfHarness.run("write-lat", "127.0.0.1", "-q", "2");
        assertEquals(PerfException.ERROR, r.exit(), r::toString);
        assertTrue(r.err().contains("one QP"), r.err());
    }
}
