package io.metaroce.sim.workload;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.transport.Transport;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Workload logic against a scripted transport: the test decides when messages are delivered and completed. */
class WorkloadTest {
    /** Records connections and posted messages; delivers nothing by itself. */
    private static final class ScriptedTransport implements Transport {
        record Sent(int conn, long bytes, long tag, long atPs) { }

        final EventLoop loop;
        final List<int[]> conns = new ArrayList<>();
        final List<Sent> sent = new ArrayList<>();
        Listener listener;

        ScriptedTransport(EventLoop loop) {
            this.loop = loop;
        }

        @Override public String name() { return "scripted"; }
        @Override public void setListener(Listener l) { listener = l; }
        @Override public int connect(int src, int dst) {
            conns.add(new int[] {src, dst});
            return conns.size() - 1;
        }
        @Override public int connections() { return conns.size(); }
        @Override public int source(int conn) { return conns.get(conn)[0]; }
        @Override public int destination(int conn) { return conns.get(conn)[1]; }
        @Override public void send(int conn, long bytes, long tag) { sent.add(new Sent(conn, bytes, tag, loop.nowPs())); }
        @Override public long receivedBytes(int conn) { return 0; }
        @Override public long dataPacketsSent() { return 0; }
        @Override public Map<String, Long> counters() { return Map.of(); }

        /** Messages posted on {@code conn} so far. */
        List<Sent> on(int conn) {
            return sent.stream().filter(s -> s.conn == conn).toList();
        }
    }

    private static WorkloadSpec spec(String kind) {
        WorkloadSpec w = new WorkloadSpec();
        w.kind = kind;
        return w;
    }

    @Test
    void ringAllReduceStepWaitsForTheNeighboursChunkAndItsOwnSend() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("allreduce-stepwise");
        w.ranks = 4;
        w.bytes = 4000;
        boolean[] done = {false};
        Workload wl = new Workload(w, 8, t, loop, new SplittableRandom(1), () -> done[0] = true);
        loop.run(Long.MAX_VALUE);
        assertEquals(4, t.connections());
        for (int r = 0; r < 4; r++) {
            assertArrayEquals(new int[] {r, (r + 1) % 4}, t.conns.get(r));
            assertEquals(1, t.on(r).size(), "step 0 of every rank starts at once");
            assertEquals(1000, t.on(r).get(0).bytes());
        }
        // rank 1's step-0 send completes, but it has not received step 0 from rank 0: no step 1 yet
        t.listener.completed(1, 0, 10, true);
        assertEquals(1, t.on(1).size());
        // rank 1 receives step 0 from rank 0 (connection 0): now step 1 goes
        t.listener.delivered(0, 0, 20);
        assertEquals(2, t.on(1).size());
        assertEquals(1, t.on(1).get(1).tag());
        // the other order: rank 2 receives step 0 first (conn 1 delivered), its own send not done yet
        t.listener.delivered(1, 0, 30);
        assertEquals(1, t.on(2).size());
        t.listener.completed(2, 0, 40, true);
        assertEquals(2, t.on(2).size());
        // finish every remaining step in order: 2(N-1) = 6 steps per rank
        int steps = 6;
        boolean[][] completed = new boolean[4][steps];
        boolean[][] delivered = new boolean[4][steps];
        completed[1][0] = true;
        completed[2][0] = true;
        delivered[0][0] = true;
        delivered[1][0] = true;
        for (int s = 0; s < steps; s++) {
            for (int c = 0; c < 4; c++) {
                assertTrue(t.on(c).size() > s, "conn " + c + " at step " + s);
                if (!completed[c][s]) {
                    t.listener.completed(c, s, 100 + s, true);
                    completed[c][s] = true;
                }
                if (!delivered[c][s]) {
                    t.listener.delivered(c, s, 100 + s);
                    delivered[c][s] = true;
                }
                for (int r = 0; r < 4; r++) {
                    // rank r has posted one step more than the steps it both finished sending and received
                    int both = 0;
                    while (both < steps && completed[r][both] && delivered[(r + 3) % 4][both]) {
                        both++;
                    }
                    assertEquals(Math.min(steps, both + 1), t.on(r).size(), "rank " + r);
                }
            }
        }
        for (int r = 0; r < 4; r++) {
            assertEquals(steps, t.on(r).size());
        }
        assertTrue(done[0] && wl.done());
        assertEquals(105, wl.endPs());
        assertEquals(4000, wl.collectiveBytes());
    }

    @Test
    void aFailedAllReduceStepEndsTheCollective() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("allreduce-stepwise");
        w.ranks = 3;
        w.bytes = 3000;
        boolean[] done = {false};
        Workload wl = new Workload(w, 3, t, loop, new SplittableRandom(1), () -> done[0] = true);
        loop.run(Long.MAX_VALUE);
        t.listener.completed(0, 0, 5, false);
        assertTrue(done[0] && wl.aborted());
        assertEquals(1, wl.failedMessages());
    }

    @Test
    void incastSendersStartStaggeredAndMessagesSplitTheBytes() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("incast");
        w.senders = 5;
        w.receiver = 6;
        w.bytes = 1001;
        w.messages = 3;
        w.qpsPerPair = 2;
        w.startPs = 1000;
        w.staggerPs = 500;
        boolean[] done = {false};
        Workload wl = new Workload(w, 8, t, loop, new SplittableRandom(1), () -> done[0] = true);
        loop.run(Long.MAX_VALUE);
        assertEquals(10, t.connections());
        Map<Integer, Long> bytesBySender = new HashMap<>();
        for (ScriptedTransport.Sent s : t.sent) {
            int src = t.source(s.conn());
            assertEquals(6, t.destination(s.conn()));
            int order = (src - 7 + 8) % 8;
            assertEquals(1000 + order * 500L, s.atPs(), "sender " + src);
            bytesBySender.merge(src, s.bytes(), Long::sum);
        }
        assertEquals(Map.of(7, 1001L, 0, 1001L, 1, 1001L, 2, 1001L, 3, 1001L), bytesBySender);
        assertEquals(30, t.sent.size());
        assertEquals(3000, wl.lastStartPs());
        for (ScriptedTransport.Sent s : t.sent) {
            t.listener.completed(s.conn(), s.tag(), 9000, true);
        }
        assertTrue(done[0]);
        for (Workload.Flow f : wl.flows()) {
            assertTrue(f.ok());
            assertEquals(9000, f.finishPs);
        }
    }

    @Test
    void messagesOfAFlowCanBeSpacedInTime() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("bulk");
        w.pairs = "2-3";
        w.bytes = 10;
        w.messages = 4;
        w.startPs = 100;
        w.messageGapPs = 50;
        boolean[] done = {false};
        Workload wl = new Workload(w, 4, t, loop, new SplittableRandom(1), () -> done[0] = true);
        loop.run(Long.MAX_VALUE);
        assertEquals(List.of(100L, 150L, 200L, 250L), t.sent.stream().map(ScriptedTransport.Sent::atPs).toList());
        assertEquals(List.of(3L, 3L, 2L, 2L), t.sent.stream().map(ScriptedTransport.Sent::bytes).toList());
        for (int m = 0; m < 3; m++) {
            t.listener.completed(0, m, 300, true);
        }
        assertFalse(done[0]);
        t.listener.completed(0, 3, 400, true);
        assertTrue(done[0]);
        assertEquals(300, wl.flows().get(0).finishPs - wl.flows().get(0).startPs);
    }

    @Test
    void permutationIsASeededDerangement() {
        for (int n : new int[] {2, 3, 16, 101}) {
            int[] p = Workload.derangement(n, new SplittableRandom(n));
            boolean[] seen = new boolean[n];
            for (int i = 0; i < n; i++) {
                assertNotEquals(i, p[i]);
                assertFalse(seen[p[i]]);
                seen[p[i]] = true;
            }
            assertArrayEquals(p, Workload.derangement(n, new SplittableRandom(n)));
        }
        assertFalse(java.util.Arrays.equals(Workload.derangement(64, new SplittableRandom(1)),
                Workload.derangement(64, new SplittableRandom(2))));
    }

    @Test
    void bulkPairsAndAllToAll() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("bulk");
        w.pairs = " 0-5, 3-1 ";
        Workload wl = new Workload(w, 8, t, loop, new SplittableRandom(1), () -> { });
        assertEquals(2, wl.flows().size());
        assertArrayEquals(new int[] {3, 1}, t.conns.get(1));
        WorkloadSpec bad = spec("bulk");
        bad.pairs = "0-9";
        assertThrows(IllegalArgumentException.class,
                () -> new Workload(bad, 8, new ScriptedTransport(loop), loop, new SplittableRandom(1), () -> { }));
        bad.pairs = "zero-one";
        assertThrows(IllegalArgumentException.class,
                () -> new Workload(bad, 8, new ScriptedTransport(loop), loop, new SplittableRandom(1), () -> { }));
        ScriptedTransport a2a = new ScriptedTransport(loop);
        WorkloadSpec all = spec("alltoall");
        all.ranks = 4;
        Workload wa = new Workload(all, 8, a2a, loop, new SplittableRandom(1), () -> { });
        assertEquals(12, wa.flows().size());
        assertEquals(all.bytes, wa.collectiveBytes(), "nccl-tests' size: the send buffer per rank");
        assertEquals(all.bytes / 4, wa.flows().get(0).bytes, "a quarter of it to each rank (and one to itself)");
        assertEquals(0.75, wa.busFactor(), 1e-12);
    }

    /**
     * Delivers and completes, in posting order, every message posted and not yet answered (except those the test
     * already delivered or completed by hand, listed in {@code delivered} and {@code completed} as conn:tag);
     * returns how many.
     */
    private static int answerAll(ScriptedTransport t, int[] answered, java.util.Set<String> delivered,
                                 java.util.Set<String> completed) {
        int n = 0;
        while (answered[0] < t.sent.size()) {
            ScriptedTransport.Sent m = t.sent.get(answered[0]++);
            String key = m.conn() + ":" + m.tag();
            if (!delivered.remove(key)) {
                t.listener.delivered(m.conn(), m.tag(), 1000 + answered[0]);
            }
            if (!completed.remove(key)) {
                t.listener.completed(m.conn(), m.tag(), 1000 + answered[0], true);
            }
            n++;
        }
        return n;
    }

    @Test
    void pipelinedRingForwardsEachSliceAsSoonAsItArrives() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("allreduce");
        w.ranks = 3;
        w.qpsPerPair = 2; // two channels
        w.sliceBytes = 100;
        w.chunkSlices = 2;
        w.slots = 3;
        w.bytes = 2 * 3 * 400; // per channel 1200 bytes: 2 loops of 3 chunks of 200 (2 slices of 100)
        boolean[] done = {false};
        Workload wl = new Workload(w, 4, t, loop, new SplittableRandom(1), () -> done[0] = true);
        loop.run(Long.MAX_VALUE);
        assertEquals(6, t.connections());
        // conns: rank 0 ch 0, rank 0 ch 1, rank 1 ch 0, ...: step 0 (2 slices) at once, step 1 waits for data
        for (int conn = 0; conn < 6; conn++) {
            assertEquals(2, t.on(conn).size(), "conn " + conn);
            assertEquals(100, t.on(conn).get(0).bytes());
        }
        // rank 1 receives slice 0 of rank 0's channel 0 (conn 0): it forwards it at once, before any ack
        t.listener.delivered(0, 0, 10);
        assertEquals(3, t.on(2).size());
        assertEquals(2, t.on(2).get(2).tag());
        assertEquals(2, t.on(3).size(), "the other channel does not move");
        // rank 1 gets slice 1 too: it forwards it, but its FIFO credit at rank 2 (3 slices, none consumed) stops
        // it at slice 3 even when slice 2 of rank 0 arrives later
        t.listener.delivered(0, 1, 20);
        assertEquals(3, t.on(2).size(), "slice 3 needs a free slot at rank 2 (slots = 3)");
        // rank 2 forwards rank 1's slice 0 once it receives it: a slot frees at rank 2 and rank 1 goes on
        t.listener.delivered(2, 0, 30);
        assertEquals(4, t.on(2).size());
        int[] answered = {0};
        java.util.Set<String> byHand = new java.util.HashSet<>(List.of("0:0", "0:1", "2:0"));
        while (answerAll(t, answered, byHand, new java.util.HashSet<>()) > 0) {
            loop.run(Long.MAX_VALUE);
        }
        assertTrue(done[0] && wl.done() && !wl.aborted());
        // every rank sent 2 loops x 4 steps x 2 slices per channel: 2 (N-1)/N of the buffer
        for (int conn = 0; conn < 6; conn++) {
            assertEquals(16, t.on(conn).size());
            assertEquals(1600, t.on(conn).stream().mapToLong(ScriptedTransport.Sent::bytes).sum());
        }
        assertEquals(w.bytes, wl.collectiveBytes());
        assertEquals(4.0 / 3, wl.busFactor(), 1e-12);
        for (Workload.Flow f : wl.flows()) {
            assertTrue(f.ok());
        }
    }

    @Test
    void pipelinedRingOfATinyBufferUsesOneSlicePerChunkAndRejectsTooFewBytes() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("allreduce");
        w.ranks = 4;
        w.bytes = 4096;
        boolean[] done = {false};
        Workload wl = new Workload(w, 4, t, loop, new SplittableRandom(1), () -> done[0] = true);
        loop.run(Long.MAX_VALUE);
        int[] answered = {0};
        while (answerAll(t, answered, new java.util.HashSet<>(), new java.util.HashSet<>()) > 0) {
            loop.run(Long.MAX_VALUE);
        }
        assertTrue(done[0] && wl.done());
        assertEquals(6, t.on(0).size(), "2 (N-1) steps of one 1 KiB slice");
        WorkloadSpec tiny = spec("allreduce");
        tiny.ranks = 4;
        tiny.bytes = 3;
        assertThrows(IllegalArgumentException.class,
                () -> new Workload(tiny, 4, new ScriptedTransport(loop), loop, new SplittableRandom(1), () -> { }));
        WorkloadSpec noRoom = spec("allreduce");
        noRoom.slots = noRoom.chunkSlices;
        assertThrows(IllegalArgumentException.class,
                () -> new Workload(noRoom, 4, new ScriptedTransport(loop), loop, new SplittableRandom(1), () -> { }));
    }

    @Test
    void pairwiseAllToAllStartsARoundWhenItsSendAndReceiveAreDone() {
        EventLoop loop = new EventLoop();
        ScriptedTransport t = new ScriptedTransport(loop);
        WorkloadSpec w = spec("alltoall-pairwise");
        w.ranks = 3;
        w.bytes = 3000;
        boolean[] done = {false};
        Workload wl = new Workload(w, 3, t, loop, new SplittableRandom(1), () -> done[0] = true);
        loop.run(Long.MAX_VALUE);
        // flows [rank][round]: conn = rank * 2 + round - 1; round 1 of every rank is posted
        assertEquals(3, t.sent.size());
        assertEquals(1000, t.sent.get(0).bytes());
        t.listener.completed(0, 0, 10, true); // rank 0's send to 1 is acknowledged, nothing from rank 2 yet
        assertEquals(3, t.sent.size());
        t.listener.delivered(4, 0, 20); // rank 2 -> 0 (round 1) arrives: rank 0 moves to round 2
        assertEquals(4, t.sent.size());
        assertEquals(1, t.sent.get(3).conn());
        int[] answered = {0};
        while (answerAll(t, answered, new java.util.HashSet<>(List.of("4:0")),
                new java.util.HashSet<>(List.of("0:0"))) > 0) {
            loop.run(Long.MAX_VALUE);
        }
        assertTrue(done[0] && wl.done());
        assertEquals(6, wl.flows().size());
        assertEquals(3000, wl.collectiveBytes());
    }
}
