package io.metaroce.sim;

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
        WorkloadSpec w = spec("allreduce");
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
        WorkloadSpec w = spec("allreduce");
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
        assertEquals(3 * all.bytes, wa.collectiveBytes());
        assertEquals(0.75, wa.busFactor(), 1e-12);
    }
}
