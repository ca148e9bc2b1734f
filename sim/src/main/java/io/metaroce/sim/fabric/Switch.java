package io.metaroce.sim.fabric;

import io.metaroce.sim.event.EventLoop;

/**
 * An output-queued switch. Forwarding is by destination host: a host inside the switch's down range goes to the
 * port {@code downBase + (dst - downLo) / downDiv} (the attached host, or the downlink towards its edge or pod),
 * or, with an explicit table, to {@code hostPort[dst]}; any other destination goes up over the equal-cost
 * {@code uplinks}. The uplink is picked either by a 5-tuple hash (src host, dst host, UDP source port =
 * {@link #BASE_SRC_PORT} + path id, UDP destination port, protocol) salted per switch, so a transport's path id
 * selects a path deterministically per (seed, switch); or, in adaptive mode, per packet as the uplink with the
 * least queued bytes, ties broken by a seeded random stream.
 *
 * <p>Failures: an uplink {@link #setWithdrawn withdrawn} (by a {@link LinkMonitor}, a detection delay after its
 * cable went down) leaves the ECMP group, so the hash spreads over the remaining uplinks, and rejoins once back
 * up; without a monitor a dead uplink keeps its share of flows and drops them. A failure further on (a spine's
 * link down to one leaf) gives the switch a smaller group for the destinations it cut off only
 * ({@link #setBlockGroups}, from {@code RouteWithdrawal}). Adaptive routing skips uplinks that
 * are paused by PFC or whose link is down at once (the port's own state), unless every uplink is.
 *
 * <p>PFC: when enabled, the switch accounts the bytes each in-port has buffered (in any output queue); above
 * XOFF it pauses the output port feeding that in-port's link, at or below XON it resumes it. The pause and
 * resume are events landing at the upstream port one link delay later (frames that are not modelled as
 * packets, so they are never lost nor queued).
 */
public final class Switch implements PacketSink {
    /** RoCEv2 UDP destination port, part of the hashed 5-tuple. */
    public static final int UDP_DST_PORT = 4791;
    /** UDP source port of path 0; path i uses BASE_SRC_PORT + i. */
    public static final int BASE_SRC_PORT = 49152;

    private final String name;
    private final long salt;
    private final PacketPool pool;
    private final EventLoop loop;
    private SwitchPort[] ports = new SwitchPort[0];
    private int[] hostPort;
    private int downLo;
    private int downHi;
    private int downDiv = 1;
    private int downBase;
    private int[] uplinks = new int[0];
    private int[] group = uplinks; // the uplinks in the ECMP group: all but the withdrawn ones
    private boolean[] withdrawn = new boolean[0]; // by port
    /** Per destination block (see {@code RouteWithdrawal}), the group when it differs from {@link #group}. */
    private int[][] blockGroups;
    private int[] blockOfHost;
    private long withdrawals;
    private boolean adaptive;
    private long tieState;
    private long received;
    private long dataReceived;
    private long unroutable;

    private Link[] ingress = new Link[0];
    private long[] ingressBytes;
    private boolean[] xoff;
    private long xoffBytes = -1;
    private long xonBytes;
    private long xoffSent;
    private long xonSent;

    /** A switch named {@code name} whose ECMP hash (and adaptive tie-breaking) uses {@code salt}. */
    public Switch(String name, long salt, PacketPool pool, EventLoop loop) {
        this.name = name;
        this.salt = salt;
        this.pool = pool;
        this.loop = loop;
        this.tieState = salt;
    }

    /** Adds an output port, returning its index. */
    public int addPort(SwitchPort port) {
        ports = java.util.Arrays.copyOf(ports, ports.length + 1);
        ports[ports.length - 1] = port;
        port.setOwner(this);
        return ports.length - 1;
    }

    /** Sets an explicit forwarding table: the port per destination host (-1 = up over {@code uplinkPorts}). */
    public void setRoutes(int[] portByHost, int[] uplinkPorts) {
        this.hostPort = portByHost.clone();
        this.uplinks = uplinkPorts.clone();
        regroup();
    }

    /**
     * Sets range forwarding (no per-host table): hosts {@code lo..hi-1} go down to port
     * {@code base + (dst - lo) / div}; every other host goes up over {@code uplinkPorts}.
     */
    public void setRoutes(int lo, int hi, int div, int base, int[] uplinkPorts) {
        if (div < 1 || lo > hi) {
            throw new IllegalArgumentException("bad down range " + lo + ".." + hi + " / " + div);
        }
        this.hostPort = null;
        this.downLo = lo;
        this.downHi = hi;
        this.downDiv = div;
        this.downBase = base;
        this.uplinks = uplinkPorts.clone();
        regroup();
    }

    /**
     * Withdraws output port {@code port} from the ECMP group ({@code true}) or lets it rejoin ({@code false});
     * a port that is not an uplink is only remembered.
     */
    public void setWithdrawn(int port, boolean out) {
        if (port >= withdrawn.length) {
            withdrawn = java.util.Arrays.copyOf(withdrawn, Math.max(port + 1, ports.length));
        }
        if (withdrawn[port] != out) {
            withdrawn[port] = out;
            if (out) {
                withdrawals++;
            }
            regroup();
        }
    }

    private void regroup() {
        int n = 0;
        for (int u : uplinks) {
            n += u < withdrawn.length && withdrawn[u] ? 0 : 1;
        }
        if (n == uplinks.length) {
            group = uplinks;
            return;
        }
        group = new int[n];
        int i = 0;
        for (int u : uplinks) {
            if (!(u < withdrawn.length && withdrawn[u])) {
                group[i++] = u;
            }
        }
    }

    /** Picks uplinks per packet by least queued bytes instead of by 5-tuple hash. */
    public void setAdaptive(boolean on) {
        this.adaptive = on;
    }

    /** Turns PFC on with these per-ingress thresholds in bytes ({@code xon <= xoff}). */
    public void enablePfc(long xoffThreshold, long xonThreshold) {
        if (xonThreshold > xoffThreshold || xoffThreshold < 0) {
            throw new IllegalArgumentException("PFC thresholds need 0 <= xon <= xoff, got " + xonThreshold
                    + " / " + xoffThreshold);
        }
        this.xoffBytes = xoffThreshold;
        this.xonBytes = xonThreshold;
        this.ingressBytes = new long[ingress.length];
        this.xoff = new boolean[ingress.length];
    }

    /** Registered by {@link Link#connect}: {@code link} delivers into in-port {@code port}. */
    void setIngress(int port, Link link) {
        if (port >= ingress.length) {
            ingress = java.util.Arrays.copyOf(ingress, port + 1);
            if (ingressBytes != null) {
                ingressBytes = java.util.Arrays.copyOf(ingressBytes, port + 1);
                xoff = java.util.Arrays.copyOf(xoff, port + 1);
            }
        }
        ingress[port] = link;
    }

    /** The switch's name, e.g. {@code p0.leaf3}. */
    public String name() { return name; }
    /** Output port {@code i}. */
    public SwitchPort port(int i) { return ports[i]; }
    /** Output ports. */
    public int portCount() { return ports.length; }
    /** Packets received (every kind). */
    public long received() { return received; }
    /** Data packets received. */
    public long dataReceived() { return dataReceived; }
    /** Packets dropped for want of a route (destination outside every range and no uplink). */
    public long unroutable() { return unroutable; }
    /** Times an uplink was withdrawn from the ECMP group. */
    public long withdrawals() { return withdrawals; }
    /** Uplinks in the ECMP group now. */
    public int groupSize() { return group.length; }
    /** Packets dropped at this switch's full output buffers. */
    public long bufferDrops() { return sumPorts(SwitchPort::dropped); }
    /** PFC: XOFF (pause) signals this switch sent upstream. */
    public long pfcPausesSent() { return xoffSent; }
    /** PFC: XON (resume) signals this switch sent upstream. */
    public long pfcResumesSent() { return xonSent; }
    /** PFC: pauses received by this switch's own output ports. */
    public long pfcPauses() { return sumPorts(SwitchPort::pfcPauses); }
    /** PFC: virtual time this switch's output ports spent paused, summed over ports. */
    public long pfcPausedPs() { return sumPorts(SwitchPort::pfcPausedPs); }
    private long sumPorts(java.util.function.ToLongFunction<SwitchPort> counter) {
        long n = 0;
        for (SwitchPort p : ports) {
            n += counter.applyAsLong(p);
        }
        return n;
    }

    /** PFC: bytes buffered that arrived on in-port {@code port} (0 without PFC). */
    public long ingressBytes(int port) {
        return ingressBytes == null || port >= ingressBytes.length ? 0 : ingressBytes[port];
    }
    /** PFC XOFF threshold in bytes, or -1 without PFC. */
    public long pfcXoffBytes() { return xoffBytes; }
    /** PFC XON threshold in bytes. */
    public long pfcXonBytes() { return xonBytes; }

    @Override
    public void receive(Packet p, int inPort) {
        forward(p, inPort, Packet.route(p), Packet.info(p));
    }

    /**
     * Routes {@code p}, arriving on {@code inPort}, to its output port from its route and info words
     * ({@link Packet#route}, carried in the link's ring): the packet object itself is not read.
     */
    void forward(Packet p, int inPort, long route, long info) {
        received++;
        if (Packet.infoData(info)) {
            dataReceived++;
        }
        int dst = Packet.routeDst(route);
        int out = downPort(dst);
        if (out == -1) {
            int[] g = groupTo(dst);
            out = g.length == 0 ? -2 : g[adaptive ? leastQueued(g) : hashIndex(route, info, g.length)];
        }
        if (out < 0) {
            unroutable++;
            pool.release(p);
            return;
        }
        ports[out].enqueue(p, inPort, route, info);
    }

    /**
     * Reads, changing nothing, the output port a packet with these words ({@link Packet#route}) would be queued on
     * ({@link io.metaroce.sim.event.EventHandler#warm}); 0 when adaptive routing (which draws) would pick it.
     */
    long warm(long route, long info) {
        int dst = Packet.routeDst(route);
        int out = downPort(dst);
        if (out == -1) {
            int[] g = groupTo(dst);
            if (adaptive || g.length == 0) {
                return 0;
            }
            out = g[hashIndex(route, info, g.length)];
        }
        return out < 0 ? 0 : ports[out].warm();
    }

    /** The uplinks towards {@code dst}: the switch's group, or a smaller one after a failure further on. */
    private int[] groupTo(int dst) {
        if (blockGroups != null && dst >= 0 && dst < blockOfHost.length) {
            int[] bg = blockGroups[blockOfHost[dst]];
            return bg == null ? group : bg; // some uplinks cannot reach this destination
        }
        return group;
    }

    private int hashIndex(long route, long info, int n) {
        return ecmpIndex(Packet.routeSrc(route), Packet.routeDst(route), BASE_SRC_PORT + Packet.infoPath(info),
                UDP_DST_PORT, n);
    }

    /** Whether output port {@code port} is withdrawn (its failure detected). */
    public boolean isWithdrawn(int port) {
        return port < withdrawn.length && withdrawn[port];
    }

    /** Whether any port is withdrawn. */
    public boolean anyWithdrawn() {
        for (boolean w : withdrawn) {
            if (w) {
                return true;
            }
        }
        return false;
    }

    /** The uplink ports (ECMP group before withdrawals); not a copy: do not modify. */
    public int[] uplinkPorts() {
        return uplinks;
    }

    /**
     * Sets the ECMP groups per destination block ({@code RouteWithdrawal}): destination host {@code h} goes up
     * over {@code groups[blockOfHost[h]]} when that is not null (an empty group: no route), over the switch's
     * group otherwise; {@code groups == null} clears them.
     */
    public void setBlockGroups(int[] blockOfHost, int[][] groups) {
        this.blockOfHost = groups == null ? null : blockOfHost;
        this.blockGroups = groups;
    }

    /** Uplinks in the group towards destination host {@code dst} (the switch's group unless a failure further on). */
    public int groupSize(int dst) {
        if (blockGroups != null && dst >= 0 && dst < blockOfHost.length && blockGroups[blockOfHost[dst]] != null) {
            return blockGroups[blockOfHost[dst]].length;
        }
        return group.length;
    }

    /** The port down towards {@code dst}, -1 to go up, -2 for no route. */
    public int downPortOf(int dst) {
        return downPort(dst);
    }

    private int downPort(int dst) {
        if (hostPort != null) {
            return dst >= 0 && dst < hostPort.length ? hostPort[dst] : -2;
        }
        return dst >= downLo && dst < downHi ? downBase + (dst - downLo) / downDiv : -1;
    }

    /**
     * The output port a packet from host {@code src} to host {@code dst} with path id {@code pathId} leaves by
     * under ECMP (the uplink its 5-tuple hashes to, whatever the routing mode), or -1 when there is no route:
     * what a controller computes to know which links a flow crosses.
     */
    public int route(int src, int dst, int pathId) {
        int out = downPort(dst);
        if (out == -1) {
            out = uplinks.length == 0 ? -2
                    : uplinks[ecmpIndex(src, dst, BASE_SRC_PORT + pathId, UDP_DST_PORT, uplinks.length)];
        }
        return Math.max(-1, out);
    }

    /** The uplink index (0..n-1) this switch picks for a 5-tuple. */
    public int ecmpIndex(int srcHost, int dstHost, int srcPort, int dstPort, int n) {
        long h = salt;
        h = mix(h ^ srcHost);
        h = mix(h ^ ((long) dstHost << 20));
        h = mix(h ^ ((long) srcPort << 40 | (long) dstPort << 16 | 17));
        return (int) Long.remainderUnsigned(h, n);
    }

    /**
     * Adaptive: index in {@code g} of the uplink with the fewest queued bytes among those neither paused nor down
     * (among all when none is usable); ties broken uniformly by the seeded stream.
     */
    private int leastQueued(int[] g) {
        boolean any = false;
        for (int u : g) {
            if (usable(ports[u])) {
                any = true;
                break;
            }
        }
        int best = 0;
        long bestQ = Long.MAX_VALUE;
        int ties = 0;
        for (int i = 0; i < g.length; i++) {
            SwitchPort port = ports[g[i]];
            if (any && !usable(port)) {
                continue;
            }
            long q = port.queuedBytes();
            if (q < bestQ) {
                bestQ = q;
                best = i;
                ties = 1;
            } else if (q == bestQ) {
                ties++;
                // reservoir sampling: the i-th tie replaces the choice with probability 1/ties
                tieState += 0x9e3779b97f4a7c15L;
                if (Long.remainderUnsigned(mix(tieState), ties) == 0) {
                    best = i;
                }
            }
        }
        return best;
    }

    private static boolean usable(SwitchPort port) {
        return !port.isPaused() && port.link().isUp();
    }

    /** An output port accepted {@code bytes} that arrived on {@code inPort}. */
    void buffered(int inPort, int bytes) {
        if (xoffBytes < 0 || inPort >= ingressBytes.length) {
            return;
        }
        long b = ingressBytes[inPort] += bytes;
        if (b > xoffBytes && !xoff[inPort]) {
            xoff[inPort] = true;
            xoffSent++;
            signal(inPort, SwitchPort.PFC_PAUSE);
        }
    }

    /** An output port finished sending {@code bytes} that arrived on {@code inPort}. */
    void released(int inPort, int bytes) {
        if (xoffBytes < 0 || inPort >= ingressBytes.length) {
            return;
        }
        long b = ingressBytes[inPort] -= bytes;
        if (b <= xonBytes && xoff[inPort]) {
            xoff[inPort] = false;
            xonSent++;
            signal(inPort, SwitchPort.PFC_RESUME);
        }
    }

    private void signal(int inPort, long what) {
        Link in = ingress[inPort];
        SwitchPort upstream = in == null ? null : in.source();
        if (upstream != null) {
            loop.schedule(loop.nowPs() + in.delayPs(), upstream, what);
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
