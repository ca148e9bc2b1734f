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
 * AUTH-17 .. AUTH-19 under forgery: as {@link AuthForgeryFuzzTest}, but the receiver has followed its peer's key
 * updates ({@code authKeyUpdatePackets = 4}) to generation 2 or more first, so it holds a previous, a current and a
 * next key and per-path bounds, and the valid datagram the inputs mutate is sealed under a later generation. A
 * mutation may flip {@code KEY_PHASE}, move the sequence number below or above the bounds, or change any other
 * byte: every input is exactly one drop, nothing is placed or answered, and the receiver's keys do not move.
 */
class KeyUpdateForgeryFuzzTest {
    private static final byte[] PSK = new byte[32];
    private static final Receiver RX = new Receiver();

    /** The receiving engine after its peer's key updates, and one valid sealed WRITE it never received. */
    private static final class Receiver {
        final Engine engine;
        final QueuePair qp;
        final MemoryRegion region;
        final byte[] valid;
        final MemorySegment out;
        final Transmit tx = new Transmit();
        final long rxData;
        final long generation;
        /** The time of the end of the set-up, and of every input (nothing of the set-up is still due then). */
        final long now;

        Receiver() {
            EngineConfig cfg = new EngineConfig().paths(2).planes(1).mtu(256).authKeyUpdatePackets(4);
            Engine a = new Engine(cfg, new SplittableRandom(1));
            engine = new Engine(cfg, new SplittableRandom(2));
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = engine.allocPd();
            CompletionQueue ca = a.createCq(64);
            CompletionQueue cb = engine.createCq(64);
            QueuePair qa = a.createQp(pa, ca, ca);
            qp = engine.createQp(pb, cb, cb);
            qa.enableAuth(AuthKeys.derive(PSK, 9, qa.qpn(), qp.qpn(), 100, 200, true, false));
            qp.enableAuth(AuthKeys.derive(PSK, 9, qa.qpn(), qp.qpn(), 100, 200, false, false));
            qa.connect(1, qp.qpn(), 100, 200);
            qp.connect(0, qa.qpn(), 200, 100);
            MemoryRegion src = a.registerMemory(pa, MemorySegment.ofArray(new byte[1024]), Access.ALL);
            src.segment().fill((byte) 0x77);
            region = engine.registerMemory(pb, MemorySegment.ofArray(new byte[4096]), Access.ALL);
            out = MemorySegment.ofArray(new byte[a.maxDatagramLength()]);
            long t = 1_000;
            // set-up writes go to region[2048..]; the captured one to region[0..]: "nothing placed" checks byte 0
            while (qp.rxKeyGeneration() < 2 || qa.outstandingSends() > 0) {
                if (qa.outstandingSends() == 0 && qp.rxKeyGeneration() < 2) {
                    assertEquals(QueuePair.OK, qa.postWrite(1, src, 0, 1024, region.address() + 2048, region.rkey(), 0));
                }
                for (int n; (n = a.pollTransmit(t, out, tx)) > 0; ) {
                    engine.handleDatagram(t, out, n, Ecn.ECT0);
                }
                for (int n; (n = engine.pollTransmit(t, out, tx)) > 0; ) {
                    a.handleDatagram(t, out, n, Ecn.ECT0);
                }
                t += 1_000;
                assertTrue(t < 1_000_000_000L, "the set-up connection stalled");
            }
            qa.postWrite(2, src, 0, 256, region.address(), region.rkey(), 0);
            int n = a.pollTransmit(t, out, tx);
            assertEquals(Opcode.WRITE, tx.opcode());
            valid = out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
            while (engine.pollTransmit(t, out, tx) > 0) {
                // drain: nothing of the set-up is left to send at t
            }
            now = t;
            rxData = engine.counters().get(Counter.RX_DATA_PACKETS);
            generation = qp.rxKeyGeneration();
        }
    }

    @FuzzTest
    void forgedPacketsAfterKeyUpdatesAreNeverAccepted(FuzzedDataProvider fdp) {
        byte[] d = Datagrams.mutated(RX.valid, fdp);
        if (d == null) {
            return; // the original itself: not a forgery
        }
        long drops = RX.engine.counters().drops();
        RX.engine.handleDatagram(RX.now, MemorySegment.ofArray(d), d.length, Ecn.ECT0);
        assertEquals(drops + 1, RX.engine.counters().drops(), "one drop per forged datagram");
        assertEquals(RX.rxData, RX.engine.counters().get(Counter.RX_DATA_PACKETS), "a forged packet was accepted");
        assertEquals(RX.generation, RX.qp.rxKeyGeneration(), "a forgery moved the receiver's keys");
        assertEquals(0, RX.engine.internalErrors());
        assertEquals(0, RX.engine.pollTransmit(RX.now, RX.out, RX.tx), "nothing is sent in answer to a forgery");
        assertTrue(RX.region.segment().toArray(ValueLayout.JAVA_BYTE)[0] == 0, "nothing placed");
    }
}
