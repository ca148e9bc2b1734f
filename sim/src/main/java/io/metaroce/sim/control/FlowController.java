package io.metaroce.sim.control;

import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Timer;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.Switch;
import io.metaroce.sim.transport.Transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The central controller of {@link ControllerConfig} (E7). Every period T it samples {@link FabricTelemetry} and
 * each flow's rate over the period; for the hot links, hottest first (queue depth), it takes the fastest flows
 * crossing them and tries {@code candidates} random source-port entropies, computing each one's path the way the
 * switches hash it ({@link Switch#route}); among the paths with room for the flow on every link and no hot link,
 * the one with the lowest peak load wins if that peak, with the flow added, is below the peak of the flow's
 * current path (a hot link counting as full). The controller
 * updates its view as if the move were done (so two moves in one period do not pile onto one link), and the new
 * entropy takes effect D after the sample. At most {@code movesPerPeriod} moves per period; a flow with a move
 * pending is left alone.
 */
public final class FlowController implements EventHandler {
    private static final int MAX_HOPS = 16;
    private static final int ENTROPIES = 1 << 14;

    private final EventLoop loop;
    private final Fabric fabric;
    private final ControllerConfig cfg;
    private final SteerableFlows flows;
    private final FabricTelemetry telemetry;
    private final SplittableRandom rng;
    private final Timer timer;
    private final EventHandler apply = this::apply;
    private long[] lastBytes = new long[0];
    private long[] pendingUntilPs = new long[0];
    private int[] pendingEntropy = new int[0];
    private long lastSamplePs;
    private long moves;
    private long samples;
    private long hotSamples;
    private final List<Long> moveTimesPs = new ArrayList<>();

    /**
     * A controller for the flows of {@code transport} on {@code fabric}, drawing candidate entropies from {@code
     * rng}; a bad {@code cfg} is an IllegalArgumentException.
     */
    public FlowController(EventLoop loop, Fabric fabric, ControllerConfig cfg, Transport transport, SplittableRandom rng) {
        if (cfg.periodPs <= 0 || cfg.delayPs < 0 || cfg.movesPerPeriod < 1 || cfg.candidates < 1) {
            throw new IllegalArgumentException("controller needs periodPs > 0, delayPs >= 0, movesPerPeriod >= 1 and"
                    + " candidates >= 1");
        }
        this.loop = loop;
        this.fabric = fabric;
        this.cfg = cfg;
        this.flows = SteerableFlows.of(transport);
        this.telemetry = new FabricTelemetry(fabric);
        this.rng = rng;
        this.timer = new Timer(loop, this);
    }

    /** First sample one period after {@code startPs}. */
    public void start(long startPs) {
        lastSamplePs = startPs;
        timer.set(startPs + cfg.periodPs, 0);
    }

    /** Stops the controller (no sample after this). */
    public void stop() {
        timer.cancel();
    }

    /** Flows re-pinned. */
    public long moves() { return moves; }

    /** Telemetry samples taken; those that saw a hot link. */
    public long samples() { return samples; }
    /** Telemetry samples that saw at least one hot link. */
    public long hotSamples() { return hotSamples; }

    /** Time of the first move, or -1. */
    public long firstMovePs() { return moveTimesPs.isEmpty() ? -1 : moveTimesPs.get(0); }

    @Override
    public void onEvent(long arg) {
        long now = loop.nowPs();
        telemetry.sample(now - lastSamplePs);
        int n = flows.count();
        if (lastBytes.length != n) {
            lastBytes = Arrays.copyOf(lastBytes, n);
            pendingUntilPs = Arrays.copyOf(pendingUntilPs, n);
            pendingEntropy = Arrays.copyOf(pendingEntropy, n);
        }
        double[] rate = new double[n];
        for (int f = 0; f < n; f++) {
            long b = flows.bytes(f);
            rate[f] = (b - lastBytes[f]) * 8.0 * Units.PS_PER_S / (now - lastSamplePs);
            lastBytes[f] = b;
        }
        lastSamplePs = now;
        samples++;
        decide(now, rate);
        timer.set(now + cfg.periodPs, 0);
    }

    private void decide(long now, double[] rate) {
        int links = telemetry.size();
        Integer[] hot = new Integer[links];
        int hotCount = 0;
        for (int i = 0; i < links; i++) {
            if (telemetry.hot(i, cfg.hotQueueBytes)) {
                hot[hotCount++] = i;
            }
        }
        if (hotCount == 0) {
            return;
        }
        hotSamples++;
        Arrays.sort(hot, 0, hotCount, (a, b) -> Long.compare(telemetry.queueBytes[b], telemetry.queueBytes[a]));
        double[] load = telemetry.loadBps.clone();
        int[][] pathOf = new int[rate.length][];
        for (int f = 0; f < rate.length; f++) {
            if (rate[f] > 0 && pendingUntilPs[f] <= now) {
                pathOf[f] = path(flows.src(f), flows.dst(f), flows.plane(f), flows.entropy(f));
            }
        }
        int budget = cfg.movesPerPeriod;
        for (int h = 0; h < hotCount && budget > 0; h++) {
            int link = hot[h];
            List<Integer> on = new ArrayList<>();
            for (int f = 0; f < rate.length; f++) {
                if (pathOf[f] != null && contains(pathOf[f], link)) {
                    on.add(f);
                }
            }
            on.sort((a, b) -> Double.compare(rate[b], rate[a]));
            for (int f : on) {
                if (budget == 0) {
                    break;
                }
                if (tryMove(f, rate[f], pathOf[f], load, now)) {
                    pathOf[f] = null;
                    budget--;
                }
            }
        }
    }

    /** Peak load of {@code path}, a hot link counting as at least its capacity. */
    private double peak(int[] path, double[] load) {
        double m = 0;
        for (int l : path) {
            double v = load[l];
            if (telemetry.hot(l, cfg.hotQueueBytes)) {
                v = Math.max(v, telemetry.link(l).rateBps());
            }
            m = Math.max(m, v);
        }
        return m;
    }

    /** True if every link of {@code path} has room for {@code rate} more and none is hot. */
    private boolean fits(int[] path, double[] load, double rate) {
        for (int l : path) {
            if (telemetry.hot(l, cfg.hotQueueBytes) || load[l] + rate > telemetry.link(l).rateBps()) {
                return false;
            }
        }
        return true;
    }

    private boolean tryMove(int f, double rate, int[] current, double[] load, long now) {
        double currentPeak = peak(current, load);
        for (int l : current) {
            load[l] -= rate; // as if the flow left its path
        }
        int bestEntropy = -1;
        int[] bestPath = null;
        double best = Double.POSITIVE_INFINITY;
        for (int c = 0; c < cfg.candidates; c++) {
            int e = rng.nextInt(ENTROPIES);
            int[] p = path(flows.src(f), flows.dst(f), flows.plane(f), e);
            if (Arrays.equals(p, current)) {
                continue;
            }
            double v = peak(p, load) + rate;
            if (v < best && fits(p, load, rate)) {
                best = v;
                bestEntropy = e;
                bestPath = p;
            }
        }
        if (bestPath == null || best >= currentPeak) {
            for (int l : current) {
                load[l] += rate;
            }
            return false;
        }
        for (int l : bestPath) {
            load[l] += rate;
        }
        moves++;
        moveTimesPs.add(now);
        pendingUntilPs[f] = now + cfg.delayPs;
        pendingEntropy[f] = bestEntropy;
        loop.schedule(now + cfg.delayPs, apply, f);
        return true;
    }

    private void apply(long arg) {
        int f = (int) arg;
        flows.setEntropy(f, pendingEntropy[f]);
    }

    /** Fabric link indices a packet from {@code src} to {@code dst} on {@code plane} with {@code entropy} crosses. */
    private int[] path(int src, int dst, int plane, int entropy) {
        int[] out = new int[MAX_HOPS];
        int n = 0;
        Link l = fabric.nics(src)[plane].link();
        for (int hop = 0; hop < MAX_HOPS && l.sink() instanceof Switch s; hop++) {
            int port = s.route(src, dst, entropy);
            if (port < 0) {
                break;
            }
            l = s.port(port).link();
            int i = telemetry.indexOf(l);
            if (i >= 0) {
                out[n++] = i;
            }
        }
        return Arrays.copyOf(out, n);
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }
}
