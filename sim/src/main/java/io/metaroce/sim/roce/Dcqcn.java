package io.metaroce.sim.roce;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Timer;

/**
 * The DCQCN reaction point of one QP (DCQCN paper, SIGCOMM 2015; the Mellanox model of the HPCC ns-3
 * simulator): a current rate {@code Rc}, a target rate {@code Rt} and the congestion estimate {@code alpha},
 * driven by CNPs and by two increase clocks.
 *
 * <ul>
 *   <li>Decrease, on a CNP, at most once per {@link RoceConfig#rateDecreaseIntervalPs} (a CNP arriving sooner
 *       is applied when the interval ends, as the ns-3 decrease tick does): {@code Rt = Rc} (unless
 *       {@link RoceConfig#clampTargetRate} is off and no increase happened since the previous cut),
 *       {@code Rc = max(minRate, Rc (1 - alpha / 2))}; both increase
 *       stages and the byte counter restart, and the increase timer restarts.</li>
 *   <li>Alpha, per period of {@link RoceConfig#alphaResumeIntervalPs} starting at the first CNP:
 *       {@code alpha = (1 - g) alpha + g} if a CNP arrived in the period, else {@code alpha = (1 - g) alpha}.
 *       Evaluated lazily (a closed form over the elapsed periods) instead of one event per microsecond per
 *       QP: the values are those of the periodic update.</li>
 *   <li>Increase events come from the timer (every {@link RoceConfig#rateIncreaseTimerPs}) and from the byte
 *       counter (every {@link RoceConfig#byteCounterBytes} sent, 0 disables it). With {@code T} and {@code BC}
 *       the events of each clock since the last decrease (this one included) and {@code F} =
 *       {@link RoceConfig#fastRecoveryTimes}: fast recovery while {@code max(T, BC) <= F}; hyper increase
 *       ({@code Rt += HAI}) once {@code min(T, BC) > F + 1}; additive increase ({@code Rt += AI}) otherwise;
 *       then {@code Rc = (Rt + Rc) / 2}. Without the byte counter this is exactly the ns-3 staging: F fast
 *       recovery events, one additive, then hyper.</li>
 * </ul>
 * Rates stay within {@code [minRate, lineRate]}. Once the rate is back at line rate the increase clocks stop
 * (further events would change nothing) until the next CNP. Uses only the {@link EventLoop}'s virtual time.
 */
public final class Dcqcn {
    private final EventLoop loop;
    private final RoceConfig cfg;
    private final double lineBps;
    private final double minBps;
    private final Timer increaseTimer;
    private final Timer decreaseTimer;
    private double rate;
    private double target;
    private double alpha;
    private long alphaPeriodStartPs;
    private boolean cnpInPeriod;
    private boolean seenCnp;
    private long lastDecreasePs;
    private boolean decreasePending;
    private boolean increasing;
    private int timerStage;
    private int byteStage;
    private long bytesSinceIncrease;
    private long decreases;
    private long increases;
    private long cnps;

    /** A reaction point at line rate {@code lineBps} (its current and target rate until the first CNP). */
    public Dcqcn(EventLoop loop, RoceConfig cfg, long lineBps) {
        if (lineBps <= 0) {
            throw new IllegalArgumentException("line rate must be > 0 b/s, got " + lineBps);
        }
        this.loop = loop;
        this.cfg = cfg;
        this.lineBps = lineBps;
        this.minBps = Math.min(lineBps, cfg.minRateMbps * 1e6);
        this.rate = lineBps;
        this.target = lineBps;
        this.alpha = cfg.alphaInit;
        this.increaseTimer = new Timer(loop, arg -> onIncreaseTimer());
        this.decreaseTimer = new Timer(loop, arg -> onDecreaseTimer());
    }

    /** Current sending rate, b/s. */
    public double rateBps() { return rate; }
    /** Target rate, b/s. */
    public double targetBps() { return target; }
    /** Alpha as of now. */
    public double alpha() {
        advanceAlpha(loop.nowPs());
        return alpha;
    }
    /** Rate decreases applied. */
    public long decreases() { return decreases; }
    /** Increase events applied (fast recovery, additive and hyper). */
    public long increases() { return increases; }
    /** CNPs received. */
    public long cnps() { return cnps; }
    /** Timer increase events since the last decrease. */
    public int timerStage() { return timerStage; }
    /** Byte-counter increase events since the last decrease. */
    public int byteStage() { return byteStage; }
    /** True while the increase clocks run (the rate is below line rate). */
    public boolean increasing() { return increasing; }

    /** A CNP for this QP arrived now. */
    public void onCnp() {
        long now = loop.nowPs();
        cnps++;
        if (!seenCnp) {
            // ns-3: the first CNP starts the alpha clock at alphaInit and does not count in its first period
            seenCnp = true;
            alpha = cfg.alphaInit;
            alphaPeriodStartPs = now;
            cnpInPeriod = false;
            decrease(now);
            return;
        }
        advanceAlpha(now);
        cnpInPeriod = true;
        long allowedPs = lastDecreasePs + cfg.rateDecreaseIntervalPs;
        if (now >= allowedPs) {
            decrease(now);
        } else if (!decreasePending) {
            decreasePending = true;
            decreaseTimer.set(allowedPs, 0);
        }
    }

    /** {@code bytes} (wire length of a data packet, original or resent) were sent now: the byte counter. */
    public void onBytesSent(int bytes) {
        if (!increasing || cfg.byteCounterBytes <= 0) {
            return;
        }
        bytesSinceIncrease += bytes;
        if (bytesSinceIncrease >= cfg.byteCounterBytes) {
            bytesSinceIncrease -= cfg.byteCounterBytes;
            byteStage++;
            increase();
        }
    }

    /** Stops the clocks (the QP is gone); later CNPs restart them. */
    public void stop() {
        increaseTimer.cancel();
        decreaseTimer.cancel();
        decreasePending = false;
        increasing = false;
    }

    private void advanceAlpha(long now) {
        long period = cfg.alphaResumeIntervalPs;
        if (!seenCnp || period <= 0 || now - alphaPeriodStartPs < period) {
            return;
        }
        long k = (now - alphaPeriodStartPs) / period;
        double keep = 1 - cfg.g;
        alpha = keep * alpha + (cnpInPeriod ? cfg.g : 0);
        cnpInPeriod = false;
        if (k > 1) {
            alpha *= StrictMath.pow(keep, k - 1);
        }
        alphaPeriodStartPs += k * period;
    }

    private void decrease(long now) {
        advanceAlpha(now);
        // ns-3: clamp = ClampTargetRate || an increase happened since the last cut (the first cut always)
        if (cfg.clampTargetRate || timerStage > 0 || byteStage > 0 || !increasing) {
            target = rate;
        }
        rate = Math.max(minBps, rate * (1 - alpha / 2));
        timerStage = 0;
        byteStage = 0;
        bytesSinceIncrease = 0;
        lastDecreasePs = now;
        decreasePending = false;
        decreases++;
        increasing = true;
        increaseTimer.set(now + cfg.rateIncreaseTimerPs, 0);
    }

    private void onDecreaseTimer() {
        if (decreasePending) {
            decrease(loop.nowPs());
        }
    }

    private void onIncreaseTimer() {
        if (!increasing) {
            return;
        }
        timerStage++;
        increase();
        if (increasing) {
            increaseTimer.set(loop.nowPs() + cfg.rateIncreaseTimerPs, 0);
        }
    }

    private void increase() {
        int f = cfg.fastRecoveryTimes;
        int hi = cfg.byteCounterBytes > 0 ? Math.max(timerStage, byteStage) : timerStage;
        int lo = cfg.byteCounterBytes > 0 ? Math.min(timerStage, byteStage) : timerStage;
        if (hi > f) { // past fast recovery (which only moves the rate towards the target)
            target += (lo > f + 1 ? cfg.rateHaiMbps : cfg.rateAiMbps) * 1e6;
        }
        target = Math.min(target, lineBps);
        rate = Math.min(lineBps, Math.max(minBps, (target + rate) / 2));
        increases++;
        if (target >= lineBps && lineBps - rate < 1) {
            // back at line rate (within 1 b/s, the resolution of ns-3's integer DataRate)
            rate = lineBps;
            increasing = false;
            increaseTimer.cancel();
        }
    }
}
