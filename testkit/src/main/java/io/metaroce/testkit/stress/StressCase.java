package io.metaroce.testkit.stress;

import io.metaroce.core.EngineConfig;

import java.util.List;

/**
 * One generated case: everything {@link StressRun} needs, made from a seed by {@link CaseGenerator}.
 *
 * @param seed           the seed it was made from (also seeds the network and the engines)
 * @param config         every engine's configuration
 * @param nodes          engines in the network (2-8)
 * @param rateBps        port rate of every switch port, bits/s
 * @param linkDelayNs    one link's propagation delay, ns
 * @param bufferBytes    output-queue size of every switch port, bytes
 * @param ecnThresholdBytes queue depth above which the switch marks CE, bytes
 * @param connections    the QP pairs and the work each end posts
 * @param faults         network changes during the fault phase, in time order
 * @param healAtNs       when every fault is undone (loss 0, everything up), ns
 * @param receivesAtNs   when receives are posted (0: before any send)
 * @param limitNs        virtual time by which every work request must have completed, ns
 */
public record StressCase(long seed, EngineConfig config, int nodes, long rateBps, long linkDelayNs,
                         long bufferBytes, long ecnThresholdBytes, List<Connection> connections, List<Fault> faults,
                         long healAtNs, long receivesAtNs, long limitNs) {

    /**
     * One connected QP pair.
     *
     * @param nodeA the node of end A
     * @param nodeB the node of end B
     * @param psnA  A's initial send PSN (B expects it)
     * @param psnB  B's initial send PSN
     * @param opsA  work A posts to B, in order
     * @param opsB  work B posts to A, in order
     */
    public record Connection(int nodeA, int nodeB, int psnA, int psnB, List<StressOp> opsA, List<StressOp> opsB) {
    }

    /** Work requests in the whole case. */
    public int operations() {
        int n = 0;
        for (Connection c : connections) {
            n += c.opsA.size() + c.opsB.size();
        }
        return n;
    }

    /** Payload bytes in the whole case. */
    public long payloadBytes() {
        long n = 0;
        for (Connection c : connections) {
            for (StressOp op : c.opsA) {
                n += op.length();
            }
            for (StressOp op : c.opsB) {
                n += op.length();
            }
        }
        return n;
    }

    /** One line: the shape of the case. */
    public String describe() {
        EngineConfig c = config;
        return String.format("seed %d: %d nodes, %d QP pairs, %d ops, %d B; paths=%d planes=%d mtu=%d iw=%d maxw=%d "
                        + "sq=%d ackEvery=%d ackDelay=%d reorderThr=%d rto=%d/%d failAfter=%d probe=%d/%d/s readmit=%d "
                        + "grants=%s unscheduled=%d txRate=%d pacing=%.1f parityTail=%d repairs=%d%s; net %d Gb/s %d ns buf=%d ecn=%d; %d faults, heal at %d ns, receives at %d ns",
                seed, nodes, connections.size(), operations(), payloadBytes(), c.paths, c.planes, c.mtu,
                c.initialWindowPackets, c.maxWindowPackets, c.sqDepth, c.ackEvery, c.ackDelayNs, c.reorderThreshold,
                c.minRtoNs, c.initialRtoNs, c.failAfterTimeouts, c.probeIntervalNs, c.maxProbesPerSecond,
                c.readmitAfterProbes, c.inboundCapacityBps > 0 ? "on" : "off", c.unscheduledBytes, c.txRateBps, c.pacingGain,
                c.parityTailSegments, c.parityRepairs, c.parityAdaptive ? " adaptive" : "", rateBps / 1_000_000_000L, linkDelayNs, bufferBytes, ecnThresholdBytes, faults.size(), healAtNs, receivesAtNs);
    }
}
