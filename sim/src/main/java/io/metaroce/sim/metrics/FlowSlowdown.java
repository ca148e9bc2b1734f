package io.metaroce.sim.metrics;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.workload.Workload;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Flow completion time slowdown (E6): each completed flow's FCT over the FCT it would have alone on an idle fabric,
 * its bytes at the host's full rate (every plane) plus one base round trip. Metrics {@code fct_slowdown_mean},
 * {@code fct_slowdown_p99}, {@code fct_slowdown_max} (completed flows only; NaN when none completed).
 */
public final class FlowSlowdown {
    private FlowSlowdown() {
    }

    /**
     * Puts the slowdown metrics of the completed {@code flows} into {@code m}, with {@code baseRttPs} (picoseconds)
     * the unloaded round trip added to each ideal FCT.
     */
    public static void metrics(Map<String, Object> m, List<Workload.Flow> flows, FabricConfig fc, long baseRttPs) {
        double[] s = new double[flows.size()];
        int n = 0;
        for (Workload.Flow f : flows) {
            if (f.ok()) {
                double idealPs = f.bytes * 8.0 * Units.PS_PER_S / ((double) fc.hostRateBps * fc.planes) + baseRttPs;
                s[n++] = (f.finishPs - f.startPs) / idealPs;
            }
        }
        double[] done = Arrays.copyOf(s, n);
        Arrays.sort(done);
        double sum = 0;
        for (double v : done) {
            sum += v;
        }
        m.put("fct_slowdown_mean", n == 0 ? Double.NaN : sum / n);
        m.put("fct_slowdown_p99", n == 0 ? Double.NaN : done[Math.max(0, (int) Math.ceil(0.99 * n) - 1)]);
        m.put("fct_slowdown_max", n == 0 ? Double.NaN : done[n - 1]);
    }
}
