package io.metaroce.sim.roce;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The DCQCN reaction point's state machine on a bare event loop (no fabric). */
class DcqcnTest {
    private static final long LINE = 100_000_000_000L;
    private static final double G = 1.0 / 256;

    /** The DCQCN paper's target clamping, timer only. */
    private static RoceConfig timerOnly() {
        return new RoceConfig().byteCounterBytes(0).clampTargetRate(true);
    }

    private static void assertRate(double expected, double actual) {
        assertEquals(expected, actual, expected * 1e-12, () -> "rate " + actual + " vs " + expected);
    }

    @Test
    void firstCnpHalvesTheRateAndLaterCnpsWaitForTheDecreaseInterval() {
        EventLoop loop = new EventLoop();
        Dcqcn d = new Dcqcn(loop, timerOnly(), LINE);
        assertRate(LINE, d.rateBps());
        d.onCnp(); // t = 0, alpha = alphaInit = 1
        assertRate(50e9, d.rateBps());
        assertRate(LINE, d.targetBps());
        assertEquals(1, d.decreases());

        loop.run(Units.psFromUs(2));
        d.onCnp(); // within 4 us of the last decrease: deferred to t = 4 us
        assertEquals(1, d.decreases());
        loop.run(Units.psFromUs(4) - 1);
        assertEquals(1, d.decreases(), "not before the interval ends");
        loop.run(Units.psFromUs(4));
        assertEquals(2, d.decreases());
        // alpha: periods of 1 us from t = 0; the first CNP does not count, the one at 2 us counts in [2, 3)
        double alpha = Math.pow(1 - G, 2);            // ticks at 1 and 2 us, no CNP
        alpha = (1 - G) * alpha + G;                  // tick at 3 us: CNP in [2, 3)
        alpha *= 1 - G;                               // tick at 4 us
        assertEquals(alpha, d.alpha(), 1e-15);
        assertRate(50e9 * (1 - alpha / 2), d.rateBps());
        assertRate(50e9, d.targetBps(), "target clamped to the rate before the cut");
    }

    private static void assertRate(double expected, double actual, String what) {
        assertEquals(expected, actual, expected * 1e-12, what);
    }

    @Test
    void timerDrivesFastRecoveryThenAdditiveThenHyperIncrease() {
        EventLoop loop = new EventLoop();
        RoceConfig cfg = timerOnly();
        Dcqcn d = new Dcqcn(loop, cfg, LINE);
        d.onCnp();
        double rate = 50e9;
        double target = 100e9;
        long t = cfg.rateIncreaseTimerPs;
        loop.run(t - 1);
        assertRate(rate, d.rateBps(), "no increase before the timer");
        loop.run(t);
        rate = (rate + target) / 2; // fast recovery (1 stage)
        assertRate(rate, d.rateBps(), "fast recovery");
        assertRate(target, d.targetBps(), "fast recovery keeps the target");
        // cut again so the target is below line rate and the increase steps are visible
        d.onCnp();
        double alpha = d.alpha();
        target = rate;
        rate = rate * (1 - alpha / 2);
        assertRate(rate, d.rateBps(), "second cut");
        t = loop.nowPs() + cfg.rateIncreaseTimerPs;
        loop.run(t);
        rate = (rate + target) / 2;
        assertRate(rate, d.rateBps(), "fast recovery after the second cut");
        loop.run(t += cfg.rateIncreaseTimerPs);
        target += 20e6;
        rate = (rate + target) / 2;
        assertRate(target, d.targetBps(), "additive increase of the target");
        assertRate(rate, d.rateBps(), "additive increase");
        for (int i = 0; i < 3; i++) {
            loop.run(t += cfg.rateIncreaseTimerPs);
            target += 200e6;
            rate = (rate + target) / 2;
            assertRate(target, d.targetBps(), "hyper increase of the target");
            assertRate(rate, d.rateBps(), "hyper increase");
        }
        assertEquals(6, d.increases());
    }

    @Test
    void rateNeverFallsBelowTheMinimumAndRecoversToLineRate() {
        EventLoop loop = new EventLoop();
        Dcqcn d = new Dcqcn(loop, timerOnly(), LINE);
        for (int i = 0; i < 250; i++) { // a CNP every 4 us for 1 ms
            loop.run(Units.psFromUs(4L * i));
            d.onCnp();
            assertTrue(d.rateBps() >= 1e9);
        }
        assertRate(1e9, d.rateBps(), "at the 1 Gb/s floor");
        // one marked 1 us period in four: alpha falls from 1 towards g (1-g)^3 / (1 - (1-g)^4) ~ 0.25
        double fixedPoint = G * Math.pow(1 - G, 3) / (1 - Math.pow(1 - G, 4));
        assertTrue(d.alpha() > fixedPoint && d.alpha() < fixedPoint + 0.03, "alpha " + d.alpha());
        assertTrue(d.increasing());
        // no more CNPs: alpha decays and the timer brings the rate back (HAI 200 Mb/s per 300 us)
        loop.run(Units.psFromMs(300));
        assertRate(LINE, d.rateBps(), "back at line rate");
        assertFalse(d.increasing(), "clocks stop at line rate");
        assertTrue(d.alpha() < 1e-6, "alpha decayed: " + d.alpha());
        long events = loop.eventsProcessed();
        loop.run(Units.psFromMs(400));
        assertEquals(events, loop.eventsProcessed(), "no events once at line rate");
    }

    @Test
    void byteCounterAlsoDrivesIncreasesAndHyperNeedsBothClocks() {
        EventLoop loop = new EventLoop();
        RoceConfig cfg = new RoceConfig().byteCounterBytes(1 << 20).clampTargetRate(true);
        cfg.rateIncreaseTimerPs = Units.psFromMs(10);
        Dcqcn d = new Dcqcn(loop, cfg, LINE);
        d.onBytesSent(4 << 20);
        assertEquals(0, d.increases(), "the byte counter runs only after a cut");
        d.onCnp();
        double rate = 50e9;
        double target = 100e9;
        d.onBytesSent((1 << 20) - 1);
        assertEquals(0, d.increases());
        d.onBytesSent(1);
        rate = (rate + target) / 2;
        assertRate(rate, d.rateBps(), "byte counter: fast recovery");
        assertEquals(1, d.byteStage());
        // with the timer still at stage 0, further byte-counter events are additive, never hyper
        d.onCnp(); // deferred (within 4 us): nothing changes yet
        assertRate(rate, d.rateBps(), "deferred cut");
        loop.run(Units.psFromUs(4));
        assertEquals(0, d.byteStage(), "the cut restarts the stages");
        rate = d.rateBps();
        target = d.targetBps();
        d.onBytesSent(1 << 20); // FR
        rate = (rate + target) / 2;
        for (int i = 0; i < 4; i++) {
            d.onBytesSent(1 << 20);
            target += 20e6;
            rate = (rate + target) / 2;
            assertRate(target, d.targetBps(), "additive while the timer is in fast recovery");
        }
        assertRate(rate, d.rateBps(), "after byte-counter events");
        assertEquals(5, d.byteStage());
        assertEquals(0, d.timerStage());
    }

    @Test
    void withoutClampingBackToBackCutsKeepTheTargetSoFastRecoveryReturnsTowardsIt() {
        EventLoop loop = new EventLoop();
        RoceConfig cfg = new RoceConfig(); // HPCC ns-3 defaults: no clamping, no byte counter
        assertFalse(cfg.clampTargetRate);
        assertEquals(0, cfg.byteCounterBytes);
        Dcqcn d = new Dcqcn(loop, cfg, LINE);
        for (int i = 0; i < 5; i++) {
            loop.run(Units.psFromUs(4L * i));
            d.onCnp();
        }
        assertEquals(5, d.decreases());
        assertRate(LINE, d.targetBps(), "the first cut sets the target; the next four keep it");
        double rate = d.rateBps();
        assertTrue(rate < 10e9, "five cuts: " + rate);
        loop.run(Units.psFromUs(16) + cfg.rateIncreaseTimerPs);
        rate = (rate + LINE) / 2;
        assertRate(rate, d.rateBps(), "fast recovery halfway back to the rate before the burst");
        d.onCnp(); // after an increase event the cut clamps the target again
        assertRate(rate, d.targetBps(), "clamped after an increase");
    }

    @Test
    void badConfigIsRejected() {
        RoceConfig cfg = new RoceConfig();
        cfg.g = 0;
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                cfg::validate);
        assertTrue(e.getMessage().contains("g must be"), e.getMessage());
    }
}
