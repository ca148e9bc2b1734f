package io.metaroce.sim.roce;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;

/**
 * Parameters of the RoCEv2 baseline: one path per QP, go-back-N on a PSN gap, DCQCN rate control driven by
 * CNPs. Defaults are those of the HPCC ns-3 simulator at 100G (the settings the community uses), so the
 * baseline is the one users would defend. The ECN thresholds that go with them (Kmin 400 KB, Kmax 1600 KB,
 * Pmax 0.2) and PFC are fabric settings ({@link FabricConfig}). Public fields of simple types: experiment
 * files set them by name.
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
    /** Go-back-N retransmission timeout: no acknowledged progress for this long resends from the oldest PSN. */
    public long rtoPs = Units.psFromUs(1000);
    /**
     * Retries before the QP errors (RETRY_EXC_ERR); 7 in IB: the QP resends after each of {@code retryCount}
     * consecutive timeouts without progress and fails at the next one.
     */
    public int retryCount = 7;
    /** Limit on unacknowledged bytes per QP (0 = unlimited: rate-based only, as in DCQCN). */
    public long windowBytes = 0;

    // DCQCN (reaction point) -------------------------------------------------------------------------
    /** DCQCN rate control on (false: CNPs are counted but ignored, QPs send at line rate). */
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
    /**
     * Byte counter for rate increase: one increase event per this many bytes sent; 0 (default) disables it,
     * as in the HPCC ns-3 Mellanox model (the DCQCN paper uses 10 MB: hyper increase then also needs the byte
     * counter past its fast recovery, which at low rates takes tens of milliseconds).
     */
    public long byteCounterBytes = 0;
    /** Alpha gain g. */
    public double g = 1.0 / 256;
    /** Fast recovery stages before additive increase. */
    public int fastRecoveryTimes = 1;
    /** Notification point: at most one CNP per QP per this interval. */
    public long cnpIntervalPs = Units.psFromUs(4);
    /** Initial alpha (set at the first CNP). */
    public double alphaInit = 1.0;
    /**
     * True: every decrease sets the target rate to the current rate (DCQCN paper). False (default, HPCC ns-3
     * {@code CLAMP_TARGET_RATE 0}): only the first decrease, and those after an increase event; a burst of
     * back-to-back cuts keeps the target at the rate before the burst, so fast recovery returns towards it.
     */
    public boolean clampTargetRate = false;

    /** Sets {@link #mtu}, payload bytes per packet; returns this. */
    public RoceConfig mtu(int v) { mtu = v; return this; }
    /** Sets {@link #rtoPs}, picoseconds; returns this. */
    public RoceConfig rtoPs(long v) { rtoPs = v; return this; }
    /** Sets {@link #retryCount}; returns this. */
    public RoceConfig retryCount(int v) { retryCount = v; return this; }
    /** Sets {@link #ackEvery}; returns this. */
    public RoceConfig ackEvery(int v) { ackEvery = v; return this; }
    /** Turns DCQCN on or off ({@link #dcqcn}); returns this. */
    public RoceConfig dcqcn(boolean v) { dcqcn = v; return this; }
    /** Sets {@link #windowBytes}; returns this. */
    public RoceConfig windowBytes(long v) { windowBytes = v; return this; }
    /** Sets {@link #byteCounterBytes}; returns this. */
    public RoceConfig byteCounterBytes(long v) { byteCounterBytes = v; return this; }
    /** Sets {@link #clampTargetRate}; returns this. */
    public RoceConfig clampTargetRate(boolean v) { clampTargetRate = v; return this; }

    /** Checks every field, naming the first bad one. */
    public void validate() {
        require(mtu > 0, "mtu must be > 0, got " + mtu);
        require(headerBytes >= 0, "headerBytes must be >= 0, got " + headerBytes);
        require(controlBytes > 0, "controlBytes must be > 0, got " + controlBytes);
        require(ackEvery >= 1, "ackEvery must be >= 1, got " + ackEvery);
        require(rtoPs > 0, "rtoPs must be > 0, got " + rtoPs);
        require(retryCount >= 0, "retryCount must be >= 0, got " + retryCount);
        require(windowBytes >= 0, "windowBytes must be >= 0, got " + windowBytes);
        require(rateAiMbps >= 0 && rateHaiMbps >= 0, "rateAiMbps and rateHaiMbps must be >= 0");
        require(minRateMbps > 0, "minRateMbps must be > 0, got " + minRateMbps);
        require(alphaResumeIntervalPs > 0, "alphaResumeIntervalPs must be > 0, got " + alphaResumeIntervalPs);
        require(rateDecreaseIntervalPs >= 0, "rateDecreaseIntervalPs must be >= 0, got " + rateDecreaseIntervalPs);
        require(rateIncreaseTimerPs > 0, "rateIncreaseTimerPs must be > 0, got " + rateIncreaseTimerPs);
        require(byteCounterBytes >= 0, "byteCounterBytes must be >= 0, got " + byteCounterBytes);
        require(g > 0 && g <= 1, "g must be in (0, 1], got " + g);
        require(fastRecoveryTimes >= 0, "fastRecoveryTimes must be >= 0, got " + fastRecoveryTimes);
        require(cnpIntervalPs >= 0, "cnpIntervalPs must be >= 0, got " + cnpIntervalPs);
        require(alphaInit >= 0 && alphaInit <= 1, "alphaInit must be in [0, 1], got " + alphaInit);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("RoceConfig: " + message);
        }
    }
}
