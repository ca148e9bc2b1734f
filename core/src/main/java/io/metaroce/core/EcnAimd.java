package io.metaroce.core;

/**
 * DCTCP-style ECN-driven AIMD (spec CC-1..CC-6). Slow start (the window grows by the bytes acknowledged) up
 * to the slow-start threshold, then additive increase of one MTU per RTT while unmarked; once per
 * observation window (one RTT, tracked by PSN) alpha moves toward the marked fraction with gain g and, if
 * anything was marked, the window shrinks by alpha/2. Loss without marks shrinks it by {@code lossBeta} at most
 * once per window: on a lossy fabric random loss is not congestion. A timeout resets it to one packet and
 * halves the threshold, so the path climbs back in a few RTTs instead of one MTU per RTT.
 */
public final class EcnAimd implements CongestionControl {
    private final int mtu;
    private final double minCwnd;
    private final double maxCwnd;
    private final double initCwnd;
    private final double gain;
    private final double lossBeta;

    public EcnAimd(EngineConfig cfg) {
        this.mtu = cfg.mtu;
        this.minCwnd = cfg.mtu;
        this.maxCwnd = (double) cfg.mtu * cfg.maxWindowPackets;
        this.initCwnd = (double) cfg.mtu * cfg.initialWindowPackets;
        this.gain = cfg.ecnGain;
        this.lossBeta = cfg.lossBeta;
    }

    @Override
    public void onStart(Path p) {
        p.cwndBytes = initCwnd;
        p.ssthreshBytes = initCwnd; // slow start only to recover after a timeout
        p.alpha = 0;
        p.obsAcked = 0;
        p.obsMarked = 0;
        p.obsEndPsn = p.nextPsn;
        p.lossCutEndPsn = p.nextPsn;
    }

    @Override
    public void onAck(Path p, int ackedPackets, long ackedBytes, int markedPackets, long nowNs) {
        int marked = Math.min(markedPackets, ackedPackets);
        p.obsAcked += ackedPackets;
        p.obsMarked += marked;
        if (marked == 0) {
            double grow = p.cwndBytes < p.ssthreshBytes ? ackedBytes : (double) mtu * ackedBytes / p.cwndBytes;
            p.cwndBytes = Math.min(maxCwnd, p.cwndBytes + grow);
        }
        // The observation window ends once every packet sent when it began has been resolved.
        if (p.floor - p.obsEndPsn >= 0 && p.obsAcked > 0) {
            double f = (double) p.obsMarked / p.obsAcked;
            p.alpha = (1 - gain) * p.alpha + gain * f;
            if (p.obsMarked > 0) {
                p.cwndBytes = Math.max(minCwnd, p.cwndBytes * (1 - p.alpha / 2));
                p.ssthreshBytes = p.cwndBytes;
            }
            p.obsAcked = 0;
            p.obsMarked = 0;
            p.obsEndPsn = p.nextPsn;
        }
    }

    @Override
    public void onLoss(Path p, long nowNs) {
        if (p.floor - p.lossCutEndPsn >= 0 && p.congestedNow(nowNs)) {
            p.cwndBytes = Math.max(minCwnd, p.cwndBytes * (1 - lossBeta));
            p.ssthreshBytes = p.cwndBytes;
            p.lossCutEndPsn = p.nextPsn;
        }
    }

    @Override
    public void onTimeout(Path p, long nowNs) {
        p.ssthreshBytes = Math.max(2.0 * mtu, p.cwndBytes / 2);
        p.cwndBytes = minCwnd;
        p.lossCutEndPsn = p.nextPsn;
        p.obsEndPsn = p.nextPsn;
        p.obsAcked = 0;
        p.obsMarked = 0;
    }
}
