package io.metaroce.sim.fabric;

import io.metaroce.sim.event.Units;

/**
 * Parameters of a multi-plane fabric: every plane is an independent copy of one topology, a two-tier
 * leaf-spine or a three-tier k-ary fat-tree. Mutable with fluent setters, like {@code EngineConfig}; every field
 * is public and of a simple type so experiment files can set it by name ({@code fabric.linkLoss},
 * {@code fabric.topology}). {@link #validate()} rejects inconsistent values with a clear message; the fabric
 * builders call it.
 *
 * <p>Oversubscription: on a leaf-spine, {@code hostsPerLeaf * hostRateBps} above {@code spines * fabricRateBps};
 * on a fat-tree, {@code hostsPerEdge} above {@code k/2} (or {@code fabricRateBps} below {@code hostRateBps}).
 */
public final class FabricConfig {
    /** Topology name of the two-tier leaf-spine ({@code LeafSpine}). */
    public static final String LEAF_SPINE = "leaf-spine";
    /** Topology name of the three-tier k-ary fat-tree ({@code FatTree}). */
    public static final String FAT_TREE = "fat-tree";
    /** Routing name: per-flow 5-tuple ECMP hashing (the path id is the UDP source port's entropy). */
    public static final String ECMP = "ecmp";
    /** Routing name: per-packet adaptive, the least-queued equal-cost uplink (ties broken by seeded randomness). */
    public static final String ADAPTIVE = "adaptive";
    /** ECN marking point: the queue a packet finds on arrival. */
    public static final String ENQUEUE = "enqueue";
    /** ECN marking point: the queue behind a packet as it leaves (switch ports then serialize packet by packet). */
    public static final String DEQUEUE = "dequeue";
    /** Loss model name: {@code linkLoss} is the probability of losing a packet on every link it crosses. */
    public static final String PER_LINK = "per-link";
    /**
     * Loss model name: {@code linkLoss} is the probability of losing a packet between its sender and its
     * receiver, whatever its hop count (drawn once, on the sending host's uplink).
     */
    public static final String END_TO_END = "end-to-end";

    /** Defaults: 16 hosts, 4 per leaf, 4 spines, 1 plane, 100 Gb/s, 1 us links, 1 MiB buffers, DCQCN-ish ECN. */
    public FabricConfig() {
    }

    /** {@value #LEAF_SPINE} or {@value #FAT_TREE}. */
    public String topology = LEAF_SPINE;
    /** Hosts attached (at most the topology's capacity; on a fat-tree the hosts fill edges in order). */
    public int hosts = 16;
    /** Leaf-spine: hosts per leaf switch. */
    public int hostsPerLeaf = 4;
    /** Leaf-spine: spine switches per plane (each leaf has one uplink to every spine). */
    public int spines = 4;
    /**
     * Fat-tree: switch arity k (even, at least 2): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2
     * core switches; k^3/4 hosts at {@code hostsPerEdge = k/2}.
     */
    public int k = 4;
    /** Fat-tree: hosts per edge (ToR) switch; 0 means k/2 (non-blocking); above k/2 oversubscribes the edge. */
    public int hostsPerEdge = 0;
    /** Independent planes; every host has one NIC port per plane. */
    public int planes = 1;
    /** Host link rate (both directions), bits/s. */
    public long hostRateBps = 100_000_000_000L;
    /** Switch-to-switch link rate, bits/s. */
    public long fabricRateBps = 100_000_000_000L;
    /** Propagation delay of a host link, ps. */
    public long hostLinkDelayPs = Units.psFromUs(1);
    /** Propagation delay of a switch-to-switch link, ps. */
    public long fabricLinkDelayPs = Units.psFromUs(1);
    /** Output buffer per switch port, bytes (drop-tail). */
    public long bufferBytes = 1 << 20;
    /** Host NIC queue, bytes (the engine paces itself; this is a safety bound). */
    public long nicBufferBytes = 64L << 20;
    /** ECN: no marking at or below this queue depth, bytes; negative disables marking. */
    public long ecnKminBytes = 100 << 10;
    /** ECN: marking probability reaches {@code ecnPmax} here and every ECT packet is marked above, bytes. */
    public long ecnKmaxBytes = 400 << 10;
    /** ECN: marking probability at {@code ecnKmaxBytes} (linear from 0 at kmin); 0 disables marking. */
    public double ecnPmax = 0.2;
    /**
     * Random loss probability (0..1): per link crossed with {@code lossModel} {@value #PER_LINK}, between sender and
     * receiver with {@value #END_TO_END}.
     */
    public double linkLoss = 0;
    /**
     * How {@code linkLoss} applies: {@value #PER_LINK} (default: on every link, so a packet crossing h links is
     * lost with 1 - (1 - linkLoss)^h) or {@value #END_TO_END} (once per packet, on the sending host's uplink, so
     * every packet is lost with exactly {@code linkLoss}, data and acknowledgements alike).
     */
    public String lossModel = PER_LINK;
    /** {@value #ECMP} or {@value #ADAPTIVE}: how a switch picks among equal-cost uplinks. */
    public String routing = ECMP;
    /**
     * Bytes added to every datagram on the wire (serialization and buffer occupancy), e.g. Ethernet/IP/UDP
     * framing; may be negative to match another simulator's packet size (the wire size stays at least 1).
     */
    public int wireOverheadBytes = 0;
    /**
     * Wire size of every non-data packet (ACKs, NAKs, probes, CNPs), bytes; 0 means datagram +
     * {@code wireOverheadBytes}.
     */
    public int controlWireBytes = 0;
    /** Priority flow control: a switch pauses the upstream sender of an ingress that buffers too much. */
    public boolean pfc = false;
    /**
     * PFC: an ingress port buffering more than this many bytes (in any of the switch's output queues) pauses
     * its upstream port; 0 = automatic: the port buffer shared among the switch's ingress ports, minus the
     * headroom ({@link #pfcHeadroomBytes}), so that no output queue can overflow however the ingress traffic
     * converges. That needs {@code bufferBytes >= ports * (headroom + one packet)} (e.g. 8 ports at 100 Gb/s
     * over 1 us links with 4 KB packets: about 300 KB); below that XOFF is one packet and drops remain possible.
     */
    public long pfcXoffBytes = 0;
    /** PFC: the paused upstream port resumes when the ingress drains to this many bytes; 0 = XOFF / 2. */
    public long pfcXonBytes = 0;

    /** Where switch ports decide ECN marks: {@link #ENQUEUE} (default) or {@link #DEQUEUE}. */
    public String ecnMarkAt = ENQUEUE;
    /**
     * Failure detection delay (ps): this long after a switch-to-switch cable goes down (or back up) the switches
     * at its ends withdraw it from (or return it to) their ECMP groups, and every other switch stops (or resumes)
     * hashing the destinations it cut off towards switches that no longer reach them ({@code RouteWithdrawal});
     * -1 (default): never, so a dead uplink keeps its share of flows.
     */
    public long linkFailureDetectPs = -1;
    /**
     * Switch ports trim the data packets their buffer cannot take to their headers and forward them ahead of data
     * (UET); a MetaRoCE receiver NAKs a trimmed packet at once (REL-17), a RoCEv2 NIC drops it (its ICRC fails).
     */
    public boolean trimming = false;

    /** Sets {@link #topology} ({@link #LEAF_SPINE} or {@link #FAT_TREE}); returns this. */
    public FabricConfig topology(String v) { topology = v; return this; }
    /** Sets {@link #hosts}; returns this. */
    public FabricConfig hosts(int v) { hosts = v; return this; }
    /** Sets {@link #hostsPerLeaf}; returns this. */
    public FabricConfig hostsPerLeaf(int v) { hostsPerLeaf = v; return this; }
    /** Sets {@link #spines} (per plane); returns this. */
    public FabricConfig spines(int v) { spines = v; return this; }
    /** Sets the fat-tree arity {@link #k}; returns this. */
    public FabricConfig k(int v) { k = v; return this; }
    /** Sets {@link #hostsPerEdge} (fat-tree); returns this. */
    public FabricConfig hostsPerEdge(int v) { hostsPerEdge = v; return this; }
    /** Sets {@link #planes}; returns this. */
    public FabricConfig planes(int v) { planes = v; return this; }
    /** Sets {@link #hostRateBps}, bits per second; returns this. */
    public FabricConfig hostRateBps(long v) { hostRateBps = v; return this; }
    /** Sets {@link #fabricRateBps}, bits per second; returns this. */
    public FabricConfig fabricRateBps(long v) { fabricRateBps = v; return this; }
    /** Sets {@link #hostLinkDelayPs}, picoseconds; returns this. */
    public FabricConfig hostLinkDelayPs(long v) { hostLinkDelayPs = v; return this; }
    /** Sets {@link #fabricLinkDelayPs}, picoseconds; returns this. */
    public FabricConfig fabricLinkDelayPs(long v) { fabricLinkDelayPs = v; return this; }
    /** Sets {@link #bufferBytes} (per switch port); returns this. */
    public FabricConfig bufferBytes(long v) { bufferBytes = v; return this; }
    /** Sets {@link #nicBufferBytes}; returns this. */
    public FabricConfig nicBufferBytes(long v) { nicBufferBytes = v; return this; }
    /**
     * Sets the ECN marking ramp: {@code kmin} and {@code kmax} in queued bytes, {@code pmax} the marking probability
     * at kmax; returns this.
     */
    public FabricConfig ecn(long kmin, long kmax, double pmax) {
        ecnKminBytes = kmin; ecnKmaxBytes = kmax; ecnPmax = pmax; return this;
    }
    /** Sets {@link #linkLoss} (probability, 0..1); returns this. */
    public FabricConfig linkLoss(double v) { linkLoss = v; return this; }
    /** Sets {@link #routing}; returns this. */
    public FabricConfig routing(String v) { routing = v; return this; }
    /** Sets {@link #wireOverheadBytes}; returns this. */
    public FabricConfig wireOverheadBytes(int v) { wireOverheadBytes = v; return this; }
    /** Sets {@link #controlWireBytes}; returns this. */
    public FabricConfig controlWireBytes(int v) { controlWireBytes = v; return this; }
    /** Turns PFC on or off ({@link #pfc}); returns this. */
    public FabricConfig pfc(boolean v) { pfc = v; return this; }
    /** Sets the PFC thresholds, ingress bytes: pause at {@code xoff}, resume at {@code xon}; returns this. */
    public FabricConfig pfcThresholds(long xoff, long xon) { pfcXoffBytes = xoff; pfcXonBytes = xon; return this; }

    /** A full k-ary fat-tree: topology, {@code k}, {@code hostsPerEdge = k/2} and {@code hosts = k^3/4}. */
    public FabricConfig fatTree(int arity) {
        topology = FAT_TREE;
        k = arity;
        hostsPerEdge = arity / 2;
        hosts = arity * arity * arity / 4;
        return this;
    }

    /** Leaf-spine: leaves per plane. */
    public int leaves() { return (hosts + hostsPerLeaf - 1) / hostsPerLeaf; }

    /** Fat-tree: hosts per edge switch, {@code hostsPerEdge} or k/2. */
    public int edgeHosts() { return hostsPerEdge > 0 ? hostsPerEdge : k / 2; }

    /** Fat-tree: hosts the topology can attach, {@code k * k/2 * edgeHosts()}. */
    public int fatTreeCapacity() { return k * (k / 2) * edgeHosts(); }

    /** Oversubscription ratio at the first switch tier (host-facing over uplink capacity). */
    public double oversubscription() {
        if (FAT_TREE.equals(topology)) {
            return (double) edgeHosts() * hostRateBps / ((double) (k / 2) * fabricRateBps);
        }
        return (double) hostsPerLeaf * hostRateBps / ((double) spines * fabricRateBps);
    }

    /** Sets {@link #ecnMarkAt}; returns this. */
    public FabricConfig ecnMarkAt(String v) { ecnMarkAt = v; return this; }
    /** Sets {@link #linkFailureDetectPs}, picoseconds; returns this. */
    public FabricConfig linkFailureDetectPs(long v) { linkFailureDetectPs = v; return this; }
    /** Turns packet trimming on or off ({@link #trimming}); returns this. */
    public FabricConfig trimming(boolean v) { trimming = v; return this; }

    /** True when switch ports mark ECN at dequeue (validated: otherwise at enqueue). */
    public boolean ecnAtDequeue() { return DEQUEUE.equals(ecnMarkAt); }

    /** True when switches route adaptively (validated: otherwise ECMP). */
    public boolean adaptiveRouting() { return ADAPTIVE.equals(routing); }

    /** True when {@code linkLoss} is drawn once per packet (validated: otherwise per link). */
    public boolean endToEndLoss() { return END_TO_END.equals(lossModel); }

    /**
     * PFC headroom of an ingress fed at {@code rateBps} over a link of {@code delayPs}: the bytes that can
     * still arrive after the switch decides to pause, i.e. a round trip of the link at line rate (the pause
     * travels one way while the wire keeps delivering) plus the packet the upstream port is serializing when
     * the pause lands, plus one more packet (the one crossing the threshold).
     */
    public static long pfcHeadroomBytes(long rateBps, long delayPs, int maxWireBytes) {
        long inFlight = (long) Math.ceil(2.0 * delayPs * rateBps / 8.0 / Units.PS_PER_S);
        return inFlight + 2L * maxWireBytes;
    }

    /** Throws IllegalArgumentException naming the first bad value; returns this. */
    public FabricConfig validate() {
        require(LEAF_SPINE.equals(topology) || FAT_TREE.equals(topology),
                "fabric.topology must be " + LEAF_SPINE + " or " + FAT_TREE + ", got " + topology);
        require(ECMP.equals(routing) || ADAPTIVE.equals(routing),
                "fabric.routing must be " + ECMP + " or " + ADAPTIVE + ", got " + routing);
        require(PER_LINK.equals(lossModel) || END_TO_END.equals(lossModel),
                "fabric.lossModel must be " + PER_LINK + " or " + END_TO_END + ", got " + lossModel);
        require(ENQUEUE.equals(ecnMarkAt) || DEQUEUE.equals(ecnMarkAt),
                "fabric.ecnMarkAt must be " + ENQUEUE + " or " + DEQUEUE + ", got " + ecnMarkAt);
        require(linkFailureDetectPs >= -1, "fabric.linkFailureDetectPs must be >= 0 (or -1: never), got "
                + linkFailureDetectPs);
        require(hosts >= 1, "fabric.hosts must be >= 1, got " + hosts);
        require(planes >= 1 && planes <= 256, "fabric.planes must be in 1..256, got " + planes);
        if (FAT_TREE.equals(topology)) {
            require(k >= 2 && k % 2 == 0 && k <= 256, "fabric.k must be even in 2..256, got " + k);
            require(hostsPerEdge >= 0, "fabric.hostsPerEdge must be >= 0, got " + hostsPerEdge);
            require(hosts <= fatTreeCapacity(), "fabric.hosts " + hosts + " exceeds the k=" + k
                    + " fat-tree's capacity " + fatTreeCapacity() + " (k * k/2 * hostsPerEdge)");
        } else {
            require(hostsPerLeaf >= 1, "fabric.hostsPerLeaf must be >= 1, got " + hostsPerLeaf);
            require(spines >= 1, "fabric.spines must be >= 1, got " + spines);
        }
        require(hostRateBps > 0 && fabricRateBps > 0, "fabric link rates must be > 0");
        require(hostLinkDelayPs >= 0 && fabricLinkDelayPs >= 0, "fabric link delays must be >= 0");
        require(bufferBytes > 0 && nicBufferBytes > 0, "fabric buffers must be > 0");
        require(ecnPmax >= 0 && ecnPmax <= 1, "fabric.ecnPmax must be in [0, 1], got " + ecnPmax);
        require(linkLoss >= 0 && linkLoss <= 1, "fabric.linkLoss must be in [0, 1], got " + linkLoss);
        require(controlWireBytes >= 0, "fabric.controlWireBytes must be >= 0, got " + controlWireBytes);
        require(pfcXoffBytes >= 0 && pfcXonBytes >= 0, "fabric PFC thresholds must be >= 0");
        require(pfcXoffBytes == 0 || pfcXonBytes <= pfcXoffBytes,
                "fabric.pfcXonBytes must not exceed pfcXoffBytes");
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
