package io.metaroce.net;

import org.junit.jupiter.api.Tag;
import io.metaroce.net.testbed.Testbed;
import io.metaroce.net.testbed.TestbedSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real datapath across a namespace test bed of 2 hosts x 4 planes: each end is its own JVM in its own
 * host namespace ({@link TestbedPeer}). Needs root, ip, tc and nft; skipped otherwise unless
 * {@code METAROCE_TESTBED_REQUIRED} is set (CI sets it).
 */
@Tag("root")
@Tag("slow")
class DatapathTestbedTest {
    private static final int PORT = 4793;
    private String name;

    @BeforeEach
    void supported() {
        Optional<String> why = Testbed.unsupportedReason();
        if (why.isPresent() && System.getenv("METAROCE_TESTBED_REQUIRED") != null) {
            fail("METAROCE_TESTBED_REQUIRED is set but " + why.get());
        }
        assumeTrue(why.isEmpty(), () -> "skipping the namespace test bed: " + why.orElse(""));
        name = "dp" + Long.toHexString(System.nanoTime() & 0xFFFFF);
    }

    @AfterEach
    void cleanUp() {
        if (name != null) {
            Testbed.down(name);
        }
    }

    /** A running peer JVM whose output is collected line by line. */
    private static final class Peer {
        final Process process;
        final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        final ConcurrentHashMap<String, CountDownLatch> waits = new ConcurrentHashMap<>();

        Peer(Process p, String tag) {
            this.process = p;
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                        System.out.println("[" + tag + "] " + line);
                        for (var e : waits.entrySet()) {
                            if (line.startsWith(e.getKey())) {
                                e.getValue().countDown();
                            }
                        }
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            });
            t.setDaemon(true);
            t.start();
        }

        CountDownLatch latch(String prefix) {
            return waits.computeIfAbsent(prefix, k -> new CountDownLatch(1));
        }

        boolean awaitLine(String prefix, long seconds) throws InterruptedException {
            CountDownLatch l = latch(prefix);
            synchronized (lines) {
                for (String s : lines) {
                    if (s.startsWith(prefix)) {
                        return true;
                    }
                }
            }
            return l.await(seconds, TimeUnit.SECONDS);
        }

        long counter(String n) {
            synchronized (lines) {
                for (String s : lines) {
                    if (s.startsWith("COUNTER " + n + " ")) {
                        return Long.parseLong(s.substring(("COUNTER " + n + " ").length()).trim());
                    }
                }
            }
            return 0;
        }

        int finish(long seconds) throws InterruptedException {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return -1;
            }
            return process.exitValue();
        }
    }

    private Peer start(Testbed tb, int host, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xmx1g");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(TestbedPeer.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = tb.processBuilder(host, cmd);
        pb.redirectErrorStream(true);
        return new Peer(pb.start(), host == 0 ? "client" : "server");
    }

    private static String planes(Testbed tb, int host) {
        List<String> l = new ArrayList<>();
        for (int p = 0; p < tb.planes(); p++) {
            l.add(tb.address(host, p).getHostAddress());
        }
        return String.join(",", l);
    }

    private record Run(Peer server, Peer client) {
    }

    private Run transfer(Testbed tb, long bytes, Runnable whileRunning) throws Exception {
        Peer server = start(tb, 1, "server", planes(tb, 1), Integer.toString(PORT), Long.toString(bytes), "7");
        Peer client = null;
        try {
            assertTrue(server.awaitLine("READY", 60), "server started");
            client = start(tb, 0, "client", planes(tb, 0), Integer.toString(PORT), Long.toString(bytes), "7",
                    tb.address(1, 0).getHostAddress());
            assertTrue(client.awaitLine("STARTED", 60), "client connected");
            whileRunning.run();
            int c = client.finish(300);
            int s = server.finish(60);
            assertEquals(0, c, "client exit code");
            assertEquals(0, s, "server exit code");
            assertTrue(server.awaitLine("DATA verified", 1), "server verified every byte");
            return new Run(server, client);
        } finally {
            server.process.destroyForcibly();
            if (client != null) {
                client.process.destroyForcibly();
            }
        }
    }

    @Test
    void writeStreamOf256MiBCompletesWithCorrectDataAtOnePercentLossOnEveryLink() throws Exception {
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 4).withLoss(0.01))) {
            Run r = transfer(tb, 256L << 20, () -> { });
            long lost = 0;
            for (int p = 0; p < 4; p++) {
                lost += tb.counters(p).lostPackets();
            }
            System.out.println("switches dropped " + lost + " frames; client retransmitted "
                    + r.client().counter("RETRANSMITS"));
            assertTrue(lost > 100, "the fabric really dropped packets: " + lost);
            assertTrue(r.client().counter("RETRANSMITS") > 0);
            assertEquals(0, r.client().counter("ERROR_COMPLETIONS"));
        }
    }

    @Test
    void aPlaneTakenDownMidTransferAndRestoredCausesNoErrorCompletion() throws Exception {
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 4).withRate(2_000_000_000L, 1 << 20))) {
            Run r = transfer(tb, 256L << 20, () -> {
                try {
                    Thread.sleep(150);
                    tb.planeDown(2);
                    Thread.sleep(400);
                    tb.planeUp(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            System.out.println("client failovers " + r.client().counter("PATH_FAILOVERS") + ", readmissions "
                    + r.client().counter("PATH_READMISSIONS"));
            assertEquals(0, r.client().counter("ERROR_COMPLETIONS"));
            assertTrue(r.client().counter("PATH_FAILOVERS") >= 1, "the dead plane's paths failed over");
        }
    }

    @Test
    void ecnMarksFromThePhantomQueueAreSeenAndEchoed() throws Exception {
        try (Testbed tb = Testbed.up(TestbedSpec.of(name, 2, 4).withRate(2_000_000_000L, 1 << 20)
                .withEcn(10_000_000L))) {
            // A 10 Mb/s meter per switch port: far below what the transfer offers on each plane.
            Run r = transfer(tb, 32L << 20, () -> { });
            long marked = 0;
            for (int p = 0; p < 4; p++) {
                marked += tb.counters(p).markedPackets();
            }
            long seen = r.server().counter("ECN_CE_RECEIVED");
            long echoed = r.client().counter("ECN_ECHOES");
            System.out.println("switch marked " + marked + ", receiver saw CE on " + seen + ", sender got "
                    + echoed + " echoes");
            assertTrue(marked > 0, "the phantom queue marked");
            assertTrue(seen > 0, "the receiver read CE from IP_RECVTOS");
            assertTrue(echoed > 0, "and echoed it to the sender, whose windows react (EcnAimd)");
        }
    }
}
