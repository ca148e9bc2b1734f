package io.metaroce.core;

import io.metaroce.core.wire.Opcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * VERBS-19 with {@code txQuantumBytes}: QPs with work are served round robin, one datagram per turn by default, and
 * up to the quantum's bytes per turn when one is set (a deficit round robin).
 */
class TxQuantumTest {
    private static final int MTU = 1024;
    private static final int SEGMENTS = 4;

    /** The peers (one per QP: 2 and 3) of the data datagrams engine A sends for one 4-packet WRITE on each QP. */
    private static List<Integer> order(int quantum) {
        EngineConfig cfg = new EngineConfig().mtu(MTU).paths(2).planes(1).pacingGain(0).txQuantumBytes(quantum);
        Engine a = new Engine(cfg, new SplittableRandom(1));
        ProtectionDomain pd = a.allocPd();
        CompletionQueue cq = a.createCq(16);
        MemoryRegion src = a.registerMemory(pd, Arena.ofAuto().allocate(SEGMENTS * MTU, 64), Access.ALL);
        for (int peer = 2; peer <= 3; peer++) {
            QueuePair qp = a.createQp(pd, cq, cq);
            qp.connect(peer, 0x100 + peer, 1000, 5000);
            assertEquals(QueuePair.OK, qp.postWrite(peer, src, 0, SEGMENTS * MTU, 0x1000, 7, QueuePair.SIGNALED));
        }
        MemorySegment out = Arena.ofAuto().allocate(a.maxDatagramLength() + 64L, 64);
        Transmit tx = new Transmit();
        List<Integer> peers = new ArrayList<>();
        while (a.pollTransmit(1_000_000, out, tx) > 0) {
            if (tx.opcode() == Opcode.WRITE) {
                peers.add(tx.peer());
            }
        }
        return peers;
    }

    @Test
    void withoutAQuantumEachTurnIsOneDatagram() {
        assertEquals(List.of(2, 3, 2, 3, 2, 3, 2, 3), order(0));
    }

    @Test
    void aQuantumOfAMessageLetsEachQpSendItsMessageInOneTurn() {
        assertEquals(List.of(2, 2, 2, 2, 3, 3, 3, 3), order(SEGMENTS * MTU));
    }

    @Test
    void aTurnEndsOnceItsDatagramsReachTheQuantum() {
        // two datagrams of MTU payload plus headers exceed 2 MTU: the turn ends after the second
        assertEquals(List.of(2, 2, 3, 3, 2, 2, 3, 3), order(2 * MTU));
    }
}
