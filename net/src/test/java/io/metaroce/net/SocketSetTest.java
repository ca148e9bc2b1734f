package io.metaroce.net;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** WIRE-15 on real sockets: path i leaves from basePort + i, connected or not; ranges never collide. */
class SocketSetTest {
    static final SocketSet.Opener FFM = new SocketSet.Opener() {
        @Override
        public UdpSocket receiver(InetSocketAddress at) throws IOException {
            return new LinuxUdp(at, 1 << 20, false, false);
        }

        @Override
        public UdpSocket sender(InetSocketAddress at) throws IOException {
            return new LinuxUdp(at, 1 << 20, false, true, true);
        }
    };

    @Test
    void eachPathSendsFromItsOwnSourcePort() throws Exception {
        assumeTrue(LinuxUdp.unavailableReason() == null, "FFM datapath unavailable");
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        int paths = 6;
        try (Arena arena = Arena.ofConfined();
             SocketSet s = new SocketSet(List.of(lo), 0, 0, paths, FFM);
             LinuxUdp peer = new LinuxUdp(new InetSocketAddress(lo, 0), 1 << 20, false, false)) {
            assertTrue(s.basePort + paths <= s.port || s.basePort > s.port, "the range leaves the receive port alone");
            int p = s.addPeer(new int[] {Ipv4.of(lo)}, peer.localAddress().getPort());
            assertEquals(p, s.addPeer(new int[] {Ipv4.of(lo)}, peer.localAddress().getPort()), "one handle per peer");
            assertEquals(paths, s.connectedSockets(), "a connected socket per path for the peer");
            PacketBatch out = new PacketBatch(arena, 1, 256);
            out.length[0] = 100;
            out.addr[0] = Ipv4.of(lo);
            out.port[0] = peer.localAddress().getPort();
            for (int path = 0; path < paths; path++) {
                assertEquals(1, s.tx(s.txIndex(p, path)).send(out, new int[] {0}, 1));
                assertEquals(1, s.tx(path).send(out, new int[] {0}, 1), "the unconnected path socket too");
            }
            PacketBatch in = new PacketBatch(arena, 32, 256);
            int got = 0;
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (got < 2 * paths && System.nanoTime() < deadline) {
                int n = peer.receive(in);
                for (int i = 0; i < n; i++, got++) {
                    assertEquals(s.basePort + got / 2, in.port[i], "datagram " + got + "'s source port");
                }
            }
            assertEquals(2 * paths, got);
            assertEquals(2 * paths, s.sendStats().datagrams);
        }
    }

    @Test
    void twoDevicesOnOneAddressGetDisjointRangesAndATakenRangeIsRefused() throws Exception {
        assumeTrue(LinuxUdp.unavailableReason() == null, "FFM datapath unavailable");
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        try (SocketSet a = new SocketSet(List.of(lo), 0, 0, 8, FFM);
             SocketSet b = new SocketSet(List.of(lo), 0, 0, 8, FFM)) {
            assertTrue(a.basePort + 8 <= b.basePort || b.basePort + 8 <= a.basePort,
                    a.basePort + " vs " + b.basePort);
            IOException e = assertThrows(IOException.class, () -> new SocketSet(List.of(lo), 0, a.basePort + 3, 2, FFM));
            assertTrue(e.getMessage().contains("not all free"), e.getMessage());
        }
    }
}
