package io.metaroce.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.ParityHeader;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The engine's datagram input through its public API only ({@code handleDatagram}, {@code handleTrimmed},
 * {@code handleTimeout}, {@code pollTransmit}, posts): a fresh engine per input with one connected QP, then up to 48 steps chosen by the
 * fuzzer (a datagram, usually re-sealed and often aimed at the QP, its regions and its PSN window; a posted WRITE
 * or READ; time passing). Two registered regions sit between three canary areas in one array: after every step no
 * canary byte may change (BAD-5), and the engine may catch no internal error (BAD-4).
 */
class EngineInputFuzzTest {
    private static final int REGION = 4096;
    private static final byte CANARY = 0x5A;
    private static final int PEER_QPN = 0x00000b02;
    private static final int LOCAL_PSN = 0x1000;
    private static final int REMOTE_PSN = 0x2000;

    @FuzzTest
    void datagramsTimersAndPosts(FuzzedDataProvider data) {
        EngineConfig cfg = new EngineConfig().mtu(1024).paths(4).planes(2);
        Engine engine = new Engine(cfg, new SplittableRandom(7));
        ProtectionDomain pd = engine.allocPd();
        CompletionQueue cq = engine.createCq(4096);
        QueuePair qp = engine.createQp(pd, cq, cq);
        qp.connect(0, PEER_QPN, LOCAL_PSN, REMOTE_PSN);
        // [canary][region A][canary][region B][canary]
        byte[] memory = new byte[5 * REGION];
        java.util.Arrays.fill(memory, CANARY);
        MemorySegment all = MemorySegment.ofArray(memory);
        MemoryRegion a = engine.registerMemory(pd, all.asSlice(REGION, REGION), Access.ALL);
        MemoryRegion b = engine.registerMemory(pd, all.asSlice(3 * REGION, REGION), Access.ALL);
        for (int i = 0; i < 4; i++) {
            qp.postRecv(100 + i, b, (long) i * 1024, 1024);
        }
        MemorySegment out = MemorySegment.ofArray(new byte[engine.maxDatagramLength()]);
        Transmit tx = new Transmit();
        WorkCompletion wc = new WorkCompletion();
        long now = 1_000_000;
        for (int step = 0; step < 48 && data.remainingBytes() > 0; step++) {
            switch (data.consumeInt(0, 5)) {
                case 0, 1, 2 -> {
                    byte[] d = datagram(data, qp, a, b, cfg);
                    if (data.consumeInt(0, 7) == 0) { // REL-17: what is left of it after a switch trimmed it
                        engine.handleTrimmed(now, MemorySegment.ofArray(d), data.consumeInt(0, d.length));
                    } else {
                        engine.handleDatagram(now, MemorySegment.ofArray(d), d.length, data.consumeInt(0, 3));
                    }
                }
                case 3 -> qp.postWrite(step, a, data.consumeInt(0, REGION), data.consumeInt(0, 3000),
                        0x7f0000000000L + data.consumeInt(0, 1 << 20), data.consumeInt(), QueuePair.SIGNALED);
                case 4 -> qp.postRead(step, b, data.consumeInt(0, REGION), data.consumeInt(0, 3000),
                        0x7f0000000000L, data.consumeInt(), QueuePair.SIGNALED);
                default -> {
                    now += data.consumeLong(0, 50_000_000);
                    engine.handleTimeout(now);
                }
            }
            for (int guard = 0; guard < 10_000 && engine.pollTransmit(now, out, tx) > 0; guard++) {
                Sink.consume(tx.plane());
            }
            while (cq.poll(wc)) {
                Sink.consume(wc.wrId());
            }
            canariesIntact(memory);
        }
        if (engine.internalErrors() != 0) {
            fail("the engine caught an internal error: " + engine.lastInternalError(), engine.lastInternalError());
        }
    }

    /** Fuzzer bytes as a datagram: mostly valid framing, often with this QP's QPNs, paths, PSNs and keys. */
    private static byte[] datagram(FuzzedDataProvider data, QueuePair qp, MemoryRegion a, MemoryRegion b,
                                   EngineConfig cfg) {
        boolean aim = data.consumeBoolean();
        boolean seal = data.consumeInt(0, 7) != 0;
        byte[] raw = data.consumeBytes(data.consumeInt(0, 1200));
        // one in eight plausible datagrams is a PARITY (REL-18), one a PARITY_Q (REL-20) and one a PARITY_R (REL-21),
        // whose rebuilds write memory from what others placed
        int kind = seal ? data.consumeInt(0, 7) : -1;
        byte[] d = !seal ? raw : kind == 0 ? Datagrams.plausible(raw, 0, Opcode.PARITY)
                : kind == 1 ? Datagrams.plausible(raw, 0, Opcode.PARITY_Q)
                : kind == 2 ? Datagrams.plausible(raw, 0, Opcode.PARITY_R) : Datagrams.plausible(raw, 0);
        if (!aim || d.length < Packet.MIN_LENGTH) {
            return d;
        }
        MemorySegment seg = MemorySegment.ofArray(d);
        BaseHeader h = new BaseHeader().wrap(seg, 0);
        h.destQpn(qp.qpn()).srcQpn(PEER_QPN).pathId(data.consumeInt(0, cfg.paths));
        int op = h.opcode();
        if (Opcode.isData(op) || op == Opcode.READ_REQ) {
            h.psn(REMOTE_PSN + data.consumeInt(-8, 300)).psnFloor(REMOTE_PSN - 1 + data.consumeInt(0, 4));
            MemoryRegion target = data.consumeBoolean() ? a : b;
            long va = target.address() + data.consumeLong(-64, REGION + 64);
            int ext = BaseHeader.LENGTH;
            if (d.length >= ext + 32 + Packet.CRC_LENGTH) {
                if (op == Opcode.READ_REQ) {
                    new ReadRequestHeader().wrap(seg, ext).rkey(target.rkey()).remoteVa(va);
                } else {
                    new DataHeader().wrap(seg, ext).rkey(target.rkey()).va(va).msn(data.consumeInt(0, 8))
                            .rsn(data.consumeInt(0, 5));
                }
            }
        } else if (Opcode.isParity(op) && d.length >= BaseHeader.LENGTH + ParityHeader.LENGTH + Packet.CRC_LENGTH) {
            h.psn(0);
            MemoryRegion target = data.consumeBoolean() ? a : b;
            int mtu = cfg.mtu;
            new ParityHeader().wrap(seg, BaseHeader.LENGTH).rkey(target.rkey())
                    .va(target.address() + data.consumeLong(-64, REGION + 64)).msn(data.consumeInt(0, 8))
                    .messageLength(data.consumeInt(-1, 4 * mtu)).offset(mtu * data.consumeInt(0, 3) + data.consumeInt(0, 1))
                    .op(data.consumeInt(0, 7)).count(data.consumeInt(0, 6)).rsn(data.consumeInt(0, 5));
            if (op == Opcode.PARITY_R) { // REL-21: a repair index in 2..15 mostly, sometimes one outside (malformed)
                new ParityHeader().wrap(seg, BaseHeader.LENGTH).repair(data.consumeInt(0, 7) != 0
                        ? data.consumeInt(2, ParityHeader.MAX_REPAIR) : data.consumeInt(0, 255));
            }
        } else if (op == Opcode.ACK || op == Opcode.NAK) {
            h.psn(0);
        }
        if (seal) {
            new Packet().seal(seg, d.length - Packet.CRC_LENGTH);
        }
        return d;
    }

    private static void canariesIntact(byte[] memory) {
        for (int area : new int[] {0, 2, 4}) {
            for (int i = area * REGION; i < (area + 1) * REGION; i++) {
                if (memory[i] != CANARY) {
                    assertEquals(CANARY, memory[i], "canary byte " + i + " (area " + area + ") overwritten");
                }
            }
        }
    }
}
