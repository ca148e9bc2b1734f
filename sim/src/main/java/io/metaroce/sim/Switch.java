package io.metaroce.sim;

/**
 * An output-queued switch. Forwarding: {@code hostPort[dst] >= 0} sends to that port (a directly attached host
 * or the downlink towards it); otherwise the packet is hashed over the equal-cost {@code uplinks} with a
 * 5-tuple hash (src host, dst host, UDP source port = base + path id, UDP destination port, protocol) salted
 * per switch, so a transport's path id selects a path deterministically per (seed, switch).
 */
public final class Switch implements PacketSink {
    /** RoCEv2 UDP destination port, part of the hashed 5-tuple. */
    public static final int UDP_DST_PORT = 4791;
    /** UDP source port of path 0; path i uses BASE_SRC_PORT + i. */
    public static final int BASE_SRC_PORT = 49152;

    private final String name;
    private final long salt;
    private SwitchPort[] ports = new SwitchPort[0];
    private int[] hostPort = new int[0];
    private int[] uplinks = new int[0];
    private long received;
    private long dataReceived;
    private long unroutable;
    private final PacketPool pool;

    /** A switch named {@code name} whose ECMP hash uses {@code salt}. */
    public Switch(String name, long salt, PacketPool pool) {
        this.name = name;
        this.salt = salt;
        this.pool = pool;
    }

    /** Adds an output port, returning its index. */
    public int addPort(SwitchPort port) {
        ports = java.util.Arrays.copyOf(ports, ports.length + 1);
        ports[ports.length - 1] = port;
        return ports.length - 1;
    }

    /** Sets the forwarding table: the port per destination host (-1 = ECMP over uplinks). */
    public void setRoutes(int[] portByHost, int[] uplinkPorts) {
        this.hostPort = portByHost.clone();
        this.uplinks = uplinkPorts.clone();
    }

    public String name() { return name; }
    public SwitchPort port(int i) { return ports[i]; }
    public int portCount() { return ports.length; }
    public long received() { return received; }
    public long dataReceived() { return dataReceived; }
    public long unroutable() { return unroutable; }

    @Override
    public void receive(Packet p, int inPort) {
        received++;
        if (p.data) {
            dataReceived++;
        }
        int out = p.dst >= 0 && p.dst < hostPort.length ? hostPort[p.dst] : -2;
        if (out == -1 && uplinks.length > 0) {
            out = uplinks[ecmpIndex(p.src, p.dst, BASE_SRC_PORT + p.pathId, UDP_DST_PORT, uplinks.length)];
        }
        if (out < 0) {
            unroutable++;
            pool.release(p);
            return;
        }
        ports[out].enqueue(p);
    }

    /** The uplink index (0..n-1) this switch picks for a 5-tuple. */
    public int ecmpIndex(int srcHost, int dstHost, int srcPort, int dstPort, int n) {
        long h = salt;
        h = mix(h ^ srcHost);
        h = mix(h ^ ((long) dstHost << 20));
        h = mix(h ^ ((long) srcPort << 40 | (long) dstPort << 16 | 17));
        return (int) Long.remainderUnsigned(h, n);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
