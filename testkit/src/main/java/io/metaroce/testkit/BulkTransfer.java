package io.metaroce.testkit;

import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * One bulk RDMA WRITE transfer between two endpoints of a {@link Network}, verified byte for byte: the
 * workload of the demo and of quick experiments.
 */
public final class BulkTransfer {
    /**
     * What one run measured.
     *
     * @param bytes          payload bytes written
     * @param completionNs   virtual time from the first post to the last completion
     * @param goodputGbps    payload bits per nanosecond of completion time
     * @param droppedData    data packets the network dropped
     * @param droppedTotal   all datagrams the network dropped (data and control)
     * @param retransmits    data packets the sender sent again
     * @param timeouts       retransmission timer expiries at the sender
     * @param errors         error completions
     * @param dataCorrect    whether the destination equals the source afterwards
     */
    public record Result(long bytes, long completionNs, double goodputGbps, long droppedData, long droppedTotal,
                         long retransmits, long timeouts, long errors, boolean dataCorrect) {
    }

    private BulkTransfer() {
    }

    /**
     * Writes {@code bytes} as {@code messages} WRITEs from node 0 to node 1 of a fresh two-node network with
     * {@code config}, ports of {@code rateBps}, random loss {@code loss} on every datagram, seeded by
     * {@code seed}. Gives up at {@code limitNs} of virtual time.
     */
    public static Result run(EngineConfig config, long rateBps, double loss, long bytes, int messages, long seed,
                             long limitNs) {
        Network net = new Network(seed, 2, config, rateBps, 1_000, 1 << 20, 100 << 10);
        net.setLoss(loss);
        Engine a = net.engine(0);
        Engine b = net.engine(1);
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        CompletionQueue cqa = a.createCq(messages + 16);
        CompletionQueue cqb = b.createCq(16);
        QueuePair qa = a.createQp(pa, cqa, cqa);
        QueuePair qb = b.createQp(pb, cqb, cqb);
        net.connect(0, qa, 1, qb, 1, 1);
        Arena arena = Arena.ofAuto();
        MemorySegment src = arena.allocate(bytes, 64);
        MemorySegment dst = arena.allocate(bytes, 64);
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i + 8 <= bytes; i += 8) {
            src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        MemoryRegion ms = a.registerMemory(pa, src, Access.LOCAL_WRITE);
        MemoryRegion md = b.registerMemory(pb, dst, Access.ALL);
        long chunk = bytes / messages;
        long start = net.nowNs();
        for (int i = 0; i < messages; i++) {
            long len = i == messages - 1 ? bytes - chunk * i : chunk;
            int rc = qa.postWrite(i, ms, chunk * i, (int) len, md.address() + chunk * i, md.rkey(),
                    QueuePair.SIGNALED);
            if (rc != QueuePair.OK) {
                throw new IllegalStateException("post failed: " + rc);
            }
        }
        WorkCompletion wc = new WorkCompletion();
        long[] done = {0};
        long[] errors = {0};
        net.runUntil(() -> {
            while (cqa.poll(wc)) {
                done[0]++;
                if (wc.status() != WcStatus.SUCCESS) {
                    errors[0]++;
                }
            }
            return done[0] == messages;
        }, limitNs);
        long ns = net.nowNs() - start;
        boolean correct = done[0] == messages && src.mismatch(dst) == -1;
        return new Result(bytes, ns, bytes * 8.0 / Math.max(1, ns), net.droppedData(),
                net.droppedByFault() + net.droppedByBuffer(), a.counters().get(Counter.RETRANSMITS),
                a.counters().get(Counter.TIMEOUTS), errors[0] + (messages - done[0]), correct);
    }
}
