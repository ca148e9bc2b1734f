package io.metaroce.sim.experiment;

import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.workload.WorkloadSpec;

import java.util.Locale;

/**
 * Input checks of one experiment point, run when the file is loaded and on every {@code --set} / {@code --sweep}:
 * a bad value is an input error (one line naming the key, exit 2), never a failed experiment or an
 * OutOfMemoryError. Sizes are checked against this JVM's heap before anything is allocated.
 */
public final class PointChecks {
    /**
     * A lower bound of the heap one simulated host needs per plane, in bytes. Measured (leaf-spine, 1 plane, a
     * 64 KiB permutation): 1024 hosts ran out of heap at -Xmx192m and ran at -Xmx512m, 256 hosts at 64m and 128m,
     * so a host takes 190-500 KiB; this bound is three times lower so that it never refuses a run that fits.
     */
    static final long MIN_BYTES_PER_HOST_PLANE = 64 << 10;

    private PointChecks() {
    }

    /** Throws {@link SpecFields.SpecException} naming the first bad value of {@code s}. */
    public static void check(ExperimentSpec s) {
        try {
            s.fabric.validate();
        } catch (IllegalArgumentException e) {
            throw new SpecFields.SpecException("fabric", e.getMessage());
        }
        WorkloadSpec w = s.workload;
        positive("workload.bytes", w.bytes, true);
        positive("workload.messages", w.messages, false);
        positive("workload.qpsPerPair", w.qpsPerPair, false);
        positive("workload.senders", w.senders, false);
        positive("workload.ranks", w.ranks, true);
        positive("workload.messageGapPs", w.messageGapPs, true);
        positive("workload.startPs", w.startPs, true);
        positive("workload.staggerPs", w.staggerPs, true);
        positive("workload.crossPacketBytes", w.crossPacketBytes, false);
        if (w.crossGbps < 0) {
            throw new SpecFields.SpecException("workload.crossGbps", "must be >= 0, got " + w.crossGbps);
        }
        positive("limitPs", s.limitPs, false);
        positive("sampleIntervalPs", s.sampleIntervalPs, false);
        if (s.fairWindowPs < 0 || s.fairWindowPs % s.sampleIntervalPs != 0
                || s.fairWindowPs / s.sampleIntervalPs > ExperimentSpec.MAX_FAIR_WINDOW_INTERVALS) {
            throw new SpecFields.SpecException("fairWindowPs", "must be 0 or a multiple of sampleIntervalPs ("
                    + s.sampleIntervalPs + " ps) of at most " + ExperimentSpec.MAX_FAIR_WINDOW_INTERVALS
                    + " intervals, got " + s.fairWindowPs + " ps");
        }
        positive("engine.mtu", s.engine.mtu, false);
        positive("engine.paths", s.engine.paths, false);
        memory(s.fabric, Runtime.getRuntime().maxMemory());
    }

    /** Throws when {@code fabric} cannot fit in {@code maxHeapBytes} by the lower bound per host and plane. */
    static void memory(FabricConfig fabric, long maxHeapBytes) {
        long need = (long) fabric.hosts * fabric.planes * MIN_BYTES_PER_HOST_PLANE; // < 2^31 * 2^8 * 2^16: no overflow
        if (need > maxHeapBytes) {
            throw new SpecFields.SpecException("fabric.hosts", String.format(Locale.ROOT,
                    "%d hosts x %d planes need at least %s of heap (%d KiB per host and plane); this JVM has %s "
                            + "(-Xmx, or JAVA_TOOL_OPTIONS): use fewer hosts or planes",
                    fabric.hosts, fabric.planes, bytes(need), MIN_BYTES_PER_HOST_PLANE >> 10, bytes(maxHeapBytes)));
        }
    }

    private static void positive(String key, long v, boolean zeroOk) {
        if (v < 0 || v == 0 && !zeroOk) {
            throw new SpecFields.SpecException(key, "must be " + (zeroOk ? ">= 0" : "> 0") + ", got " + v);
        }
    }

    private static String bytes(long b) {
        double g = b / (double) (1L << 30);
        return g >= 1 ? String.format(Locale.ROOT, "%.1f GiB", g) : String.format(Locale.ROOT, "%d MiB", b >> 20);
    }
}
