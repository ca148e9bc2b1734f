package io.metaroce.cli.perf;

import io.metaroce.core.Counter;
import io.metaroce.net.DeviceOptions;
import io.metaroce.net.DeviceStats;
import io.metaroce.sim.experiment.ExperimentRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pieces of perf that need no device: pattern, wire messages, record, JSON, stats command. */
class PerfPartsTest {
    @TempDir
    Path tmp;

    @Test
    void patternIsAFunctionOfTheOffsetSoAnySliceChecks() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(1001);
            Pattern.fill(s, 42);
            assertEquals(-1, Pattern.mismatch(s, 0, 1001, 42, 0));
            assertEquals(-1, Pattern.mismatch(s, 333, 500, 42, 333)); // unaligned slice
            MemorySegment shorter = a.allocate(13);
            Pattern.fill(shorter, 42);
            assertEquals(-1L, shorter.mismatch(s.asSlice(0, 13))); // a prefix of a longer fill
            assertTrue(Pattern.mismatch(s, 0, 1001, 43, 0) >= 0);
            s.set(ValueLayout.JAVA_BYTE, 517, (byte) (s.get(ValueLayout.JAVA_BYTE, 517) ^ 1));
            assertEquals(517, Pattern.mismatch(s, 0, 1001, 42, 0));
            assertEquals(517 - 300, Pattern.mismatch(s, 300, 701, 42, 300));
        }
    }

    @Test
    void wireMessagesRoundTripAndWorkRequestIdsSplit() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64);
            io.metaroce.net.BufferInfo i = new io.metaroce.net.BufferInfo(0x7f00_1234_5678L, 1 << 20, 0x99e00002, -5);
            i.encode(s, 8);
            assertEquals(i, io.metaroce.net.BufferInfo.decode(s, 8));
            Wire.Done d = new Wire.Done(5000, 1_234_567_890L, 65536, 9_000_000_000L);
            d.encode(s, 32);
            assertEquals(d, Wire.Done.decode(s, 32));
        }
        long id = Wire.wrId(Wire.WR_DATA, 1023, 123_456_789_012L);
        assertEquals(Wire.WR_DATA, Wire.wrType(id));
        assertEquals(1023, Wire.wrQp(id));
        assertEquals(123_456_789_012L, Wire.wrSeq(id));
    }

    @Test
    void everyTestRunsInlineByDefaultAndLatencyTestsWarmUpAndBandwidthTestsBlock() {
        PerfOptions lat = new PerfOptions();
        new CommandLine(lat).parseArgs("HOST");
        lat.applyDefaults(TestKind.WRITE_LAT);
        assertEquals("inline", lat.agent);
        assertEquals(DeviceOptions.Idle.YIELD, lat.idleValue()); // the reply comes within the spin
        assertEquals(PerfOptions.LATENCY_WARMUP, lat.warmup);
        assertTrue(lat.warmupDefaulted); // bounded in time, first size only
        PerfOptions bw = new PerfOptions();
        new CommandLine(bw).parseArgs("HOST");
        bw.applyDefaults(TestKind.WRITE_BW);
        assertEquals("inline", bw.agent);
        assertEquals(DeviceOptions.Idle.BLOCK, bw.idleValue()); // waits for ACKs asleep in the device
        assertEquals(0L, bw.warmup); // bandwidth tests leave time out only when asked (--omit)
        assertEquals(0.0, bw.omitS);
        PerfOptions given = new PerfOptions();
        new CommandLine(given).parseArgs("HOST", "--agent", "thread", "--warmup", "7", "--idle", "park");
        given.applyDefaults(TestKind.SEND_LAT);
        assertEquals("thread", given.agent);
        assertEquals(DeviceOptions.Idle.PARK, given.idleValue());
        assertEquals(7L, given.warmup);
        assertFalse(given.warmupDefaulted); // exactly the ping-pongs asked for, before every size
    }

    @Test
    void recordIsTheSimulatorsRecordTypeWithAVerdictFromItsAcceptance() {
        PerfOptions o = new PerfOptions();
        new CommandLine(o).parseArgs("HOST", "--planes", "127.0.0.1,127.0.0.2", "--paths", "4", "-s", "64KiB",
                "--inject-loss", "0.01", "--name", "perf-write-bw");
        o.applyDefaults(TestKind.WRITE_BW);
        Result r = new Result();
        r.iters = 5000;
        Map<String, Object> metrics = new java.util.LinkedHashMap<>();
        metrics.put("goodput_gbps", 2.5);
        metrics.put("retransmits", 7L);
        ExperimentRecord rec = PerfRecord.of(TestKind.WRITE_BW, o, r, metrics, Map.of());
        assertEquals("pass", rec.verdict()); // no acceptance: pass
        rec = PerfRecord.of(TestKind.WRITE_BW, o, r, metrics, Map.of("goodput_gbps", ">= 2"));
        assertEquals("pass", rec.verdict());
        assertEquals("""
                experiment:
                  name: perf-write-bw
                  world: loopback
                  topology:
                    planes: 2
                    paths: 4
                    mtu: 4096
                  transport: metaroce
                  workload:
                    kind: write-bw
                    bytes: 65536
                    iters: 5000
                    qps: 1
                    tx_depth: 128
                    side: client
                  faults:
                  - kind: receiver_drop
                    fraction: 0.01
                  seed: 1
                metrics:
                  goodput_gbps: 2.5
                  retransmits: 7
                acceptance:
                  goodput_gbps: '>= 2'
                checks:
                - metric: goodput_gbps
                  require: '>= 2'
                  actual: 2.5
                  pass: true
                verdict: pass
                series: []
                """, rec.toYaml());
        assertEquals(5000, PerfRecord.iters(rec));
        assertEquals(65536, PerfRecord.bytes(rec));
        rec = PerfRecord.of(TestKind.WRITE_BW, o, r, metrics, Map.of("goodput_gbps", ">= 3"));
        assertEquals("fail", rec.verdict());
        assertEquals(List.of("goodput_gbps 2.5 does not satisfy >= 3"), PerfRecord.failures(rec));
        rec = PerfRecord.of(TestKind.WRITE_BW, o, r, metrics, Map.of("latency", "<= 5"));
        assertEquals("fail", rec.verdict()); // a missing metric never passes
        assertEquals(List.of("latency missing does not satisfy <= 5"), PerfRecord.failures(rec));
        metrics.put("data_verified", false);
        assertEquals("fail", PerfRecord.of(TestKind.WRITE_BW, o, r, metrics, Map.of("data_verified", "true")).verdict());
        metrics.put("data_verified", true);
        assertEquals("pass", PerfRecord.of(TestKind.WRITE_BW, o, r, metrics, Map.of("data_verified", "true")).verdict());
    }

    static DeviceStats sample() {
        Map<Counter, Long> c = new EnumMap<>(Counter.class);
        c.put(Counter.TX_PACKETS, 100L);
        c.put(Counter.RETRANSMITS, 3L);
        Map<Counter, Long> qc = new EnumMap<>(Counter.class);
        qc.put(Counter.COMPLETIONS, 9L);
        DeviceStats.PathStats p0 = new DeviceStats.PathStats(0, 0, "ACTIVE", 12_500, 65536, 4096, 50, 204_800, 1, 0, 2, 0, 0);
        DeviceStats.PathStats p1 = new DeviceStats.PathStats(1, 1, "FAILED", 0, 4096, 0, 50, 204_800, 2, 2, 0, 1, 1);
        DeviceStats.QpStats q = new DeviceStats.QpStats(0x1234, "RTS", 0x4321, List.of(p0, p1), qc, 3);
        Map<String, Long> cm = new java.util.LinkedHashMap<>();
        cm.put("CM_RX_PACKETS", 4L);
        cm.put("CM_DROP_BAD_CRC", 1L);
        cm.put("CM_ESTABLISHED", 1L);
        cm.put("CM_REJECTS_SENT", 0L);
        return new DeviceStats("ffm (\"quoted\")", c, 10, 20, 0, 1, 4, 999, List.of(q), DeviceStats.Datapath.NONE, cm);
    }

    @Test
    void statisticsJsonRoundTrips() {
        DeviceStats d = sample();
        String json = StatsJson.write(d, 1_700_000_000_000L, "pid 1");
        StatsJson.Snapshot back = StatsJson.read(json);
        assertEquals(d, back.stats());
        assertEquals(1_700_000_000_000L, back.writtenAtMs());
        assertEquals(3, back.stats().qps().get(0).postedNotTaken());
        assertTrue(json.contains("\"posted_not_taken\": 3"), json);
        assertTrue(d.format().contains("QP 4660 -> 17185 RTS, 3 posted not yet taken"), d.format());
        // a file written before the count existed reads as 0
        assertEquals(0, StatsJson.read(json.replace("\"posted_not_taken\": 3, ", "")).stats().qps().get(0)
                .postedNotTaken());
        assertEquals(d.format(), back.stats().format());
        assertTrue(d.format().contains("connection manager (CTR-7):\n  CM_RX_PACKETS            4\n  CM_DROP_BAD_CRC          1\n"
                + "  CM_ESTABLISHED           1\n"), d.format()); // zero CM counters are left out
        DeviceStats empty = new DeviceStats("channel", new EnumMap<>(Counter.class), 0, 0, 0, 0, 0, 0, List.of());
        assertEquals(empty, StatsJson.read(StatsJson.write(empty, 1, "")).stats());
        assertThrows(IllegalArgumentException.class, () -> StatsJson.read("{\"qps\": [}"));
        assertThrows(IllegalArgumentException.class, () -> StatsJson.read("[1, 2]"));
    }

    @Test
    void jsonStringsAreQuotedAndBadFilesAreOneLineErrors() {
        assertEquals("\"x\\\"y\\n\u00e9\"", StatsJson.quote("x\"y\n\u00e9"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StatsJson.read("{\"qps\": [}"));
        assertTrue(e.getMessage().startsWith("statistics JSON: ") && !e.getMessage().contains("\n"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StatsJson.read("null"));
    }

    @Test
    void statsCommandPrintsTheTableOrAClearError() throws Exception {
        Path f = tmp.resolve("s.json");
        Files.writeString(f, StatsJson.write(sample(), System.currentTimeMillis(), "pid 1"));
        PerfHarness.Capture out = new PerfHarness.Capture();
        PerfHarness.Capture err = new PerfHarness.Capture();
        CommandLine cl = new CommandLine(new StatsCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertEquals(0, cl.execute(f.toString(), "--watch", "--count", "2", "--interval", "0.01"));
        assertEquals(2, out.text().split("QP 4660 -> 17185 RTS", -1).length - 1, out.text());
        assertTrue(out.text().contains(sample().format()), out.text());
        assertEquals(1, cl.execute(tmp.resolve("missing.json").toString()));
        assertTrue(err.text().contains("cannot read"), err.text());
        Files.writeString(f, "not json");
        assertEquals(1, cl.execute(f.toString()));
        assertTrue(err.text().contains("not a statistics file"), err.text());
    }
}
