package io.metaroce.sim;

/**
 * Parameters of the RoCEv2 baseline: one path per QP, go-back-N on a PSN gap, DCQCN rate control driven by
 * CNPs. Defaults are those of the HPCC ns-3 simulator at 100G (the settings the community uses), so the
 * baseline is the one users would defend. The ECN thresholds that go with them (Kmin 400 KB, Kmax 1600 KB,
 * Pmax 0.2) and PFC are fabric settings ({@link FabricConfig}).
 */
public final class RoceConfig {
    /** HPCC ns-3 defaults. */
    public RoceConfig() {
    }

    /** Payload bytes per data packet. */
    public int mtu = 4096;
    /** Header bytes added on the wire per data packet (Eth+IP+UDP+BTH+RETH+ICRC ~ 64 B). */
    public int headerBytes = 64;
    /** Size of ACK/NAK/CNP packets on the wire. */
    public int controlBytes = 64;
    /** Acknowledge every {@code ackEvery} data packets (and every message's last packet). */
    public int ackEvery = 1;
    /** Go-back-N retransmission timeout (no SACK). */
    public long rtoPs = Units.psFromUs(1000);
    /** Retries before the QP errors (RETRY_EXC_ERR); 7 in IB. */
    public int retryCount = 7;
    /** Limit on unacknowledged bytes per QP (0 = unlimited: rate-based only, as in DCQCN). */
    public long windowBytes = 0;

    // DCQCN (reaction point) -------------------------------------------------------------------------
    public boolean dcqcn = true;
    /** Additive increase step (Mb/s). */
    public double rateAiMbps = 20;
    /** Hyper increase step (Mb/s). */
    public double rateHaiMbps = 200;
    /** Minimum rate (Mb/s). */
    public double minRateMbps = 1000;
    /** Alpha update period. */
    public long alphaResumeIntervalPs = Units.psFromUs(1);
    /** Minimum interval between two rate decreases. */
    public long rateDecreaseIntervalPs = Units.psFromUs(4);
    /** Rate increase timer. */
    public long rateIncreaseTimerPs = Units.psFromUs(300);
    /** Byte counter for rate increase (ns-3 default 10 MB... HPCC uses 32 MB-ish; 0 disables). */
    public long byteCounterBytes = 10L << 20;
    /** Alpha gain g. */
    public double g = 1.0 / 256;
    /** Fast recovery rounds before additive increase. */
    public int fastRecoveryTimes = 1;
    /** Notification point: at most one CNP per QP per this interval. */
    public long cnpIntervalPs = Units.psFromUs(4);
    /** Initial alpha. */
    public double alphaInit = 1.0;

    public RoceConfig mtu(int v) { mtu = v; return this; }
    public RoceConfig rtoPs(long v) { rtoPs = v; return this; }
    public RoceConfig dcqcn(boolean v) { dcqcn = v; return this; }
    public RoceConfig windowBytes(long v) { windowBytes = v; return this; }
}
