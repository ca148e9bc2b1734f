package io.metaroce.net;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The FFM socket on loopback: batches, GSO runs, GRO, ECN codepoints read from the control messages. */
class LinuxUdpTest {
    @Test
    void batchesAndGsoRunsArriveWhole() throws Exception {
        assumeTrue(LinuxUdp.unavailableReason() == null, "FFM datapath unavailable");
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        try (Arena arena = Arena.ofConfined();
             LinuxUdp rx = new LinuxUdp(new InetSocketAddress(lo, 0), 4 << 20, false, false);
             LinuxUdp tx = new LinuxUdp(new InetSocketAddress(lo, 0), 4 << 20, false, false, true)) {
            PacketBatch out = new PacketBatch(arena, 32, 2048);
            int[] idx = new int[32];
            for (int i = 0; i < 20; i++) {
                out.length[i] = i == 19 ? 700 : 1500; // a GSO run of 19 full and one short
                out.addr[i] = Ipv4.of(lo);
                out.port[i] = rx.localAddress().getPort();
                out.slots[i].fill((byte) i);
                idx[i] = i;
            }
            long before = System.nanoTime();
            assertEquals(20, tx.send(out, idx, 20));
            assertTrue(tx.gsoSends() >= 1, "sent as GSO");
            PacketBatch in = new PacketBatch(arena, 32, 2048);
            int got = 0;
            long deadline = System.nanoTime() + 2_000_000_000L;
            int[] lengths = new int[20];
            while (got < 20 && System.nanoTime() < deadline) {
                int n = rx.receive(in);
                for (int i = 0; i < n; i++) {
                    lengths[got] = in.length[i];
                    assertEquals((byte) got, in.slots[i].get(ValueLayout.JAVA_BYTE, 0), "order and content");
                    assertEquals(2, in.ecn[i], "ECT(0) read back from IP_RECVTOS");
                    long after = System.nanoTime();
                    // the kernel's receive time (SO_TIMESTAMPNS), moved onto System.nanoTime's clock
                    assertTrue(in.arrivalNs[i] - before >= -1_000_000 && in.arrivalNs[i] - after <= 0,
                            "arrival " + (in.arrivalNs[i] - before) + " ns after the send began, receive at "
                                    + (after - before));
                    got++;
                }
            }
            assertEquals(20, got);
            assertEquals(700, lengths[19]);
            assertEquals(1500, lengths[0]);
        }
    }

    /**
     * Gathered datagrams (Engine.gatherTransmit): headers and CRC in the slot, the payload in a region. Sent alone, in
     * a GSO run, and through the DatagramChannel fallback (which flattens the slot), each arrives as
     * headers + payload + CRC in one piece.
     */
    @Test
    void gatheredDatagramsArriveContiguous() throws Exception {
        assumeTrue(LinuxUdp.unavailableReason() == null, "FFM datapath unavailable");
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        for (int mode = 0; mode < 3; mode++) {
            try (Arena arena = Arena.ofConfined();
                 LinuxUdp rx = new LinuxUdp(new InetSocketAddress(lo, 0), 4 << 20, false, false);
                 UdpSocket tx = mode == 2 ? new ChannelUdp(new InetSocketAddress(lo, 0), 4 << 20)
                         : new LinuxUdp(new InetSocketAddress(lo, 0), 4 << 20, false, false, mode == 1)) {
                var region = arena.allocate(1 << 16, 64);
                for (int b = 0; b < region.byteSize(); b++) {
                    region.set(ValueLayout.JAVA_BYTE, b, (byte) (b * 7 + 3));
                }
                PacketBatch out = new PacketBatch(arena, 8, 2048);
                int[] idx = new int[8];
                int header = 64;
                int payload = 1000;
                for (int i = 0; i < 6; i++) {
                    out.slots[i].fill((byte) (0x40 + i));
                    out.slots[i].set(ValueLayout.JAVA_INT_UNALIGNED, header, 0x0C0FFEE0 + i); // the "CRC"
                    out.length[i] = header + payload + 4;
                    out.headerLength[i] = header;
                    out.gatherLength[i] = payload;
                    out.gatherSegment[i] = region;
                    out.gatherOffset[i] = 4096L * i + 5;
                    out.addr[i] = Ipv4.of(lo);
                    out.port[i] = rx.localAddress().getPort();
                    idx[i] = i;
                }
                assertEquals(6, tx.send(out, idx, 6));
                PacketBatch in = new PacketBatch(arena, 8, 2048);
                int got = 0;
                long deadline = System.nanoTime() + 2_000_000_000L;
                while (got < 6 && System.nanoTime() < deadline) {
                    int n = rx.receive(in);
                    for (int k = 0; k < n; k++, got++) {
                        var d = in.slots[k];
                        assertEquals(header + payload + 4, in.length[k], "mode " + mode);
                        assertEquals((byte) (0x40 + got), d.get(ValueLayout.JAVA_BYTE, header - 1), "headers");
                        assertEquals(-1, d.asSlice(header, payload)
                                .mismatch(region.asSlice(4096L * got + 5, payload)), "payload, mode " + mode);
                        assertEquals(0x0C0FFEE0 + got, d.get(ValueLayout.JAVA_INT_UNALIGNED, header + payload), "CRC");
                    }
                }
                assertEquals(6, got, "mode " + mode);
            }
        }
    }

    @Test
    void groHandsCoalescedRunsWithTheirSegmentSize() throws Exception {
        assumeTrue(LinuxUdp.unavailableReason() == null, "FFM datapath unavailable");
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        try (Arena arena = Arena.ofConfined();
             LinuxUdp rx = new LinuxUdp(new InetSocketAddress(lo, 0), 4 << 20, true, false);
             LinuxUdp tx = new LinuxUdp(new InetSocketAddress(lo, 0), 4 << 20, false, false, true)) {
            assumeTrue(rx.gro(), "this kernel has no UDP_GRO");
            PacketBatch out = new PacketBatch(arena, 16, 2048);
            int[] idx = new int[16];
            for (int i = 0; i < 10; i++) {
                out.length[i] = 1200;
                out.addr[i] = Ipv4.of(lo);
                out.port[i] = rx.localAddress().getPort();
                out.slots[i].fill((byte) (i + 1));
                idx[i] = i;
            }
            assertEquals(10, tx.send(out, idx, 10));
            PacketBatch in = new PacketBatch(arena, 16, 65_536);
            long bytes = 0;
            int buffers = 0;
            int segments = 0;
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (bytes < 12_000 && System.nanoTime() < deadline) {
                int n = rx.receive(in);
                for (int i = 0; i < n; i++) {
                    bytes += in.length[i];
                    buffers++;
                    int seg = in.segmentSize[i] > 0 ? in.segmentSize[i] : in.length[i];
                    assertEquals(1200, seg, "each segment is one datagram");
                    for (int off = 0; off < in.length[i]; off += seg) {
                        assertEquals((byte) (segments + 1), in.slots[i].get(ValueLayout.JAVA_BYTE, off));
                        segments++;
                    }
                }
            }
            assertEquals(12_000, bytes);
            assertEquals(10, segments);
            assertTrue(buffers <= 10);
            System.out.println("GRO: 10 datagrams arrived in " + buffers + " receive buffer(s)");
        }
    }
}
