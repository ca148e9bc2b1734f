package io.metaroce.core;

/**
 * DCTCP-style ECN-driven AIMD (spec CC-1..CC-6), one instance per path. Slow start (the window grows by the bytes
 * acknowledged) up to the slow-start threshold, then additive increase of one MTU per RTT while unmarked; once per
 * observation window (one RTT, tracked by PSN) alpha moves toward the marked fraction with gain g and, if
 * anything was marked, the window shrinks by alpha/2. Loss without marks shrinks it by {@code lossBeta} at most
 * once per window: on a lossy fabric random loss is not congestion. A timeout resets it to one packet and
 * halves the threshold, so the path climbs back in a few RTTs instead of one MTU per RTT.
 */
public final class EcnAimd implements CongestionControl {
    private final Path path;
    private final int mtu;
    private final double minCwnd;
    private final double maxCwnd;
    private final double initCwnd;
    private final double gain;
    private final double lossBeta;

    private double cwndBytes;
    private double ssthreshBytes;
    private double alpha;
    private long obsAcked;
    private long obsMarked;
    private int obsEndPsn;
    private int lossCutEndPsn;
    /** RTO-7: the window and threshold before the first timeout of a series. */
    private double cwndBeforeRto;
    private double ssthreshBeforeRto;

    /** The controller of {@code path}. */
    public EcnAimd(Path path, EngineConfig cfg) {
        this.path = path;
        this.mtu = cfg.mtu;
        this.minCwnd = cfg.mtu;
        this.maxCwnd = (double) cfg.mtu * cfg.maxWindowPackets;
        this.initCwnd = (double) cfg.mtu * cfg.initialWindowPackets;
        this.gain = cfg.ecnGain;
        this.lossBeta = cfg.lossBeta;
    }

    @Override
    public void onStart() {
        cwndBytes = initCwnd;
        ssthreshBytes = initCwnd; // slow start only to recover after a timeout
        alpha = 0;
        obsAcked = 0;
        obsMarked = 0;
        obsEndPsn = path.nextPsn;
        lossCutEndPsn = path.nextPsn;
    }

    @Override
    public void onAck(int ackedPackets, long ackedBytes, int markedPackets, long nowNs) {
        int marked = Math.min(markedPackets, ackedPackets);
        obsAcked += ackedPackets;
        obsMarked += marked;
        if (marked == 0) {
            double grow = cwndBytes < ssthreshBytes ? ackedBytes : (double) mtu * ackedBytes / cwndBytes;
            cwndBytes = Math.min(maxCwnd, cwndBytes + grow);
        }
        // The observation window ends once every packet sent when it began has been resolved.
        if (path.floor - obsEndPsn >= 0 && obsAcked > 0) {
            double f = (double) obsMarked / obsAcked;
            alpha = (1 - gain) * alpha + gain * f;
            if (obsMarked > 0) {
                cwndBytes = Math.max(minCwnd, cwndBytes * (1 - alpha / 2));
                ssthreshBytes = cwndBytes;
            }
            obsAcked = 0;
            obsMarked = 0;
            obsEndPsn = path.nextPsn;
        }
    }

    @Override
    public void onLoss(long nowNs) {
        if (path.floor - lossCutEndPsn >= 0 && path.congestedNow(nowNs)) {
            cwndBytes = Math.max(minCwnd, cwndBytes * (1 - lossBeta));
            ssthreshBytes = cwndBytes;
            lossCutEndPsn = path.nextPsn;
        }
    }

    @Override
    public void onTimeout(long nowNs, boolean firstOfSeries) {
        if (firstOfSeries) {
            cwndBeforeRto = cwndBytes;
            ssthreshBeforeRto = ssthreshBytes;
        }
        ssthreshBytes = Math.max(2.0 * mtu, cwndBytes / 2);
        cwndBytes = minCwnd;
        lossCutEndPsn = path.nextPsn;
        obsEndPsn = path.nextPsn;
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
