package io.metaroce.net;

import io.metaroce.core.WorkCompletion;
import io.metaroce.core.Counter;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Random and malformed datagrams at a device's port over a real socket, while a transfer runs on it. */
class BadInputSocketTest {
    @Test
    void garbageIsCountedAndDroppedWhileATransferCompletes() throws Exception {
        try (LoopbackTest.Pair p = new LoopbackTest.Pair(DeviceOptions.Transport.AUTO, 4, 0, 16 << 20);
             DatagramChannel attacker = DatagramChannel.open()) {
            LoopbackTest.fill(p.ma.segment(), 11);
            int chunk = 1 << 20;
            for (int i = 0; i < 16; i++) {
                assertEquals(QueuePair.OK, p.qa.postWrite(i, p.ma, (long) i * chunk, chunk,
                        p.mb.address() + (long) i * chunk, p.mb.rkey(), QueuePair.SIGNALED));
            }
            InetSocketAddress target = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), p.b.port());
            long dropsBefore = dropTotal(p.b.stats());
            SplittableRandom r = new SplittableRandom(5);
            int sent = 0;
            Packet packet = new Packet();
            for (int i = 0; i < 3000; i++) {
                byte[] d;
                switch (i % 3) {
                    case 0 -> {
                        d = new byte[r.nextInt(0, 1500)];
                        r.nextBytes(d);
                    }
                    case 1 -> { // a well-formed WRITE to the live QP with a forged rkey and a valid CRC
                        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.WRITE, 64)]);
                        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.WRITE).destQpn(p.qb.qpn())
                                .srcQpn(p.qa.qpn()).pathId(r.nextInt(4)).payloadLength(64).psn(r.nextInt());
                        new DataHeader().wrap(s, BaseHeader.LENGTH).messageLength(64).rkey(r.nextInt())
                                .va(r.nextLong());
                        packet.seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
                        d = s.toArray(ValueLayout.JAVA_BYTE);
                    }
                    default -> { // unknown QP, valid CRC
                        MemorySegment s = MemorySegment.ofArray(new byte[Packet.datagramLength(Opcode.ACK, 0)]);
                        new BaseHeader().wrap(s, 0).version(1).opcode(Opcode.ACK).destQpn(r.nextInt());
                        packet.seal(s, (int) s.byteSize() - Packet.CRC_LENGTH);
                        d = s.toArray(ValueLayout.JAVA_BYTE);
                    }
                }
                attacker.send(ByteBuffer.wrap(d), target);
                sent++;
                if (i % 100 == 0) {
                    Thread.sleep(1);
                }
            }
            for (int i = 0; i < 16; i++) {
                WorkCompletion c = p.next(p.qa.sendCq());
                assertEquals(WcStatus.SUCCESS, c.status(), c::toString);
                assertEquals(i, c.wrId());
            }
            assertEquals(-1L, p.ma.segment().mismatch(p.mb.segment()), "the transfer's data is intact");
            DeviceStats sb = p.b.stats();
            long dropped = dropTotal(sb) - dropsBefore;
            System.out.println("garbage sent " + sent + ", counted drops " + dropped + "\n" + sb.format());
            // UDP on loopback may itself drop some under load; most must arrive and every arrival is counted.
            assertTrue(dropped >= sent * 0.8, "dropped " + dropped + " of " + sent);
            assertEquals(null, p.b.failure());
            assertEquals(0, sb.counters().getOrDefault(Counter.DUPLICATE_PLACEMENTS, 0L));
        }
    }

    private static long dropTotal(DeviceStats s) {
        return s.counters().entrySet().stream().filter(e -> e.getKey().name().startsWith("DROP_"))
                .mapToLong(java.util.Map.Entry::getValue).sum();
    }
}
