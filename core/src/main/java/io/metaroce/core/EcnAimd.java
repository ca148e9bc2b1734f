package io.metaroce.core;

/**
 * DCTCP-style ECN-driven AIMD (spec CC-1..CC-6, CC-10), one instance per route ({@link SharedPath}, PATH-15). Slow
 * start (the window grows by the bytes acknowledged) up to the slow-start threshold, then additive increase of one MTU
 * per RTT while unmarked; once per observation window (one smoothed RTT of the route) alpha moves toward the marked
 * fraction with gain g and, if
 * anything was marked, the window shrinks by alpha/2. Loss without marks shrinks it by {@code lossBeta} at most
 * once per window: on a lossy fabric random loss is not congestion. A timeout resets it to one packet and
 * halves the threshold, so the path climbs back in a few RTTs instead of one MTU per RTT.
 */
public final class EcnAimd implements CongestionControl {
    private final SharedPath path;
    /**
     * The engine's settings, read when needed rather than copied: one instance per route and peer (PATH-15) made
     * ~40 bytes of copies per route, 21 MB at 8,192 hosts and 64 paths.
     */
    private final EngineConfig cfg;

    private double cwndBytes;
    private double ssthreshBytes;
    private double alpha;
    /** Packets acknowledged and marked in the current observation window (one smoothed RTT, CC-3). */
    private int obsAcked;
    private int obsMarked;
    /** When the current observation window ends (CC-3). */
    private long obsEndNs;
    /** Before this time a loss does not cut again (CC-4: at most once per round trip). */
    private long lossCutEndNs;
    /** RTO-7: the window and threshold before the first timeout of a series. */
    private double cwndBeforeRto;
    private double ssthreshBeforeRto;

    /** The controller of the route {@code path}. */
    public EcnAimd(SharedPath path, EngineConfig cfg) {
        this.path = path;
        this.cfg = cfg;
    }

    /** CC-10: the smallest window, in bytes (one packet, or less when {@code minWindowBytes} says so). */
    private double minCwnd() {
        return Math.min(cfg.minWindowBytes, cfg.mtu);
    }

    /**
     * CC-1: a path's share of its connection's initial window: {@code initialWindowBytes / paths}, at least one
     * packet and at most {@code initialWindowPackets}.
     */
    static double initialWindowBytes(EngineConfig cfg) {
        double share = (double) cfg.connectionInitialWindowBytes() / cfg.paths;
        return Math.min((double) cfg.mtu * cfg.initialWindowPackets, Math.max(cfg.mtu, share));
    }

    @Override
    public void onStart() {
        double initCwnd = initialWindowBytes(cfg);
        cwndBytes = initCwnd;
        ssthreshBytes = initCwnd; // slow start only to recover after a timeout
        alpha = 0;
        obsAcked = 0;
        obsMarked = 0;
        obsEndNs = Long.MIN_VALUE; // the first acknowledgement ends the first window
        lossCutEndNs = Long.MIN_VALUE;
    }

    @Override
    public void onAck(int ackedPackets, long ackedBytes, int markedPackets, long nowNs) {
        int marked = Math.min(markedPackets, ackedPackets);
        obsAcked += ackedPackets;
        obsMarked += marked;
        int mtu = cfg.mtu;
        if (marked == 0) {
            double grow;
            if (cwndBytes < mtu) {
                grow = minCwnd() * ackedPackets; // CC-10: below one packet, one minimum window per packet acknowledged
            } else {
                grow = cwndBytes < ssthreshBytes ? ackedBytes : (double) mtu * ackedBytes / cwndBytes;
            }
            cwndBytes = Math.min((double) mtu * cfg.maxWindowPackets, cwndBytes + grow);
        }
        // The observation window ends one smoothed RTT after it began: the packets sent when it began are resolved.
        if ((obsEndNs == Long.MIN_VALUE || nowNs - obsEndNs >= 0) && obsAcked > 0) {
            double f = (double) obsMarked / obsAcked;
            double gain = cfg.ecnGain;
            alpha = (1 - gain) * alpha + gain * f;
            if (obsMarked > 0) {
                cwndBytes = Math.max(minCwnd(), cwndBytes * (1 - alpha / 2));
                ssthreshBytes = cwndBytes;
            }
            obsAcked = 0;
            obsMarked = 0;
            obsEndNs = nowNs + path.srttNs();
        }
    }

    @Override
    public void onLoss(long nowNs) {
        if ((lossCutEndNs == Long.MIN_VALUE || nowNs - lossCutEndNs >= 0) && path.congestedNow(nowNs)) {
            cwndBytes = Math.max(minCwnd(), cwndBytes * (1 - cfg.lossBeta));
            ssthreshBytes = cwndBytes;
            lossCutEndNs = nowNs + path.srttNs();
        }
    }

    @Override
    public void onTimeout(long nowNs, boolean firstOfSeries) {
        if (firstOfSeries) {
            cwndBeforeRto = cwndBytes;
            ssthreshBeforeRto = ssthreshBytes;
        }
        int mtu = cfg.mtu;
        ssthreshBytes = Math.max(2.0 * mtu, cwndBytes / 2);
        cwndBytes = Math.max(minCwnd(), Math.min(mtu, cwndBytes)); // CC-6: one packet (or less, if already below)
        lossCutEndNs = nowNs + path.srttNs();
        obsEndNs = nowNs + path.srttNs();
        obsAcked = 0;
        obsMarked = 0;
    }

    @Override
    public void undoTimeout() {
        cwndBytes = Math.max(cwndBytes, cwndBeforeRto);
        ssthreshBytes = Math.max(ssthreshBytes, ssthreshBeforeRto);
    }

    @Override
    public double cwndBytes() {
        return cwndBytes;
    }

    @Override
    public double alpha() {
        return alpha;
    }
}
