package io.metaroce.testkit;

import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.auth.PacketAuth;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AUTH-*: two engines whose QPs authenticate every packet, over the lossy test network: the transfer is
 * unaffected, and forged, altered, replayed, tag-truncated, unauthenticated and wrong-key packets injected at the
 * responder are each dropped and counted, never delivered.
 */
class AuthTest {
    private static final byte[] PSK = "a pre-shared key of 32 bytes!!!!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final long CID = 0x1122334455667788L;

    private final EngineConfig cfg = new EngineConfig().paths(4).planes(2).mtu(1024);
    private final Network net = Network.datacenter(31, 2, cfg);
    private final Endpoint a = new Endpoint(net, 0, 1L << 20);
    private final Endpoint b = new Endpoint(net, 1, 1L << 20);
    private final List<byte[]> toB = new ArrayList<>();

    private void connect(boolean encrypt) {
        a.qp.enableAuth(AuthKeys.derive(PSK, CID, a.qp.qpn(), b.qp.qpn(), 1000, 5001, true, encrypt));
        b.qp.enableAuth(AuthKeys.derive(PSK, CID, a.qp.qpn(), b.qp.qpn(), 1000, 5001, false, encrypt));
        Endpoint.connect(net, a, b);
        net.setObserver((now, d) -> {
            if (d.dst() == 1) {
                toB.add(d.bytes());
            }
        });
    }

    private void transfer(int bytes) {
        a.fillRandom(5);
        assertEquals(QueuePair.OK, a.qp.postWrite(1, a.src, 0, bytes, b.dst.address(), b.dst.rkey(),
                QueuePair.SIGNALED));
        assertTrue(net.runUntil(() -> a.sendDone() == 1, 2_000_000_000L), () -> a.engine.counters().toString());
        assertEquals(List.of(WcStatus.SUCCESS), a.sendStatuses);
        assertEquals(-1L, a.src.segment().asSlice(0, bytes).mismatch(b.dst.segment().asSlice(0, bytes)));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAuthenticatedConnectionMovesDataUnderLossAndReordering(boolean encrypt) {
        connect(encrypt);
        net.setLoss(0.02);
        net.setReorder(0.05, 20_000);
        net.setDuplicate(0.02);
        transfer(1 << 20);
        for (Engine e : List.of(a.engine, b.engine)) {
            assertEquals(0, e.counters().get(Counter.DROP_AUTH), e.counters().toString());
            assertEquals(0, e.internalErrors());
        }
        assertTrue(b.engine.counters().get(Counter.DROP_REPLAY) > 0, "the network duplicated packets: "
                + b.engine.counters());
        byte[] src = a.src.segment().asSlice(0, 1 << 20).toArray(ValueLayout.JAVA_BYTE);
        int data = 0;
        for (byte[] d : toB) {
            MemorySegment s = MemorySegment.ofArray(d);
            BaseHeader h = new BaseHeader().wrap(s, 0);
            int want = BaseHeader.FLAG_AUTH | (encrypt ? BaseHeader.FLAG_ENCRYPTED : 0);
            assertEquals(want, h.flags() & (BaseHeader.FLAG_AUTH | BaseHeader.FLAG_ENCRYPTED), "AUTH-2 flags");
            assertEquals(Packet.datagramLength(h.opcode(), h.payloadLength()) + PacketAuth.TRAILER_LENGTH, d.length);
            if (h.opcode() == Opcode.WRITE) {
                data++;
                int off = new DataHeader().wrap(s, BaseHeader.LENGTH).offset();
                byte[] wire = Arrays.copyOfRange(d, 64, 64 + h.payloadLength());
                byte[] plain = Arrays.copyOfRange(src, off, off + h.payloadLength());
                assertEquals(!encrypt, Arrays.equals(wire, plain), "AUTH-5: payload on the wire");
            }
        }
        assertTrue(data >= 1024, "data packets seen: " + data);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void forgedAlteredReplayedAndUnauthenticatedPacketsAreCountedDropsNeverDelivered(boolean encrypt) {
        connect(encrypt);
        List<byte[]> swallowed = new ArrayList<>();
        net.setDropRule(d -> { // keep the first data packet from ever arriving: its sequence number stays fresh
            if (d.dst() == 1 && d.opcode() == Opcode.WRITE && swallowed.isEmpty()) {
                swallowed.add(d.bytes());
                return true;
            }
            return false;
        });
        transfer(64 * 1024);
        byte[] accepted = toB.stream().filter(d -> d[1] == Opcode.WRITE).findFirst().orElseThrow();
        byte[] valid = swallowed.getFirst();
        byte[] before = b.dst.segment().toArray(ValueLayout.JAVA_BYTE);
        // a replay of a packet the responder accepted (AUTH-7), also with any change: the number is checked first
        inject(accepted, Counter.DROP_REPLAY);
        byte[] changed = accepted.clone();
        changed[70] ^= 0x40;
        inject(reseal(changed), Counter.DROP_REPLAY);
        // one bit changed anywhere before the trailer, CRC re-sealed: header, extension, payload, tag, sequence
        for (int at : new int[] {1, 2, 5, 9, 13, 17, 25, 44, 50, 64, 100, valid.length - 28, valid.length - 20,
                valid.length - 12}) {
            byte[] d = valid.clone();
            d[at] ^= 0x01;
            inject(reseal(d), expectFor(at));
        }
        // no trailer at all (the flag kept, or cleared): not authentic on this connection (AUTH-6)
        byte[] noTrailer = Arrays.copyOf(valid, valid.length - PacketAuth.TRAILER_LENGTH);
        inject(reseal(noTrailer), Counter.DROP_AUTH);
        MemorySegment.ofArray(noTrailer).set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                BaseHeader.FLAGS, (short) 0x000b);
        inject(reseal(noTrailer), Counter.DROP_AUTH);
        // the tag cut short: the length no longer adds up (WIRE-8 step 6)
        byte[] cut = new byte[valid.length - 8];
        System.arraycopy(valid, 0, cut, 0, cut.length - 4 - 16);
        System.arraycopy(valid, valid.length - 12, cut, cut.length - 12, 8);
        inject(reseal(cut), Counter.DROP_BAD_LENGTH);
        // a packet sealed with another key (a wrong pre-shared key) with a fresh sequence number
        byte[] wrongKey = sealWith(AuthKeys.derive("another pre-shared key, 32 bytes".getBytes(
                java.nio.charset.StandardCharsets.US_ASCII), CID, a.qp.qpn(), b.qp.qpn(), 1000, 5001, true, encrypt),
                noTrailer);
        inject(wrongKey, Counter.DROP_AUTH);
        // the untouched packet is still authentic and fresh: accepted once (a duplicate of placed data), then a replay
        long dup = b.engine.counters().get(Counter.DUPLICATE_DATA) + b.engine.counters().get(Counter.DROP_DUPLICATE);
        net.inject(1, valid, Ecn.ECT0);
        assertEquals(dup + 1, b.engine.counters().get(Counter.DUPLICATE_DATA)
                + b.engine.counters().get(Counter.DROP_DUPLICATE), b.engine.counters().toString());
        inject(valid, Counter.DROP_REPLAY);
        assertEquals(-1L, MemorySegment.ofArray(before).mismatch(b.dst.segment()), "nothing forged was placed");
        // the connection goes on
        a.sendStatuses.clear();
        a.sendWrIds.clear();
        transfer(64 * 1024);
    }

    /** The counter a one-bit change at {@code at} must land in (the opcode and QPN bytes fail earlier checks). */
    private static Counter expectFor(int at) {
        return at == 1 ? Counter.DROP_BAD_OPCODE : at == 5 ? Counter.DROP_UNKNOWN_QP
                // the packet is its path's first (number 0); on the neighbouring path number 0 is already taken
                : at == 9 ? Counter.DROP_REPLAY : Counter.DROP_AUTH;
    }

    private byte[] sealWith(AuthKeys keys, byte[] unsealed) {
        PacketAuth other = new PacketAuth(keys, cfg.paths);
        byte[] d = null;
        for (int i = 0; i < 300; i++) { // a sequence number past anything the real sender used: not a replay
            d = Arrays.copyOf(unsealed, unsealed.length + PacketAuth.TRAILER_LENGTH);
            MemorySegment s = MemorySegment.ofArray(d);
            new BaseHeader().wrap(s, 0).flags(0x000b);
            int len = other.seal(s, unsealed.length - Packet.CRC_LENGTH, new BaseHeader().wrap(s, 0).pathId());
            new Packet().seal(s, len);
        }
        return d;
    }

    private void inject(byte[] d, Counter expected) {
        long before = b.engine.counters().get(expected);
        long drops = b.engine.counters().drops();
        int done = b.recvDone();
        net.inject(1, d, Ecn.ECT0);
        assertEquals(before + 1, b.engine.counters().get(expected), () -> expected + " " + b.engine.counters());
        assertEquals(drops + 1, b.engine.counters().drops(), "exactly one drop counter (CTR-2)");
        assertEquals(done, b.recvDone());
        assertEquals(0, b.engine.internalErrors());
        assertFalse(b.qp.state() == QpState.ERROR);
    }

    private static byte[] reseal(byte[] d) {
        byte[] c = d.clone();
        new Packet().seal(MemorySegment.ofArray(c), c.length - Packet.CRC_LENGTH);
        return c;
    }
}
