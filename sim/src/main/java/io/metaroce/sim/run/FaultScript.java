package io.metaroce.sim.run;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.topology.FabricNames;

import java.util.List;

/** Schedules an experiment's scripted faults ({@link FaultSpec}) on the links of a fabric. */
final class FaultScript {
    private FaultScript() {
    }

    /** Schedules every fault of {@code faults} on {@code loop}; a bad fault is an IllegalArgumentException now. */
    static void schedule(List<FaultSpec> faults, Fabric fabric, EventLoop loop) {
        for (FaultSpec f : faults) {
            String kind = f.kind.trim().toLowerCase(java.util.Locale.ROOT);
            List<Link> targets;
            switch (kind) {
                case "plane-down", "plane-up" -> {
                    if (f.plane < 0 || f.plane >= fabric.planes()) {
                        throw new IllegalArgumentException("fault on plane " + f.plane + " of "
                                + fabric.planes());
                    }
                    targets = fabric.planeLinks(f.plane);
                }
                case "link-down", "link-up" -> targets = List.of(FabricNames.link(fabric, f.link.trim()));
                case "link-loss" -> {
                    if (!(f.loss >= 0 && f.loss <= 1)) {
                        throw new IllegalArgumentException("link-loss probability " + f.loss + " not in [0, 1]");
                    }
                    targets = f.link.isBlank() ? fabric.links() : List.of(FabricNames.link(fabric, f.link.trim()));
                }
                default -> throw new IllegalArgumentException("unknown fault kind '" + f.kind
                        + "' (plane-down, plane-up, link-down, link-up, link-loss)");
            }
            if (f.atPs < 0) {
                throw new IllegalArgumentException("fault " + kind + " at negative time " + f.atPs);
            }
            List<Link> ls = List.copyOf(targets);
            boolean up = kind.endsWith("-up");
            boolean loss = kind.equals("link-loss");
            double p = f.loss;
            loop.schedule(f.atPs, arg -> {
                for (Link l : ls) {
                    if (loss) {
                        l.setLoss(p);
                    } else {
                        l.setUp(up);
                    }
                }
            }, 0);
        }
    }
}
