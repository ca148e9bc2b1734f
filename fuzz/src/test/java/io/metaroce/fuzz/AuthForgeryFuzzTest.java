package io.metaroce.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-6, AUTH-7: forged packets on an authenticated connection. A sender engine seals one WRITE (never delivered,
 * so its sequence number stays fresh); each input changes bytes of it (xor at fuzzer-chosen offsets, a new length)
 * and re-seals the CRC, as a mutation fuzzer that knows the CRC would. The receiver must accept nothing that is
 * not the original: every input is exactly one drop, nothing is placed, and nothing is sent in answer.
 */
class AuthForgeryFuzzTest {
    private static final byte[] PSK = new byte[32];
    private static final Receiver RX = new Receiver();

    /** The receiving engine (reused: a forgery changes no state) and the one valid sealed datagram. */
    private static final class Receiver {
        final Engine engine;
        final MemoryRegion region;
        final byte[] valid;
        final MemorySegment out;
        final Transmit tx = new Transmit();

        Receiver() {
            EngineConfig cfg = new EngineConfig().paths(2).planes(1).mtu(256);
            Engine a = new Engine(cfg, new SplittableRandom(1));
            engine = new Engine(cfg, new SplittableRandom(2));
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = engine.allocPd();
            CompletionQueue ca = a.createCq(16);
            CompletionQueue cb = engine.createCq(16);
            QueuePair qa = a.createQp(pa, ca, ca);
            QueuePair qb = engine.createQp(pb, cb, cb);
            qa.enableAuth(AuthKeys.derive(PSK, 9, qa.qpn(), qb.qpn(), 100, 200, true, false));
            qb.enableAuth(AuthKeys.derive(PSK, 9, qa.qpn(), qb.qpn(), 100, 200, false, false));
            qa.connect(1, qb.qpn(), 100, 200);
            qb.connect(0, qa.qpn(), 200, 100);
            MemoryRegion src = a.registerMemory(pa, MemorySegment.ofArray(new byte[256]), Access.ALL);
            src.segment().fill((byte) 0x77);
            region = engine.registerMemory(pb, MemorySegment.ofArray(new byte[4096]), Access.ALL);
            qa.postWrite(1, src, 0, 256, region.address(), region.rkey(), QueuePair.SIGNALED);
            out = MemorySegment.ofArray(new byte[a.maxDatagramLength()]);
            int n = a.pollTransmit(1_000, out, tx);
            assertEquals(Opcode.WRITE, tx.opcode());
            valid = out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @FuzzTest
    void forgedPacketsAreNeverAccepted(FuzzedDataProvider fdp) {
        byte[] d = Datagrams.mutated(RX.valid, fdp);
        if (d == null) {
            return; // the original itself: not a forgery
        }
        long drops = RX.engine.counters().drops();
        RX.engine.handleDatagram(2_000, MemorySegment.ofArray(d), d.length, Ecn.ECT0);
        assertEquals(drops + 1, RX.engine.counters().drops(), "one drop per forged datagram");
        assertEquals(0, RX.engine.counters().get(Counter.RX_DATA_PACKETS), "a forged packet was accepted");
        assertEquals(0, RX.engine.internalErrors());
        assertEquals(0, RX.engine.pollTransmit(2_000, RX.out, RX.tx), "nothing is sent in answer to a forgery");
        assertTrue(RX.region.segment().toArray(ValueLayout.JAVA_BYTE)[0] == 0, "nothing placed");
    }
}
