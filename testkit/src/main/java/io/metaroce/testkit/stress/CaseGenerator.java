package io.metaroce.testkit.stress;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.Opcode;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Makes a {@link StressCase} from a seed. Everything is drawn from one {@link SplittableRandom}, so a seed names
 * one case on every machine. The shape is bounded so that a case runs in tens of milliseconds: at most
 * {@value #MAX_QP_PAIRS} QP pairs, {@value #MAX_OPS} work requests and {@value #MAX_BYTES} payload bytes.
 */
public final class CaseGenerator {
    /** Most QP pairs in one case (over all node pairs). */
    public static final int MAX_QP_PAIRS = 192;
    /** Most work requests in one case. */
    public static final int MAX_OPS = 600;
    /** Most payload bytes in one case. */
    public static final long MAX_BYTES = 3L << 20;
    /** Virtual time every case gets after the faults heal before it is declared stalled, ns. */
    public static final long SETTLE_NS = 2_000_000_000L;

    private static final int[] PATH_CHOICES = {1, 2, 3, 4, 8, 16, 16, 32, 64};
    private static final int[] MTU_CHOICES = {256, 1000, 1024, 4096, 4096, 9000};
    private static final int[] SQ_CHOICES = {4, 16, 64, 1024, 1024};
    private static final long[] RATE_CHOICES = {10_000_000_000L, 25_000_000_000L, 100_000_000_000L, 400_000_000_000L};

    private CaseGenerator() {
    }

    /** The case named by {@code seed}. */
    public static StressCase generate(long seed) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x5EED_57E55L);
        EngineConfig cfg = config(r);
        int nodes = 2 + r.nextInt(7);
        long rate = RATE_CHOICES[r.nextInt(RATE_CHOICES.length)];
        if (r.nextInt(3) == 0) {
            cfg.txRateBps(rate);
        }
        if (r.nextInt(3) == 0) {
            cfg.inboundCapacityBps(rate).grantFraction(0.5 + r.nextDouble() * 0.5);
        }
        // HINT-7 from a generator of its own, so the cases of seeds drawn before it existed stay what they were
        SplittableRandom u = new SplittableRandom(seed ^ 0x0C5C_4ED0L);
        if (u.nextInt(4) == 0) {
            cfg.unscheduledBytes((1 + u.nextInt(4)) * (long) cfg.mtu);
        }
        // REL-18's tail parity from a generator of its own, so the cases of seeds drawn before stay the same
        SplittableRandom t = new SplittableRandom(seed ^ 0x7A1_9A21L);
        if (t.nextInt(3) == 0) {
            cfg.parityTailSegments(2 + t.nextInt(31));
            // REL-20/21's further parities, again from a generator of its own
            SplittableRandom q = new SplittableRandom(seed ^ 0x5EED_0021L);
            cfg.parityRepairs(1 + q.nextInt(8)).parityAdaptive(q.nextBoolean());
        }
        long linkDelay = 200 + r.nextInt(5_000);
        int datagram = Packet.datagramLength(Opcode.WRITE, cfg.mtu);
        long buffer = Math.max(2L * datagram, (16L << 10) << r.nextInt(7)); // 16 KiB .. 1 MiB
        long ecn = Math.max(datagram, (long) (buffer * (0.05 + r.nextDouble() * 0.6)));
        List<StressCase.Connection> conns = connections(r, nodes, cfg);
        long healAt = r.nextInt(10) == 0 ? 0 : 200_000 + r.nextLong(20_000_000);
        List<Fault> faults = healAt == 0 ? List.of() : FaultPlanner.plan(r, cfg, healAt);
        // REL-17's trimming switches from a generator of their own, so the cases of seeds drawn before stay the same
        if (new SplittableRandom(seed ^ 0x7121_3EDL).nextInt(3) == 0) {
            List<Fault> withTrimming = new java.util.ArrayList<>(faults.size() + 1);
            withTrimming.add(new Fault(0, Fault.Kind.TRIMMING, -1, 0, 0));
            withTrimming.addAll(faults);
            faults = withTrimming;
        }
        long receivesAt = 0;
        if (r.nextInt(5) == 0) {
            receivesAt = 1 + r.nextLong(2_000_000); // late: SENDs meet RNR until then
            cfg.rnrRetryLimit(1_000_000).rnrDelayNs(20_000 + r.nextLong(200_000));
        }
        return new StressCase(seed, cfg, nodes, rate, linkDelay, buffer, ecn, conns, faults, healAt, receivesAt,
                Math.max(healAt, receivesAt) + SETTLE_NS);
    }

    private static EngineConfig config(SplittableRandom r) {
        EngineConfig c = new EngineConfig();
        int paths = r.nextInt(4) == 0 ? 1 + r.nextInt(64) : PATH_CHOICES[r.nextInt(PATH_CHOICES.length)];
        c.paths(paths).planes(1 + r.nextInt(Math.min(8, paths)));
        c.mtu(MTU_CHOICES[r.nextInt(MTU_CHOICES.length)]);
        int iw = r.nextInt(3) == 0 ? 1 + r.nextInt(2) : 1 + r.nextInt(16);
        c.initialWindowPackets(iw);
        c.maxWindowPackets(r.nextInt(4) == 0 ? iw + r.nextInt(8) : 256);
        c.sqDepth(SQ_CHOICES[r.nextInt(SQ_CHOICES.length)]);
        c.ackEvery(1 + r.nextInt(8));
        c.ackDelayNs(new long[] {0, 1_000, 5_000, 20_000}[r.nextInt(4)]);
        c.reorderThreshold(1 + r.nextInt(6));
        if (r.nextBoolean()) {
            c.minRtoNs(50_000).initialRtoNs(100_000 + r.nextLong(400_000));
        }
        c.failAfterTimeouts(1 + r.nextInt(3));
        c.probeIntervalNs(new long[] {50_000, 200_000, 1_000_000}[r.nextInt(3)]);
        c.readmitAfterProbes(1 + r.nextInt(3));
        if (r.nextInt(4) == 0) {
            c.maxProbesPerSecond(5_000 + r.nextLong(45_000));
        }
        c.pacingGain(new double[] {0, 1, 2, 2, 4}[r.nextInt(5)]);
        c.lossBeta(r.nextBoolean() ? c.lossBeta : r.nextDouble() * 0.5);
        return c;
    }

    private static List<StressCase.Connection> connections(SplittableRandom r, int nodes, EngineConfig cfg) {
        List<int[]> pairs = new ArrayList<>();
        for (int a = 0; a < nodes; a++) {
            for (int b = a + 1; b < nodes; b++) {
                pairs.add(new int[] {a, b});
            }
        }
        // a random non-empty subset of node pairs, shuffled
        for (int i = pairs.size() - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int[] t = pairs.get(i);
            pairs.set(i, pairs.get(j));
            pairs.set(j, t);
        }
        int used = 1 + r.nextInt(pairs.size());
        int qpBudget = 1 + r.nextInt(r.nextBoolean() ? 16 : MAX_QP_PAIRS);
        List<int[]> qpPairs = new ArrayList<>();
        for (int i = 0; i < used && qpPairs.size() < qpBudget; i++) {
            int k = Math.min(qpBudget - qpPairs.size(), 1 << r.nextInt(7)); // 1..64 QPs for this node pair
            k = Math.max(1, r.nextInt(k) + 1);
            for (int q = 0; q < k; q++) {
                qpPairs.add(pairs.get(i));
            }
        }
        int ends = qpPairs.size() * 2;
        int opsPerEnd = Math.max(1, Math.min(MAX_OPS / ends, 1 + r.nextInt(24)));
        long bytesPerEnd = Math.max(cfg.mtu * 2L, MAX_BYTES / ends);
        List<StressCase.Connection> out = new ArrayList<>();
        for (int[] p : qpPairs) {
            boolean flip = r.nextBoolean();
            int na = flip ? p[1] : p[0];
            int nb = flip ? p[0] : p[1];
            out.add(new StressCase.Connection(na, nb, initialPsn(r), initialPsn(r),
                    ops(r, r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(opsPerEnd), bytesPerEnd, cfg),
                    ops(r, r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(opsPerEnd), bytesPerEnd, cfg)));
        }
        return out;
    }

    /** Initial PSNs: anywhere, or a few packets before the signed (2^31) or unsigned (2^32) wrap. */
    private static int initialPsn(SplittableRandom r) {
        return switch (r.nextInt(5)) {
            case 0 -> r.nextInt();
            case 1 -> Integer.MAX_VALUE - r.nextInt(64);
            case 2 -> -1 - r.nextInt(64);
            case 3 -> r.nextInt(4);
            default -> Integer.MAX_VALUE - r.nextInt(4096);
        };
    }

    /**
     * Work for one end. As with verbs, an unsignaled request's send-queue slot is only known free once a later
     * signaled one completes, so at least every sqDepth-th request and the last one are signaled.
     */
    private static List<StressOp> ops(SplittableRandom r, int count, long byteBudget, EngineConfig cfg) {
        int mtu = cfg.mtu;
        List<StressOp> ops = new ArrayList<>(count);
        long left = byteBudget;
        for (int i = 0; i < count; i++) {
            OpKind kind = OpKind.values()[r.nextInt(OpKind.values().length)];
            int len = (int) Math.min(size(r, mtu), Math.max(0, left));
            left -= len;
            int imm = r.nextInt();
            boolean signaled = r.nextInt(4) != 0 || i == count - 1 || i % cfg.sqDepth == cfg.sqDepth - 1;
            ops.add(new StressOp(kind, len, imm, signaled, r.nextInt(8)));
        }
        return ops;
    }

    /** Size classes: 0, tiny, under one packet, one packet, exact multiples, a few packets, many packets. */
    private static int size(SplittableRandom r, int mtu) {
        return switch (r.nextInt(10)) {
            case 0, 1 -> 0;
            case 2 -> 1 + r.nextInt(16);
            case 3 -> 17 + r.nextInt(Math.max(1, mtu - 17));
            case 4 -> mtu;
            case 5 -> mtu * (2 + r.nextInt(7));
            case 6 -> mtu * (1 + r.nextInt(3)) + (r.nextBoolean() ? 1 : -1);
            case 7, 8 -> mtu + 1 + r.nextInt(7 * mtu);
            default -> Math.min(256 << 10, mtu * (8 + r.nextInt(57)) + r.nextInt(mtu));
        };
    }
}
