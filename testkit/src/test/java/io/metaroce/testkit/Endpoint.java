package io.metaroce.testkit;

import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Test fixture: one node's PD, CQs, a QP and a source and sink region, plus completion collection. */
final class Endpoint {
    final int node;
    final Engine engine;
    final ProtectionDomain pd;
    final CompletionQueue scq;
    final CompletionQueue rcq;
    final QueuePair qp;
    final MemoryRegion src;
    final MemoryRegion dst;
    final List<String> sendCompletions = new ArrayList<>();
    final List<String> recvCompletions = new ArrayList<>();
    final List<Long> sendWrIds = new ArrayList<>();
    final List<Long> recvWrIds = new ArrayList<>();
    final List<WcStatus> sendStatuses = new ArrayList<>();
    final List<WcStatus> recvStatuses = new ArrayList<>();
    private final WorkCompletion wc = new WorkCompletion();

    Endpoint(Network net, int node, long regionBytes) {
        this.node = node;
        this.engine = net.engine(node);
        this.pd = engine.allocPd();
        this.scq = engine.createCq(4096);
        this.rcq = engine.createCq(4096);
        this.qp = engine.createQp(pd, scq, rcq);
        Arena arena = Arena.ofAuto();
        this.src = engine.registerMemory(pd, arena.allocate(regionBytes, 64), Access.ALL);
        this.dst = engine.registerMemory(pd, arena.allocate(regionBytes, 64), Access.ALL);
    }

    static void connect(Network net, Endpoint a, Endpoint b) {
        net.connect(a.node, a.qp, b.node, b.qp, 1000 + a.node, 5000 + b.node);
    }

    /**
     * Makes {@code count} connected pairs, QP {@code k} from node {@code from} to node {@code to}, each end with regions
     * of {@code bytes}; sender {@code k}'s source is filled from seed {@code k}. Adds them to the two lists in order.
     */
    static void connectPairs(Network net, int from, int to, int count, long bytes, List<Endpoint> senders,
                             List<Endpoint> receivers) {
        for (int k = 0; k < count; k++) {
            Endpoint a = new Endpoint(net, from, bytes);
            Endpoint b = new Endpoint(net, to, bytes);
            connect(net, a, b);
            a.fillRandom(k);
            senders.add(a);
            receivers.add(b);
        }
    }

    void fillRandom(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        MemorySegment s = src.segment();
        long n = s.byteSize();
        long i = 0;
        for (; i + 8 <= n; i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        for (; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    /** Polls both CQs into the lists. */
    void drain() {
        while (scq.poll(wc)) {
            sendCompletions.add(wc.toString());
            sendWrIds.add(wc.wrId());
            sendStatuses.add(wc.status());
        }
        while (rcq.poll(wc)) {
            recvCompletions.add(wc.toString());
            recvWrIds.add(wc.wrId());
            recvStatuses.add(wc.status());
        }
    }

    int sendDone() {
        drain();
        return sendWrIds.size();
    }

    /** Whether every one of {@code ends} has at least {@code n} send completions. */
    static boolean allSendsDone(Endpoint[] ends, int n) {
        for (Endpoint e : ends) {
            if (e.sendDone() < n) {
                return false;
            }
        }
        return true;
    }

    int recvDone() {
        drain();
        return recvWrIds.size();
    }

    /**
     * Keeps {@code outstanding} WRITEs of {@code message} bytes in flight to {@code to}, slot {@code k % outstanding}
     * of this source region onto the same slot of the peer's sink: posts as many as have completed since {@code
     * posted} (the number posted so far) and returns the new number posted.
     */
    long keepWriting(Endpoint to, long posted, int outstanding, int message) {
        long n = posted;
        while (n - sendDone() < outstanding) {
            long off = (n % outstanding) * message;
            int rc = qp.postWrite(n, src, off, message, to.dst.address() + off, to.dst.rkey(), QueuePair.SIGNALED);
            if (rc != QueuePair.OK) {
                throw new IllegalStateException("postWrite returned " + rc);
            }
            n++;
        }
        return n;
    }
}
