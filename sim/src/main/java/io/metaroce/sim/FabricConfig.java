package io.metaroce.sim;

/**
 * Parameters of a two-tier leaf-spine fabric replicated over {@code planes} independent planes. Mutable with
 * fluent setters, like {@code EngineConfig}. Oversubscription comes from {@code spines * fabricRateBps} being
 * below {@code hostsPerLeaf * hostRateBps}.
 */
public final class FabricConfig {
    /** Defaults: 16 hosts, 4 per leaf, 4 spines, 1 plane, 100 Gb/s, 1 us links, 1 MiB buffers, DCQCN-ish ECN. */
    public FabricConfig() {
    }

    public int hosts = 16;
    public int hostsPerLeaf = 4;
    public int spines = 4;
    public int planes = 1;
    public long hostRateBps = 100_000_000_000L;
    public long fabricRateBps = 100_000_000_000L;
    public long hostLinkDelayPs = Units.psFromUs(1);
    public long fabricLinkDelayPs = Units.psFromUs(1);
    /** Output buffer per switch port. */
    public long bufferBytes = 1 << 20;
    /** Host NIC queue (the engine paces itself; this is a safety bound). */
    public long nicBufferBytes = 64L << 20;
    public long ecnKminBytes = 100 << 10;
    public long ecnKmaxBytes = 400 << 10;
    public double ecnPmax = 0.2;
    /** Random loss applied on every link. */
    public double linkLoss = 0;

    public FabricConfig hosts(int v) { hosts = v; return this; }
    public FabricConfig hostsPerLeaf(int v) { hostsPerLeaf = v; return this; }
    public FabricConfig spines(int v) { spines = v; return this; }
    public FabricConfig planes(int v) { planes = v; return this; }
    public FabricConfig hostRateBps(long v) { hostRateBps = v; return this; }
    public FabricConfig fabricRateBps(long v) { fabricRateBps = v; return this; }
    public FabricConfig hostLinkDelayPs(long v) { hostLinkDelayPs = v; return this; }
    public FabricConfig fabricLinkDelayPs(long v) { fabricLinkDelayPs = v; return this; }
    public FabricConfig bufferBytes(long v) { bufferBytes = v; return this; }
    public FabricConfig ecn(long kmin, long kmax, double pmax) {
        ecnKminBytes = kmin; ecnKmaxBytes = kmax; ecnPmax = pmax; return this;
    }
    public FabricConfig linkLoss(double v) { linkLoss = v; return this; }

    public int leaves() { return (hosts + hostsPerLeaf - 1) / hostsPerLeaf; }

    /** Oversubscription ratio at the leaves (host-facing over spine-facing capacity). */
    public double oversubscription() {
        return (double) hostsPerLeaf * hostRateBps / ((double) spines * fabricRateBps);
    }
}
