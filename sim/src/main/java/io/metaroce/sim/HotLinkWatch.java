package io.metaroce.sim;

import java.util.List;
import java.util.Map;

/**
 * The ground truth E7 judges a controller by, sampled every interval whether or not a controller runs: a
 * switch-to-switch link is hot when the queue feeding it holds at least {@code hotQueueBytes} at the sample or
 * it was paused by PFC during the interval (the same test as {@link FlowController}'s, with the experiment's own
 * sample interval).
 *
 * <p>Metrics: {@code hot_onset_us} (start of the first interval with a hot link), {@code time_to_relieve_us}
 * (from the onset to the start of the first run of {@code reliefSamples} intervals without a hot link, or of a
 * shorter run that lasts to the end of the workload; NaN if the fabric never cools down), {@code hot_time_us}
 * (intervals with a hot link, summed), {@code hot_link_samples}. Series {@code hot_links}: hot links and the
 * deepest fabric queue per interval.
 */
final class HotLinkWatch implements EventHandler {
    private final EventLoop loop;
    private final long intervalPs;
    private final ControllerConfig cfg;
    private final FabricTelemetry telemetry;
    private final Timer timer;
    private final SeriesRecorder series;
    private long last;

    HotLinkWatch(EventLoop loop, Fabric fabric, ControllerConfig cfg, long intervalPs) {
        this.loop = loop;
        this.intervalPs = intervalPs;
        this.cfg = cfg;
        this.telemetry = new FabricTelemetry(fabric);
        this.timer = new Timer(loop, this);
        this.series = new SeriesRecorder("hot_links", "Hot switch-to-switch links (queue >= " + cfg.hotQueueBytes
                + " B or paused) and the deepest fabric queue", "time (us)", "links / KB",
                List.of("hot links", "deepest queue (KB)"));
    }

    void start(long startPs) {
        last = startPs;
        timer.set(startPs + intervalPs, 0);
    }

    void stop() {
        timer.cancel();
    }

    @Override
    public void onEvent(long arg) {
        long now = loop.nowPs();
        telemetry.sample(now - last);
        last = now;
        int hot = 0;
        long deepest = 0;
        for (int i = 0; i < telemetry.size(); i++) {
            if (telemetry.hot(i, cfg.hotQueueBytes)) {
                hot++;
            }
            deepest = Math.max(deepest, telemetry.queueBytes[i]);
        }
        series.row(now / (double) Units.PS_PER_US);
        series.set(0, hot);
        series.set(1, deepest / 1000.0);
        timer.set(now + intervalPs, 0);
    }

    /** Adds the metrics of the class comment, and the controller's when {@code controller} is not null. */
    void metrics(Map<String, Object> m, long endPs, FlowController controller) {
        long onset = -1;
        long relief = -1;
        long coolStart = -1;
        int cool = 0;
        long hotSamples = 0;
        for (int i = 0; i < series.size(); i++) {
            long t = Math.round(series.x(i) * Units.PS_PER_US);
            if (t > endPs + intervalPs) {
                break; // samples after the workload ended
            }
            boolean hot = series.get(0, i) > 0;
            if (hot) {
                hotSamples++;
                cool = 0;
                if (onset < 0) {
                    onset = t - intervalPs;
                }
            } else if (onset >= 0 && relief < 0) {
                if (cool++ == 0) {
                    coolStart = t - intervalPs;
                }
                if (cool >= cfg.reliefSamples) {
                    relief = coolStart;
                }
            }
        }
        if (onset >= 0 && relief < 0 && cool > 0) {
            relief = coolStart; // cool to the end of the workload
        }
        m.put("hot_onset_us", onset < 0 ? Double.NaN : onset / (double) Units.PS_PER_US);
        m.put("time_to_relieve_us", onset < 0 ? 0.0 : relief < 0 ? Double.NaN
                : (relief - onset) / (double) Units.PS_PER_US);
        m.put("hot_time_us", hotSamples * intervalPs / (double) Units.PS_PER_US);
        m.put("hot_link_samples", hotSamples);
        if (controller != null) {
            m.put("controller_moves", controller.moves());
            m.put("controller_samples", controller.samples());
            m.put("controller_hot_samples", controller.hotSamples());
            long first = controller.firstMovePs();
            m.put("controller_first_move_us", first < 0 ? Double.NaN : first / (double) Units.PS_PER_US);
        }
    }

    Series toSeries() {
        return series.toSeries();
    }
}
