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
                out.addr[i] = LinuxUdp.ipv4(lo);
                out.port[i] = rx.localAddress().getPort();
                out.slots[i].fill((byte) i);
                idx[i] = i;
            }
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
                    got++;
                }
            }
            assertEquals(20, got);
            assertEquals(700, lengths[19]);
            assertEquals(1500, lengths[0]);
        }
    }
}
