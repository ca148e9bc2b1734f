package io.metaroce.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A device's sockets and peers. One receive socket per plane, bound to the plane's address and the protocol
 * port. Per path {@code i}, send sockets bound to plane {@code i mod planes}'s address and source port
 * {@code basePort + i} (WIRE-15: the source port is the path's ECMP entropy, the same for data and ACKs): one
 * unconnected socket that can reach any peer, and for each peer (up to a budget) one {@code connect()}ed to the
 * peer's address on that plane, which spares the kernel a route lookup per datagram. Every send socket of a
 * path shares its port ({@code SO_REUSEPORT}); nothing is ever sent to it, so receiving is unaffected.
 *
 * <p>{@code basePort} 0 picks a free range: the ports right after the protocol port, else the first free range
 * from 40000 up, each checked by a plain bind first so that two devices on one address never share a port.
 * Used by the agent thread only, after construction.
 */
final class SocketSet implements AutoCloseable {
    /** Connected send sockets at most, over all peers; beyond it, peers share the unconnected ones. */
    static final int CONNECTED_BUDGET = 1024;
    private static final int SEARCH_FROM = 40_000;
    private static final int SEARCH_ATTEMPTS = 400;

    /** How sockets are opened (the FFM datapath or the portable channel). */
    interface Opener {
        /** A receive socket bound to {@code at}. */
        UdpSocket receiver(InetSocketAddress at) throws IOException;

        /** A send socket bound to {@code at}, sharing its port with the path's other send sockets. */
        UdpSocket sender(InetSocketAddress at) throws IOException;
    }

    final UdpSocket[] rx;
    final int port;
    final int basePort;
    final int[] planeAddr;
    private final int paths;
    private final InetAddress[] planeIp;
    private final Opener opener;
    private final SendStats sendStats = new SendStats();
    /** Flat list of send sockets: the path sockets first (index = path), then each peer's connected ones. */
    private final List<UdpSocket> tx = new ArrayList<>();
    /** Per peer: its plane addresses, then its port. */
    private final List<int[]> peers = new ArrayList<>();
    /** Per peer: the flat index of its connected send socket per path, or -1. */
    private final List<int[]> peerTx = new ArrayList<>();
    private int connected;

    SocketSet(List<InetAddress> planes, int port, int basePort, int paths, Opener opener) throws IOException {
        this.paths = paths;
        this.opener = opener;
        this.planeIp = planes.toArray(new InetAddress[0]);
        this.planeAddr = new int[planeIp.length];
        this.rx = new UdpSocket[planeIp.length];
        int bound = port;
        try {
            for (int p = 0; p < planeIp.length; p++) {
                planeAddr[p] = Ipv4.of(planeIp[p]);
                rx[p] = opener.receiver(new InetSocketAddress(planeIp[p], bound));
                if (bound == 0) {
                    bound = rx[p].localAddress().getPort(); // every plane on the same port
                }
            }
            this.port = bound;
            this.basePort = bindPaths(basePort);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private int bindPaths(int wanted) throws IOException {
        if (wanted != 0) {
            if (wanted < 1 || wanted + paths - 1 > 65_535) {
                throw new IOException("base port " + wanted + " + " + paths + " paths is outside 1..65535");
            }
            if (!free(wanted) || !tryBind(wanted)) {
                throw new IOException("source ports " + wanted + ".." + (wanted + paths - 1) + " are not all free");
            }
            return wanted;
        }
        int candidate = port + 1;
        for (int attempt = 0; attempt < SEARCH_ATTEMPTS; attempt++) {
            if (candidate + paths - 1 > 65_535 || candidate <= 0) {
                candidate = SEARCH_FROM;
            }
            boolean overlapsPort = port >= candidate && port < candidate + paths;
            if (!overlapsPort && free(candidate) && tryBind(candidate)) {
                return candidate;
            }
            candidate = attempt == 0 ? SEARCH_FROM : candidate + paths;
        }
        throw new IOException("no free range of " + paths + " source ports found");
    }

    /** True when a plain bind (no reuse options) of every port of the range succeeds on its plane. */
    private boolean free(int base) {
        for (int i = 0; i < paths; i++) {
            try (DatagramChannel probe = DatagramChannel.open(StandardProtocolFamily.INET)) {
                probe.bind(new InetSocketAddress(planeIp[i % planeIp.length], base + i));
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private boolean tryBind(int base) throws IOException {
        List<UdpSocket> made = new ArrayList<>();
        try {
            for (int i = 0; i < paths; i++) {
                UdpSocket s = opener.sender(new InetSocketAddress(planeIp[i % planeIp.length], base + i));
                s.countInto(sendStats);
                made.add(s);
            }
        } catch (IOException e) {
            made.forEach(UdpSocket::close); // lost a race for a port: try another range
            return false;
        }
        tx.addAll(made);
        return true;
    }

    /**
     * Registers a peer (its plane addresses and port) and returns its handle; a peer already known gets its
     * old handle, so thousands of QPs to one peer share its sockets. Opens the peer's connected send sockets
     * while the budget lasts.
     */
    int addPeer(int[] addrs, int peerPort) {
        int[] p = Arrays.copyOf(addrs, addrs.length + 1);
        p[addrs.length] = peerPort;
        for (int h = 0; h < peers.size(); h++) {
            if (Arrays.equals(peers.get(h), p)) {
                return h;
            }
        }
        peers.add(p);
        int[] idx = new int[paths];
        Arrays.fill(idx, -1);
        if (connected + paths <= CONNECTED_BUDGET) {
            for (int i = 0; i < paths; i++) {
                idx[i] = connect(i, addrs[i % planeIp.length % addrs.length], peerPort);
            }
        }
        peerTx.add(idx);
        return peers.size() - 1;
    }

    private int connect(int path, int addr, int peerPort) {
        try {
            UdpSocket s = opener.sender(new InetSocketAddress(planeIp[path % planeIp.length], basePort + path));
            if (!s.connect(addr, peerPort)) {
                s.close();
                return -1;
            }
            s.countInto(sendStats);
            tx.add(s);
            connected++;
            return tx.size() - 1;
        } catch (IOException e) {
            return -1; // the unconnected path socket carries this peer's datagrams
        }
    }

    /** The peer's address on {@code plane}. */
    int peerAddr(int peer, int plane) {
        int[] p = peers.get(peer);
        return p[plane % (p.length - 1)];
    }

    /** The peer's port. */
    int peerPort(int peer) {
        int[] p = peers.get(peer);
        return p[p.length - 1];
    }

    /** Index (for {@link #tx(int)}) of the socket path {@code path}'s datagrams to {@code peer} leave from. */
    int txIndex(int peer, int path) {
        int i = path % paths;
        int c = peer < peerTx.size() ? peerTx.get(peer)[i] : -1;
        return c >= 0 ? c : i;
    }

    UdpSocket tx(int index) {
        return tx.get(index);
    }

    /** Send sockets open (path sockets plus connected ones). */
    int txSockets() {
        return tx.size();
    }

    /** Connected send sockets open. */
    int connectedSockets() {
        return connected;
    }

    SendStats sendStats() {
        return sendStats;
    }

    @Override
    public void close() {
        for (UdpSocket s : rx) {
            if (s != null) {
                s.close();
            }
        }
        for (UdpSocket s : tx) {
            s.close();
        }
    }
}
