package io.metaroce.sim.metrics;

import io.metaroce.sim.control.ControllerConfig;
import io.metaroce.sim.control.FabricTelemetry;
import io.metaroce.sim.control.FlowController;
import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Timer;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;

import java.util.List;
import java.util.Map;

/**
 * The ground truth E7 judges a controller by, sampled every interval whether or not a controller runs: a
 * switch-to-switch link is hot when the queue feeding it holds at least {@code hotQueueBytes} at the sample or
 * it was paused by PFC during the interval (the same test as {@link FlowController}'s, with the experiment's own
 * sample interval).
 *
 * <p>Metrics: {@code hot_onset_us} (start of the first interval with a hot link), {@code time_to_relieve_us}
 * (from the onset to the end of the last hot interval when at least {@code reliefSamples} cool intervals follow
 * it before the workload ends; otherwise to the end of the workload, and {@code relieved_before_end} is false;
 * 0 when no link was ever hot), {@code hot_time_us} (intervals with a hot link, summed), {@code hot_link_samples}. Series {@code hot_links}: hot links and the
 * deepest fabric queue per interval.
 */
public final class HotLinkWatch implements EventHandler {
    private final EventLoop loop;
    private final long intervalPs;
    private final ControllerConfig cfg;
    private final FabricTelemetry telemetry;
    private final Timer timer;
    private final SeriesRecorder series;
    private long last;

    /**
     * Samples the switch-to-switch links of {@code fabric} every {@code intervalPs} (picoseconds) with the hot-link
     * test of {@code cfg}.
     */
    public HotLinkWatch(EventLoop loop, Fabric fabric, ControllerConfig cfg, long intervalPs) {
        this.loop = loop;
        this.intervalPs = intervalPs;
        this.cfg = cfg;
        this.telemetry = new FabricTelemetry(fabric);
        this.timer = new Timer(loop, this);
        this.series = new SeriesRecorder("hot_links", "Hot switch-to-switch links (queue >= " + cfg.hotQueueBytes
                + " B or paused) and the deepest fabric queue", Series.TIME_US, "links / KB",
                List.of("hot links", "deepest queue (KB)"));
    }

    /** Takes the first sample one interval after {@code startPs}. */
    public void start(long startPs) {
        last = startPs;
        timer.set(startPs + intervalPs, 0);
    }

    /** Stops sampling. */
    public void stop() {
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
    public void metrics(Map<String, Object> m, long endPs, FlowController controller) {
        long onset = -1;
        long lastHotEnd = -1;
        long hotSamples = 0;
        long lastEnd = -1;
        for (int i = 0; i < series.size(); i++) {
            long t = Math.round(series.x(i) * Units.PS_PER_US);
            if (t - intervalPs >= endPs) {
                break; // samples after the workload ended
            }
            lastEnd = t;
            if (series.get(0, i) > 0) {
                hotSamples++;
                lastHotEnd = t;
                if (onset < 0) {
                    onset = t - intervalPs;
                }
            }
        }
        // relieved at the end of the last hot interval, if the fabric then stays cool for reliefSamples intervals
        // to the end of the workload; a fabric hot to the end is relieved only by the workload ending
        boolean relieved = onset >= 0 && (lastEnd - lastHotEnd) / intervalPs >= cfg.reliefSamples;
        long relief = onset < 0 ? -1 : relieved ? lastHotEnd : Math.max(lastHotEnd, endPs);
        m.put("hot_onset_us", onset < 0 ? Double.NaN : onset / (double) Units.PS_PER_US);
        m.put("time_to_relieve_us", onset < 0 ? 0.0 : (relief - onset) / (double) Units.PS_PER_US);
        m.put("relieved_before_end", onset < 0 || relieved);
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

    /** The {@code hot_links} series: hot links and the deepest fabric queue (KB) per sample. */
    public Series toSeries() {
        return series.toSeries();
    }
}
