package io.metaroce.testkit.stress;

import io.metaroce.core.EngineConfig;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the fault plan of a case: random loss (up to 20%, network-wide, per plane, per path, changing during the
 * phase), reordering, duplicates, corruption, CE marks, and path and plane flaps, sometimes every plane at once.
 * Everything happens before the heal time; {@link StressRun} undoes all of it then.
 */
final class FaultPlanner {
    private FaultPlanner() {
    }

    static List<Fault> plan(SplittableRandom r, EngineConfig cfg, long healAtNs) {
        List<Fault> f = new ArrayList<>();
        if (r.nextInt(4) != 0) {
            f.add(new Fault(0, Fault.Kind.LOSS, -1, lossRate(r), 0));
        }
        if (r.nextInt(3) == 0) {
            f.add(new Fault(r.nextLong(healAtNs), Fault.Kind.LOSS, -1, lossRate(r), 0));
        }
        for (int k = r.nextInt(3) == 0 ? 1 + r.nextInt(3) : 0; k > 0; k--) {
            f.add(new Fault(r.nextLong(healAtNs), Fault.Kind.PLANE_LOSS, r.nextInt(cfg.planes), lossRate(r), 0));
        }
        for (int k = r.nextInt(3) == 0 ? 1 + r.nextInt(4) : 0; k > 0; k--) {
            f.add(new Fault(r.nextLong(healAtNs), Fault.Kind.PATH_LOSS, r.nextInt(cfg.paths),
                    r.nextInt(4) == 0 ? 1.0 : lossRate(r), 0));
        }
        if (r.nextBoolean()) {
            f.add(new Fault(0, Fault.Kind.REORDER, -1, r.nextDouble() * 0.3, 1 + r.nextLong(50_000)));
        }
        if (r.nextInt(3) == 0) {
            f.add(new Fault(0, Fault.Kind.DUPLICATE, -1, r.nextDouble() * 0.05, 0));
        }
        if (r.nextInt(3) == 0) {
            f.add(new Fault(0, Fault.Kind.CORRUPT, -1, r.nextDouble() * 0.02, 0));
        }
        if (r.nextInt(3) == 0) {
            f.add(new Fault(0, Fault.Kind.ECN_MARK, -1, r.nextDouble() * 0.2, 0));
        }
        for (int k = r.nextInt(3) == 0 ? 1 + r.nextInt(6) : 0; k > 0; k--) {
            flap(r, f, Fault.Kind.PATH_DOWN, Fault.Kind.PATH_UP, r.nextInt(cfg.paths), healAtNs);
        }
        for (int k = r.nextInt(4) == 0 ? 1 + r.nextInt(3) : 0; k > 0; k--) {
            flap(r, f, Fault.Kind.PLANE_DOWN, Fault.Kind.PLANE_UP, r.nextInt(cfg.planes), healAtNs);
        }
        if (r.nextInt(12) == 0) { // every plane down at once, for a while
            long down = r.nextLong(healAtNs);
            long up = down + r.nextLong(healAtNs - down + 1);
            for (int p = 0; p < cfg.planes; p++) {
                f.add(new Fault(down, Fault.Kind.PLANE_DOWN, p, 0, 0));
                if (r.nextBoolean()) {
                    f.add(new Fault(up, Fault.Kind.PLANE_UP, p, 0, 0));
                }
            }
        }
        f.sort(Comparator.comparingLong(Fault::atNs));
        return List.copyOf(f);
    }

    /** Down at a random time, back up before the heal half the time (else the heal brings it back). */
    private static void flap(SplittableRandom r, List<Fault> f, Fault.Kind down, Fault.Kind up, int target,
                             long healAtNs) {
        long at = r.nextLong(healAtNs);
        f.add(new Fault(at, down, target, 0, 0));
        if (r.nextBoolean()) {
            f.add(new Fault(at + r.nextLong(healAtNs - at + 1), up, target, 0, 0));
        }
    }

    private static double lossRate(SplittableRandom r) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextDouble() * 0.01;
            case 1 -> r.nextDouble() * 0.05;
            default -> r.nextDouble() * 0.20;
        };
    }
}
