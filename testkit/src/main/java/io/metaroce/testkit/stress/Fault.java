package io.metaroce.testkit.stress;

import io.metaroce.testkit.Network;

/**
 * One scripted change of the network at a virtual time.
 *
 * @param atNs   when, in ns of virtual time
 * @param kind   what changes
 * @param target the plane or path id it applies to (-1 for network-wide kinds)
 * @param p      a probability (loss, reorder, duplicate, corrupt, CE) where the kind has one
 * @param delayNs the largest extra delay of a reordered datagram, in ns (REORDER only)
 */
public record Fault(long atNs, Kind kind, int target, double p, long delayNs) {
    /** What a fault changes. */
    public enum Kind {
        LOSS, PLANE_LOSS, PATH_LOSS, REORDER, DUPLICATE, CORRUPT, ECN_MARK, PLANE_DOWN, PLANE_UP, PATH_DOWN, PATH_UP,
        /** Switch ports trim what their buffer cannot take (REL-17): a feature of the network, not undone at heal. */
        TRIMMING
    }

    /** Applies this change to {@code net}. */
    public void apply(Network net) {
        switch (kind) {
            case LOSS -> net.setLoss(p);
            case PLANE_LOSS -> net.setPlaneLoss(target, p);
            case PATH_LOSS -> net.setPathLoss(target, p);
            case REORDER -> net.setReorder(p, delayNs);
            case DUPLICATE -> net.setDuplicate(p);
            case CORRUPT -> net.setCorrupt(p);
            case ECN_MARK -> net.setEcnMarkProbability(p);
            case PLANE_DOWN -> net.setPlaneUp(target, false);
            case PLANE_UP -> net.setPlaneUp(target, true);
            case PATH_DOWN -> net.setPathUp(target, false);
            case PATH_UP -> net.setPathUp(target, true);
            case TRIMMING -> net.setTrimming(true);
        }
    }

    @Override
    public String toString() {
        String what = switch (kind) {
            case LOSS, DUPLICATE, CORRUPT, ECN_MARK -> kind + " " + pct(p);
            case PLANE_LOSS, PATH_LOSS -> kind + " " + target + " " + pct(p);
            case REORDER -> kind + " " + pct(p) + " up to " + delayNs + " ns";
            case TRIMMING -> kind.toString();
            default -> kind + " " + target;
        };
        return "@" + atNs + "ns " + what;
    }

    private static String pct(double v) {
        return String.format("%.2f%%", v * 100);
    }
}
