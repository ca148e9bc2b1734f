package io.metaroce.net.cm;

import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two connection managers on two engines, on virtual time, exchanging their CM datagrams through a queue that
 * can lose them: set-up, lost messages, negotiation, STALE, orderly close from either side, TIME_WAIT, and that
 * every remembered attempt is eventually forgotten (no leak over many connections).
 */
class CmEndpointTest {
    private static final long A = 1;
    private static final long B = 2;
    private static final CmSettings SETTINGS = CmSettings.recommended(50_000_000);

    /** One side: an engine, its CM and what the CM reported. */
    static final class Side implements CmHost {
        final long me;
        final EngineConfig cfg;
        final Engine engine;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final CmEndpoint cm;
        final List<QueuePair> accepted = new ArrayList<>();
        final List<QueuePair> connected = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        final List<String> disconnects = new ArrayList<>();
        Link link;
        /** AUTH-9: this side's pre-shared key (null: none) and whether it asks for encryption. */
        byte[] psk;
        boolean encrypt;

        Side(long me, int mtu, int paths) {
            this(me, mtu, paths, SETTINGS);
        }

        Side(long me, int mtu, int paths, CmSettings settings) {
            this.me = me;
            this.cfg = new EngineConfig().mtu(mtu).paths(paths).planes(1);
            this.engine = new Engine(cfg, new SplittableRandom(me));
            this.pd = engine.allocPd();
            this.cq = engine.createCq(1024);
            this.cm = new CmEndpoint(this, settings);
        }

        QueuePair freshQp() {
            QueuePair qp = engine.createQp(pd, cq, cq);
            qp.modifyToInit();
            return qp;
        }

        @Override
        public QueuePair newQp() {
            return freshQp();
        }

        @Override
        public int peerHandle(long remote, CmMessage m) {
            return 0;
        }

        @Override
        public void emit(MemorySegment datagram, int length, long remote) {
            link.carry(me, datagram, length, remote);
        }

        @Override
        public EngineConfig config() {
            return cfg;
        }

        @Override
        public List<byte[]> planeAddresses() {
            return List.of(new byte[] {10, 0, 0, (byte) me});
        }

        @Override
        public byte[] authKey() {
            return psk;
        }

        @Override
        public boolean encryptPayloads() {
            return encrypt;
        }

        @Override
        public int udpPort() {
            return 4793;
        }

        @Override
        public int responderInitialPsn() {
            return 0x5000;
        }

        @Override
        public void accepted(QueuePair qp, long remote) {
            accepted.add(qp);
        }

        @Override
        public void connected(long cid, QueuePair qp) {
            connected.add(qp);
        }

        @Override
        public void failed(long cid, QueuePair qp, String why) {
            failures.add(why);
        }

        @Override
        public void abandoned(QueuePair qp) {
            disconnects.add("abandoned");
        }

        @Override
        public void disconnected(QueuePair qp, boolean byPeer, boolean answered) {
            disconnects.add((byPeer ? "peer" : "ours") + (answered ? " answered" : " unanswered"));
        }
    }

    /** The network between the two sides: datagrams in flight, a drop rule, virtual time. */
    static final class Link {
        record Dgram(long from, long to, byte[] bytes) {
        }

        final Side a;
        final Side b;
        final Deque<Dgram> inFlight = new ArrayDeque<>();
        Predicate<Dgram> drop = d -> false;
        long now;
        int delivered;

        Link(Side a, Side b) {
            this.a = a;
            this.b = b;
            a.link = this;
            b.link = this;
        }

        void carry(long from, MemorySegment seg, int len, long to) {
            byte[] bytes = seg.asSlice(0, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            Dgram d = new Dgram(from, to, bytes);
            if (!drop.test(d)) {
                inFlight.add(d);
            }
        }

        /** Delivers everything in flight, then advances time by {@code stepNs} and fires timers, for {@code ns}. */
        void run(long ns) {
            long end = now + ns;
            while (true) {
                while (!inFlight.isEmpty()) {
                    Dgram d = inFlight.poll();
                    Side to = d.to == A ? a : b;
                    to.cm.handle(now, MemorySegment.ofArray(d.bytes), d.bytes.length, d.from);
                    delivered++;
                }
                if (now >= end) {
                    return;
                }
                now += 100_000;
                a.cm.onTimer(now);
                b.cm.onTimer(now);
            }
        }
    }

    /** Side A (initiator) and side B with their MTUs and path counts; B listens if {@code listen}. */
    static Link pair(int mtuA, int pathsA, int mtuB, int pathsB, boolean listen) {
        Link link = new Link(new Side(A, mtuA, pathsA), new Side(B, mtuB, pathsB));
        if (listen) {
            link.b.cm.listen();
        }
        return link;
    }

    private static int opcode(Link.Dgram d) {
        return d.bytes()[1] & 0xFF;
    }

    @Test
    void connectThenCloseFromTheInitiatorAndEverythingIsForgotten() {
        Link link = pair(1024, 2, 1024, 2, true);
        Side a = link.a;
        Side b = link.b;
        QueuePair qa = a.freshQp();
        a.cm.connect(0, qa, 42, 7, B, Engine.NO_DEADLINE);
        link.run(1_000_000);
        assertEquals(List.of(qa), a.connected);
        assertEquals(1, b.accepted.size());
        assertEquals(QpState.RTS, qa.state());
        assertEquals(QpState.RTS, b.accepted.get(0).state());
        assertTrue(a.cm.disconnect(link.now, qa));
        link.run(1_000_000);
        assertEquals(List.of("ours answered"), a.disconnects);
        assertEquals(List.of("peer answered"), b.disconnects);
        assertEquals(QpState.ERROR, b.accepted.get(0).state());
        assertEquals(0, a.cm.connectionCount());
        assertEquals(1, b.cm.connectionCount(), "TIME_WAIT remembers the connection");
        link.run(SETTINGS.timeWaitNs() + 1_000_000);
        assertEquals(0, b.cm.connectionCount(), "forgotten after TIME_WAIT");
        assertEquals(1, a.cm.counter(CmCounter.CM_DISCONNECTS));
        assertEquals(1, b.cm.counter(CmCounter.CM_DISCONNECTS));
    }

    @Test
    void lostRepRtuAndDreqAreRecovered() {
        Link link = pair(1024, 1, 1024, 1, true);
        Side a = link.a;
        Side b = link.b;
        int[] seen = new int[256];
        link.drop = d -> seen[opcode(d)]++ == 0; // the first of each kind is lost: REQ, REP, RTU, DREQ
        QueuePair qa = a.freshQp();
        a.cm.connect(0, qa, 43, 7, B, Engine.NO_DEADLINE);
        link.run(20_000_000);
        assertEquals(List.of(qa), a.connected);
        // CM-8: the lost RTU is recovered by the responder's REP retries, each answered with an RTU (CM-7), also when
        // the initiator sends nothing on the QP (an application that waits for the responder to speak first)
        assertEquals(QpState.RTS, b.cm.connectionCount() == 1 ? stateOfOnly(b) : null, "RTU lost: REP sent again");
        assertEquals(1, b.accepted.size());
        assertTrue(b.cm.disconnect(link.now, onlyQp(b)));
        link.run(50_000_000);
        assertEquals(List.of("ours answered"), b.disconnects);
        assertEquals(List.of("peer answered"), a.disconnects);
        assertTrue(a.cm.counter(CmCounter.CM_RETRANSMITS) >= 1 && b.cm.counter(CmCounter.CM_RETRANSMITS) >= 1);
    }

    private static QueuePair onlyQp(Side s) {
        QueuePair q = null;
        for (QueuePair p : s.engine.queuePairs()) {
            q = p;
        }
        assertNotNull(q);
        return q;
    }

    private static QpState stateOfOnly(Side s) {
        return onlyQp(s).state();
    }

    @Test
    void anUnansweredCloseGivesUpAfterItsRetries() {
        Link link = pair(1024, 1, 1024, 1, true);
        Side a = link.a;
        Side b = link.b;
        QueuePair qa = a.freshQp();
        a.cm.connect(0, qa, 44, 7, B, Engine.NO_DEADLINE);
        link.run(1_000_000);
        link.drop = d -> true; // the peer is gone
        a.cm.disconnect(link.now, qa);
        link.run(1_000_000_000L);
        assertEquals(List.of("ours unanswered"), a.disconnects);
        assertEquals(SETTINGS.maxDreqRetries(), a.cm.counter(CmCounter.CM_RETRANSMITS));
        assertEquals(0, a.cm.connectionCount());
    }

    @Test
    void aListenerLowersTheRequestAndAnInitiatorThatCannotRunItRejectsClearly() {
        Link link = pair(4096, 4, 1024, 2, true);
        Side a = link.a;
        Side b = link.b;
        QueuePair qa = a.freshQp();
        a.cm.connect(0, qa, 45, 7, B, Engine.NO_DEADLINE);
        link.run(1_000_000);
        assertEquals(1, a.failures.size());
        assertTrue(a.failures.get(0).contains("lowered the connection to MTU 1024, 2 paths"), a.failures.get(0));
        assertEquals(QpState.ERROR, qa.state());
        assertEquals(QpState.ERROR, stateOfOnly(b), "the listener's QP is released by the REJ");
        assertEquals(0, b.cm.connectionCount());
        assertTrue(b.accepted.isEmpty());
    }

    @Test
    void aSmallerRequestIsRejectedAndTheReasonReported() {
        Link link = pair(1024, 2, 4096, 2, true);
        Side a = link.a;
        Side b = link.b;
        a.cm.connect(0, a.freshQp(), 46, 7, B, Engine.NO_DEADLINE);
        link.run(1_000_000);
        assertEquals(1, a.failures.size());
        assertTrue(a.failures.get(0).contains("INVALID_PARAMS"), a.failures.get(0));
        assertEquals(1, b.cm.counter(CmCounter.CM_REJECTS_SENT));
        link.run(SETTINGS.timeWaitNs() + 1_000_000);
        assertEquals(0, b.cm.connectionCount(), "the remembered REJ is forgotten after TIME_WAIT");
    }

    @Test
    void aDeadlineEndsAnUnansweredAttempt() {
        Link link = pair(1024, 1, 1024, 1, false);
        Side a = link.a;
        Side b = link.b;
        link.drop = d -> true;
        QueuePair qa = a.freshQp();
        a.cm.connect(0, qa, 47, 7, B, 3_000_000);
        link.run(10_000_000);
        assertEquals(1, a.failures.size());
        assertTrue(a.failures.get(0).startsWith("no answer to 2 CM_REQs"), a.failures.get(0));
        assertEquals(QpState.ERROR, qa.state());
    }

    @Test
    void manyConnectionsOpenedAndClosedLeaveNothingBehind() {
        Link link = pair(1024, 1, 1024, 1, true);
        Side a = link.a;
        Side b = link.b;
        SplittableRandom rnd = new SplittableRandom(3);
        link.drop = d -> rnd.nextDouble() < 0.2;
        for (int i = 0; i < 200; i++) {
            QueuePair qa = a.freshQp();
            a.cm.connect(link.now, qa, 1000 + i, i, B, Engine.NO_DEADLINE);
            link.run(100_000_000);
            assertEquals(QpState.RTS, qa.state(), "connection " + i);
            (i % 2 == 0 ? a.cm : b.cm).disconnect(link.now, i % 2 == 0 ? qa : b.engine.queuePair(lastRemote(a, qa)));
            link.run(100_000_000);
        }
        link.drop = d -> false;
        link.run(SETTINGS.timeWaitNs() + 10_000_000);
        assertEquals(0, a.cm.connectionCount());
        assertEquals(0, b.cm.connectionCount());
        assertEquals(200, a.cm.counter(CmCounter.CM_ESTABLISHED));
        assertFalse(a.disconnects.isEmpty());
    }

    /**
     * CM-13, REL-16: both sides of this version announce CAP_MISSING_NAK and their QPs send NAK MISSING; a peer that
     * does not announce it (a version before REL-16, which would fail the connection on code 7) gets none, whichever
     * side it is on.
     */
    @Test
    void missingNaksGoOnlyToAPeerThatAnnouncedIt() {
        Link link = pair(1024, 2, 1024, 2, true);
        List<CmMessage> seen = new ArrayList<>();
        CmCodec codec = new CmCodec(new long[CmCounter.values().length]);
        link.drop = d -> {
            seen.add(codec.parse(MemorySegment.ofArray(d.bytes()), false));
            return false;
        };
        QueuePair qa = link.a.freshQp();
        link.a.cm.connect(0, qa, 51, 7, B, Engine.NO_DEADLINE);
        link.run(1_000_000);
        assertEquals(QpState.RTS, qa.state());
        assertTrue((seen.get(0).capabilities() & CmMessage.CAP_MISSING_NAK) != 0, "the REQ announces it");
        assertTrue((seen.get(1).capabilities() & CmMessage.CAP_MISSING_NAK) != 0, "the REP answers it");
        assertTrue(qa.sendsMissingNaks());
        assertTrue(link.b.accepted.get(0).sendsMissingNaks());

        // an older initiator: its REQ has no CAP_MISSING_NAK; the listener's QP sends it none, its REP says so
        seen.clear();
        CmMessage old = new CmMessage(Opcode.CM_REQ, 52, 900, 0, 0x100, 1024, 2, 0, 4793, 0,
                List.of(new byte[] {10, 0, 0, 1}));
        MemorySegment buf = MemorySegment.ofArray(new byte[CmCodec.MAX_LENGTH]);
        int len = codec.encode(old, link.now, buf, null, 0);
        link.b.cm.handle(link.now, buf, len, A);
        QueuePair forOld = null;
        for (QueuePair q : link.b.engine.queuePairs()) {
            forOld = q.remoteQpn() == 900 ? q : forOld;
        }
        assertNotNull(forOld, "the listener made a QP for the older initiator (RTR, awaiting its RTU)");
        assertFalse(forOld.sendsMissingNaks(), "no NAK MISSING to a peer that did not announce it");
        assertEquals(0, seen.get(0).capabilities() & CmMessage.CAP_MISSING_NAK, "the REP does not announce it either");

        // an older listener: its REP has no CAP_MISSING_NAK; the initiator's QP sends it none
        link.drop = d -> {
            CmMessage m = codec.parse(MemorySegment.ofArray(d.bytes()), false);
            if (m == null || m.opcode() != Opcode.CM_REP) {
                return false;
            }
            CmMessage older = new CmMessage(m.opcode(), m.connectionId(), m.senderQpn(), m.peerQpn(), m.initialPsn(),
                    m.mtu(), m.paths(), m.capabilities() & ~CmMessage.CAP_MISSING_NAK, m.udpPort(), m.reason(),
                    m.planes());
            MemorySegment out = MemorySegment.ofArray(new byte[CmCodec.MAX_LENGTH]);
            int n = codec.encode(older, link.now, out, null, 0);
            link.inFlight.add(new Link.Dgram(d.from(), d.to(), out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)));
            return true;
        };
        QueuePair qa2 = link.a.freshQp();
        link.a.cm.connect(0, qa2, 53, 7, B, Engine.NO_DEADLINE);
        link.run(1_000_000);
        assertEquals(QpState.RTS, qa2.state());
        assertFalse(qa2.sendsMissingNaks());
        assertTrue(link.b.accepted.get(1).sendsMissingNaks(), "the listener's QP: its peer announced it");
        qa2.modifyToReset();
        assertTrue(qa2.sendsMissingNaks(), "a reset QP's next peer announces its own");
    }

    private static int lastRemote(Side a, QueuePair qa) {
        return qa.remoteQpn();
    }
}
