package io.metaroce.bench;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.auth.CmAuth;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.net.cm.CmCounter;
import io.metaroce.net.cm.CmEndpoint;
import io.metaroce.net.cm.CmHost;
import io.metaroce.net.cm.CmSettings;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The cost of a CM flood at a connection manager with a pre-shared key, with and without its per-source rate
 * limit ({@code CmRateLimit}, default 100,000 datagrams/s and a burst of 8,192): CPU time per flood datagram on the
 * thread's own CPU clock, for (1) unsealed CM_REQs (no trailer, so no MAC: each admitted one costs an unsealed
 * CM_REJ, AUTH-14), (2) CM_REQs sealed under another key (a MAC check and a CM_REJ each: the most a datagram can
 * cost) and (3) CM_DREQs sealed under another key (a MAC check each, AUTH-13). The flood comes from one source
 * at {@code rate} datagrams per second of virtual time; rounds interleave the modes (no limit, limit, no limit,
 * ...) and the min, median and max of each are printed, with the share of one core the flood would take at that
 * rate.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.metaroce.bench.CmFloodCost [rate/s] [rounds] [datagrams per round]</pre>
 */
public final class CmFloodCost {
    private static final byte[] PSK = "a pre-shared key of 32 bytes, ok".getBytes(StandardCharsets.US_ASCII);
    private static final long SOURCE = 0x0a00_0007L << 16 | 40_000; // 10.0.0.7, port 40000 (the host's packing)

    private CmFloodCost() {
    }

    /** A keyed host that answers into the void: the CM's sends are counted, not carried. */
    private static final class Host implements CmHost {
        private final EngineConfig cfg = new EngineConfig();
        long sent;

        @Override
        public QueuePair newQp() {
            throw new IllegalStateException("a flood never creates a QP");
        }

        @Override
        public int peerHandle(long remote, CmMessage m) {
            return 0;
        }

        @Override
        public void emit(MemorySegment datagram, int length, long remote) {
            sent++;
        }

        @Override
        public EngineConfig config() {
            return cfg;
        }

        @Override
        public List<byte[]> planeAddresses() {
            return List.of(new byte[] {10, 0, 0, 2});
        }

        @Override
        public int udpPort() {
            return Packet.DEFAULT_UDP_PORT;
        }

        @Override
        public int responderInitialPsn() {
            return 0;
        }

        @Override
        public byte[] authKey() {
            return PSK;
        }

        @Override
        public long source(long remote) {
            return remote >>> 16;
        }
    }

    /** One mode: an endpoint whose virtual clock runs on across rounds (so the limit is in its steady state). */
    private static final class Mode {
        final String name;
        final CmEndpoint cm;
        long nowNs;

        Mode(String name, CmSettings settings) {
            this.name = name;
            this.cm = new CmEndpoint(new Host(), settings);
            cm.listen();
        }
    }

    public static void main(String[] args) {
        long rate = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        int perRound = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
        if (rate < 1 || rate > 1_000_000_000L || rounds < 1 || perRound < 1) {
            System.err.println("usage: CmFloodCost [rate 1..1e9 per second] [rounds >= 1] [datagrams per round >= 1]");
            System.exit(2);
        }
        CmAuth other = new CmAuth("another key, not the device's one!".getBytes(StandardCharsets.US_ASCII));
        byte[][][] floods = {requests(null), requests(other), forgedDisconnects(other)};
        String[] kinds = {"unsealed CM_REQ (no trailer, no MAC: an unsealed CM_REJ each)",
            "CM_REQ under another key (a MAC check and an unsealed CM_REJ each)",
            "CM_DREQ under another key (a MAC check each)"};
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        System.out.printf(Locale.ROOT, "flood of %,d datagrams/s from one source; %d rounds of %,d, modes interleaved;"
                + " CPU ns per flood datagram on the thread's own clock%n", rate, rounds, perRound);
        for (int k = 0; k < floods.length; k++) {
            CmSettings base = CmSettings.recommended(1_000_000_000L);
            Mode[] modes = {new Mode("no limit", base.withRateLimit(0, 1)), new Mode("limit", base)};
            for (Mode m : modes) {
                run(m, floods[k], 5 * perRound, rate); // warm-up, and the limit's burst spent
            }
            List<List<Double>> ns = List.of(new ArrayList<>(), new ArrayList<>());
            long[] checked0 = new long[2];
            long[] limited0 = new long[2];
            for (int i = 0; i < 2; i++) {
                checked0[i] = modes[i].cm.counter(CmCounter.CM_DROP_AUTH);
                limited0[i] = modes[i].cm.counter(CmCounter.CM_DROP_RATE_LIMITED);
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < 2; i++) {
                    long cpu0 = mx.getCurrentThreadCpuTime();
                    run(modes[i], floods[k], perRound, rate);
                    ns.get(i).add((mx.getCurrentThreadCpuTime() - cpu0) / (double) perRound);
                }
            }
            System.out.printf(Locale.ROOT, "%n%s%n%10s %9s %9s %9s %12s %14s %12s%n", kinds[k], "mode", "min ns",
                    "median ns", "max ns", "admitted", "rate-limited", "core at rate");
            for (int i = 0; i < 2; i++) {
                double[] s = ns.get(i).stream().mapToDouble(Double::doubleValue).sorted().toArray();
                long total = (long) rounds * perRound;
                double checked = (modes[i].cm.counter(CmCounter.CM_DROP_AUTH) - checked0[i]) / (double) total;
                double limited = (modes[i].cm.counter(CmCounter.CM_DROP_RATE_LIMITED) - limited0[i]) / (double) total;
                double median = s[s.length / 2];
                System.out.printf(Locale.ROOT, "%10s %9.0f %9.0f %9.0f %11.1f%% %13.1f%% %11.1f%%%n", modes[i].name,
                        s[0], median, s[s.length - 1], 100 * checked, 100 * limited, median * rate / 1e7);
            }
        }
    }

    /** Feeds {@code n} datagrams of {@code flood} (in turn) to {@code m}'s endpoint at {@code rate} per second. */
    private static void run(Mode m, byte[][] flood, int n, long rate) {
        long stepPs = 1_000_000_000_000L / rate;
        long startNs = m.nowNs;
        MemorySegment[] segs = new MemorySegment[flood.length];
        for (int i = 0; i < flood.length; i++) {
            segs[i] = MemorySegment.ofArray(flood[i]);
        }
        for (int i = 0; i < n; i++) {
            byte[] d = flood[i % flood.length];
            m.cm.handle(startNs + i * stepPs / 1000, segs[i % flood.length], d.length, SOURCE);
        }
        m.nowNs = startNs + n * stepPs / 1000;
    }

    /** 1,024 CM_REQs with distinct connection ids (4 planes), sealed under {@code auth} (null: unsealed). */
    private static byte[][] requests(CmAuth auth) {
        List<byte[]> planes = List.of(new byte[] {10, 0, 0, 7}, new byte[] {10, 1, 0, 7}, new byte[] {10, 2, 0, 7},
                new byte[] {10, 3, 0, 7});
        byte[][] out = new byte[1024][];
        for (int i = 0; i < out.length; i++) {
            out[i] = datagram(new CmMessage(Opcode.CM_REQ, 0x7000_0000L + i, 0x900 + i, 0, 0x1000, 4096, 16, 0,
                    4793, 0, planes), auth);
        }
        return out;
    }

    /** 1,024 CM_DREQs sealed under {@code other} (forgeries of a peer's close). */
    private static byte[][] forgedDisconnects(CmAuth other) {
        byte[][] out = new byte[1024][];
        for (int i = 0; i < out.length; i++) {
            out[i] = datagram(new CmMessage(Opcode.CM_DREQ, 0x7100_0000L + i, 0x900 + i, 0xb00 + i, 0, 0, 0, 0, 0,
                    0, List.of()), other);
        }
        return out;
    }

    private static byte[] datagram(CmMessage m, CmAuth auth) {
        byte[] b = new byte[1024];
        MemorySegment seg = MemorySegment.ofArray(b);
        int ext = m.encodedLength();
        new BaseHeader().wrap(seg, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(m.peerQpn())
                .pathId(0).payloadLength(ext - CmHeader.FIXED_LENGTH).psn(0).psnFloor(0).srcQpn(m.senderQpn())
                .timestampNs(1);
        m.emit(seg, BaseHeader.LENGTH);
        int len = BaseHeader.LENGTH + ext;
        if (auth != null) {
            len = auth.seal(seg, len, 1);
        }
        return Arrays.copyOf(b, new Packet().seal(seg, len));
    }
}
