package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;

import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tail parity tests' common run (REL-18, REL-20, REL-21): one WRITE_IMM between two hosts of a small harness
 * network with some of its datagrams dropped, every byte verified; and the drop rules they use.
 */
final class OneTailMessage {
    /** When the receive completed, the sender's resends by then, and both ends. */
    record Sent(Endpoint a, Endpoint b, long recvDoneNs, long resentByThen) {
        long receiver(Counter c) {
            return b.engine.counters().get(c);
        }

        long sender(Counter c) {
            return a.engine.counters().get(c);
        }
    }

    private OneTailMessage() {
    }

    /** First transmission of segment {@code seg} of a message of {@code mtu}-byte segments (resends: RETRANSMIT). */
    static Predicate<Network.Datagram> firstCopyOf(int seg, int mtu) {
        return d -> Opcode.isData(d.opcode()) && (d.flags() & BaseHeader.FLAG_RETRANSMIT) == 0
                && offset(d) == seg * mtu;
    }

    /** The offset field of a data packet's (or a parity's) header. */
    static int offset(Network.Datagram d) {
        byte[] b = d.bytes();
        int at = BaseHeader.LENGTH + 8;
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    /**
     * Sends one WRITE_IMM of {@code bytes} (random, from {@code seed}) from host 0 to host 1 over buffers of
     * {@code bufferBytes} with {@code cfg}, dropping what {@code drop} matches; checks both completions succeed and the
     * bytes arrive intact.
     */
    static Sent send(EngineConfig cfg, Predicate<Network.Datagram> drop, int bytes, int bufferBytes, long seed) {
        Network net = Network.datacenter(3, 2, cfg);
        net.setDropRule(drop::test);
        Endpoint a = new Endpoint(net, 0, bufferBytes);
        Endpoint b = new Endpoint(net, 1, bufferBytes);
        Endpoint.connect(net, a, b);
        a.fillRandom(seed);
        assertEquals(QueuePair.OK, b.qp.postRecv(5, b.src, 0, 0));
        assertEquals(QueuePair.OK, a.qp.postWriteImm(1, a.src, 0, bytes, b.dst.address(), b.dst.rkey(), 42,
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> b.recvDone() == 1, 100_000_000L), () -> b.engine.counters().toString());
        long recvNs = net.nowNs();
        long resentByThen = a.engine.counters().get(Counter.RETRANSMITS);
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 1_000_000_000L), () -> a.engine.counters().toString());
        net.runFor(1_000_000L); // late copies and parities land
        assertEquals(WcStatus.SUCCESS, a.sendStatuses.getFirst());
        assertEquals(WcStatus.SUCCESS, b.recvStatuses.getFirst());
        assertEquals(-1L, a.src.segment().asSlice(0, bytes).mismatch(b.dst.segment().asSlice(0, bytes)),
                "the message arrived intact");
        assertEquals(0, a.engine.internalErrors() + b.engine.internalErrors());
        return new Sent(a, b, recvNs, resentByThen);
    }
}
