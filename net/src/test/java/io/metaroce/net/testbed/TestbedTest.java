package io.metaroce.net.testbed;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The namespace test bed on the real kernel. Skipped (with the reason) when not root or the tools are missing,
 * unless the environment variable {@code METAROCE_TESTBED_REQUIRED} is set, which turns the skip into a failure.
 */
@Tag("root")
class TestbedTest {
    private String name;

    @BeforeEach
    void supported() {
        Optional<String> why = Testbed.unsupportedReason().or(() -> Shell.find("ping").isEmpty()
                ? Optional.of("the test bed tests need `ping` (apt-get install iputils-ping)") : Optional.empty());
        if (why.isPresent() && System.getenv("METAROCE_TESTBED_REQUIRED") != null) {
            fail("METAROCE_TESTBED_REQUIRED is set but " + why.get());
        }
        assumeTrue(why.isEmpty(), () -> "skipping the namespace test bed: " + why.orElse(""));
        name = "t" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6);
    }

    @AfterEach
    void cleanUp() {
        if (name != null) {
            Testbed.down(name);
            assertEquals(List.of(), Testbed.namespaces(name), "namespaces left behind");
        }
    }

    /** Pings {@code count} times from {@code from} to {@code to} on {@code plane}; returns replies received. */
    private static int ping(Testbed tb, int from, int to, int plane, int count, String... extra) {
        List<String> cmd = new java.util.ArrayList<>(List.of("ping", "-n", "-q", "-c", Integer.toString(count),
                "-W", "1"));
        cmd.addAll(List.of(extra));
        cmd.add(tb.address(to, plane).getHostAddress());
        ExecResult r = tb.exec(Duration.ofSeconds(30), from, cmd.toArray(String[]::new));
        Matcher m = Pattern.compile("(\\d+) packets transmitted, (\\d+) received").matcher(r.stdout());
        assertTrue(m.find(), () -> "unexpected ping output: " + r);
        assertEquals(count, Integer.parseInt(m.group(1)));
        return Integer.parseInt(m.group(2));
    }

    @Test
    void everyPlaneConnectsAndAPlaneCanFailAndRecover() {
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 2))) {
            assertEquals("10.200.0.1", tb.address(0, 0).getHostAddress());
            assertEquals("10.201.0.2", tb.address(1, 1).getHostAddress());
            assertEquals(List.of(name + "-h0", name + "-h1", name + "-sw0", name + "-sw1"),
                    Testbed.namespaces(name));
            for (int p = 0; p < 2; p++) {
                assertEquals(1, ping(tb, 0, 1, p, 1), "plane " + p);
                assertEquals(1, ping(tb, 1, 0, p, 1), "plane " + p + " backwards");
            }
            // MTU 9000 end to end, no fragmentation
            assertEquals(1, ping(tb, 0, 1, 0, 1, "-M", "do", "-s", Integer.toString(9000 - 28)));
            // host 0 has no route to another plane's addresses except through that plane's own interface
            ExecResult routes = tb.exec(0, "ip", "-4", "-o", "addr", "show");
            assertTrue(routes.stdout().contains("p0") && routes.stdout().contains("10.200.0.1/24"), routes::stdout);
            assertTrue(routes.stdout().contains("p1") && routes.stdout().contains("10.201.0.1/24"), routes::stdout);

            Testbed attached = Testbed.attach(name);
            assertEquals(2, attached.hosts());
            assertEquals(2, attached.planes());
            assertTrue(attached.spec().isEmpty());

            tb.planeDown(1);
            assertEquals(0, ping(tb, 0, 1, 1, 1), "plane 1 is down");
            assertEquals(1, ping(tb, 0, 1, 0, 1), "plane 0 still works");
            attached.planeUp(1);
            int replies = 0;
            for (int attempt = 0; attempt < 5 && replies == 0; attempt++) {
                replies = ping(tb, 0, 1, 1, 1);
            }
            assertEquals(1, replies, "plane 1 is up again");
        }
    }

    @Test
    void randomLossDropsAboutTheRequestedFractionAndChangesLive() {
        double loss = 0.3;
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 1).withLoss(loss))) {
            int n = 500;
            int replies = ping(tb, 0, 1, 0, n, "-i", "0.002");
            PlaneCounters c = tb.counters(0);
            // each round trip crosses the switch twice: request and reply
            double survived = (double) replies / n;
            double expected = (1 - loss) * (1 - loss);
            System.out.printf("loss %.2f: %d/%d round trips survived (%.3f, expected %.3f); switch dropped "
                    + "%d of %d IPv4 frames (%.3f)%n", loss, replies, n, survived, expected, c.lostPackets(),
                    c.ipv4Packets(), c.lossFraction());
            assertEquals(expected, survived, 0.1, "round trips that survived");
            assertTrue(c.ipv4Packets() >= n, () -> "frames seen: " + c);
            assertEquals(loss, c.lossFraction(), 0.07, () -> "drop fraction at the switch: " + c);

            tb.setLoss(0);
            tb.resetCounters();
            assertEquals(50, ping(tb, 0, 1, 0, 50, "-i", "0.002"), "no loss after setLoss(0)");
            assertEquals(0, tb.counters(0).lostPackets());

            tb.setLoss(1);
            assertEquals(0, ping(tb, 0, 1, 0, 5, "-i", "0.002"), "everything lost after setLoss(1)");
        }
    }

    /** Packets that arrived at host {@code h} with CE, as its nft counter {@code rx_ce} counted them. */
    private static long ceReceived(Testbed tb, int h) {
        ExecResult rx = tb.exec(h, "nft", "list", "counter", "inet", "probe", "rx_ce");
        Matcher m = Pattern.compile("packets (\\d+)").matcher(rx.stdout());
        assertTrue(m.find(), rx::toString);
        return Long.parseLong(m.group(1));
    }

    @Test
    void phantomQueueMarksEctTrafficAboveItsRate() {
        // meter at 100 kbit/s = 12.5 kB/s (phantom queue 18 kB); the pings below send ~500 kB/s of 1028-byte
        // packets, so all but the first ~20-30 ECT ones are marked
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 1).withEcn(100_000))) {
            String rules = "table inet probe {\n counter rx_ce { }\n chain input {\n"
                    + "  type filter hook input priority 0;\n  ip ecn ce counter name \"rx_ce\"\n }\n}\n";
            for (int h = 0; h < 2; h++) {
                Shell.check(rules, List.of(Shell.require("ip"), "netns", "exec", tb.hostNamespace(h),
                        Shell.require("nft"), "-f", "-"));
            }

            // not ECT: never marked, however fast
            assertEquals(200, ping(tb, 0, 1, 0, 200, "-i", "0.002", "-s", "1000"));
            assertEquals(0, tb.counters(0).markedPackets(), "non-ECT traffic must not be marked");

            // ECT(0): what exceeds the meter is marked CE, and arrives with CE
            assertEquals(200, ping(tb, 0, 1, 0, 200, "-i", "0.002", "-s", "1000", "-Q", "2"));
            PlaneCounters c = tb.counters(0);
            // The echo replies copy the request's TOS byte, CE included, and a CE reply passes the switch unmarked
            // (CE is not ECT); but the replies to the first, unmarked requests are ECT(0), and the reply direction's
            // meter may mark a few of them. So every marked packet, request or reply, arrives at the pinger (host 0)
            // as one CE reply, and the marked requests at host 1 are at most that many.
            long requests = ceReceived(tb, 1);
            long replies = ceReceived(tb, 0);
            System.out.printf("ECN: switch marked %d packets; host 1 received %d requests and host 0 %d replies with "
                    + "CE (200 ECT pings)%n", c.markedPackets(), requests, replies);
            assertTrue(c.markedPackets() > 100, () -> "marked: " + c);
            assertEquals(c.markedPackets(), replies, "every marked packet arrives with CE");
            assertTrue(requests <= replies && requests > 100, "marked requests arrive with CE: " + requests);
        }
    }

    @Test
    void rateLimitShapesTheBottleneck() throws Exception {
        long rate = 200_000_000;
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 1).withRate(rate, 256 * 1024))) {
            ExecResult q = Shell.check("tc", "-n", tb.switchNamespace(0), "qdisc", "show", "dev",
                    Testbed.switchPort(1));
            assertTrue(q.stdout().contains("htb") && q.stdout().contains("bfifo"), q::stdout);
            assumeTrue(Shell.find("iperf3").isPresent(), "iperf3 not installed: throughput not measured");
            String server = tb.address(1, 0).getHostAddress();
            Process srv = tb.processBuilder(1, "iperf3", "-s", "-1", "-B", server).redirectErrorStream(true)
                    .start();
            try {
                ExecResult r = null;
                for (int attempt = 0; attempt < 20; attempt++) { // until the server listens
                    r = tb.exec(Duration.ofSeconds(20), 0, "iperf3", "-c", server, "-t", "1", "-f", "m");
                    if (r.ok()) {
                        break;
                    }
                    Thread.sleep(100);
                }
                assertTrue(r != null && r.ok(), String.valueOf(r));
                Matcher m = Pattern.compile("([\\d.]+) Mbits/sec.*receiver").matcher(r.stdout());
                assertTrue(m.find(), r.stdout());
                double mbps = Double.parseDouble(m.group(1));
                System.out.printf("htb %d Mbit/s: TCP goodput %.0f Mbit/s%n", rate / 1_000_000, mbps);
                assertTrue(mbps > rate / 1e6 * 0.8 && mbps < rate / 1e6 * 1.05, () -> "goodput " + mbps);
            } finally {
                srv.destroyForcibly();
                srv.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void downRemovesEveryNamespaceKillsWhatRunsInsideAndIsIdempotent() throws Exception {
        Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 2));
        Process sleeper = tb.processBuilder(0, "sleep", "60").start();
        assertTrue(sleeper.isAlive());
        assertEquals(4, Testbed.down(name));
        assertTrue(sleeper.waitFor(5, TimeUnit.SECONDS), "process inside the bed was not killed");
        assertEquals(List.of(), Testbed.namespaces(name));
        assertEquals(0, Testbed.down(name));
        assertFalse(Testbed.namespaces(name).contains(name + "-h0"));
    }

    @Test
    void upReplacesLeftoversOfACrashedRun() {
        Testbed first = Testbed.up(TestbedSpec.of(name, 1, 1));
        assertEquals(2, Testbed.namespaces(name).size());
        // a second up with the same name (the first "crashed") rebuilds from scratch
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 1))) {
            assertEquals(List.of(name + "-h0", name + "-h1", name + "-sw0"), Testbed.namespaces(name));
            assertEquals(1, ping(tb, 0, 1, 0, 1));
        }
        assertEquals(List.of(), Testbed.namespaces(first.name()));
    }
}
