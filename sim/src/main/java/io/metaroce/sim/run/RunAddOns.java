package io.metaroce.sim.run;

import io.metaroce.sim.control.FlowController;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.metrics.CongestionTree;
import io.metaroce.sim.metrics.FlowSlowdown;
import io.metaroce.sim.metrics.HotLinkWatch;
import io.metaroce.sim.metrics.Series;
import io.metaroce.sim.transport.Transport;
import io.metaroce.sim.workload.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The parts of a run that only some experiments use, built from the spec: the E6 congestion-tree view of a
 * hotspot or storm workload ({@link CongestionTree}), the E7 central controller ({@link FlowController},
 * {@code controller.periodPs > 0}) and its hot-link ground truth ({@link HotLinkWatch}), and the FCT slowdown of
 * every run ({@link FlowSlowdown}).
 */
final class RunAddOns {
    /** Salt of the controller's random stream (its own, so the other streams of a run are unchanged). */
    private static final long CONTROLLER_SALT = 0x6a09e667f3bcc908L;

    private final ExperimentSpec spec;
    private final Workload workload;
    private final CongestionTree tree;
    private final FlowController controller;
    private final HotLinkWatch watch;

    RunAddOns(ExperimentSpec spec, EventLoop loop, Fabric fabric, Transport transport, Workload workload) {
        this.spec = spec;
        this.workload = workload;
        this.tree = CongestionTree.applies(workload)
                ? new CongestionTree(loop, fabric, transport, workload, spec.workload, spec.sampleIntervalPs) : null;
        this.controller = spec.controller.periodPs > 0 ? new FlowController(loop, fabric, spec.controller, transport,
                new SplittableRandom(spec.seed ^ CONTROLLER_SALT)) : null;
        this.watch = controller != null || spec.controller.watch
                ? new HotLinkWatch(loop, fabric, spec.controller, spec.sampleIntervalPs) : null;
    }

    void start(long startPs) {
        if (tree != null) {
            tree.start(startPs);
        }
        if (controller != null) {
            controller.start(startPs);
        }
        if (watch != null) {
            watch.start(startPs);
        }
    }

    void stop() {
        if (tree != null) {
            tree.stop();
        }
        if (controller != null) {
            controller.stop();
        }
        if (watch != null) {
            watch.stop();
        }
    }

    /** Adds the metrics of the add-ons to {@code m}; the workload ran from {@code startPs} to {@code endPs}. */
    void metrics(Map<String, Object> m, long startPs, long endPs, long baseRttPs) {
        FlowSlowdown.metrics(m, workload.flows(), spec.fabric, baseRttPs);
        if (tree != null) {
            tree.metrics(m, startPs, endPs);
        }
        if (watch != null) {
            watch.metrics(m, endPs, controller);
        }
    }

    /** The add-ons' series (call after {@link #metrics}). */
    List<Series> series(Map<String, Object> m) {
        List<Series> out = new ArrayList<>();
        if (tree != null) {
            out.addAll(tree.series(m));
        }
        if (watch != null) {
            out.add(watch.toSeries());
        }
        return out;
    }
}
