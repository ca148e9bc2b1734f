package io.metaroce.sim.metrics;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.transport.MetaRoceTransport;
import io.metaroce.sim.transport.TailRecoveryMeter;
import io.metaroce.sim.transport.Transport;
import io.metaroce.sim.workload.Workload;

import java.util.Map;

/**
 * The metrics every record carries about its loss model, and those of a collective as nccl-tests prints them.
 *
 * <p>Loss: {@code loss_model} ({@code per-link} or {@code end-to-end}, see {@link FabricConfig#lossModel}),
 * {@code loss_rate} (the configured {@code fabric.linkLoss}) and {@code loss_e2e_rate}, the measured fraction of
 * the packets hosts sent (data and control) that random loss took somewhere on their way: {@code loss_rate} under
 * the end-to-end model, 1 - (1 - loss_rate)^hops averaged over the traffic under the per-link model.
 *
 * <p>Collectives (nccl-tests' columns, its PERFORMANCE.md definitions): {@code collective} (the workload kind), {@code ranks},
 * {@code size_bytes} (the buffer per rank), {@code count} and {@code type} (elements of {@code float}, 4 bytes),
 * {@code time_us}, {@code algbw_GBps} (size / time, GB/s = 1e9 bytes/s) and {@code busbw_GBps} (algbw times
 * 2(N-1)/N for all-reduce, (N-1)/N for all-to-all). With MetaRoCE also {@code tail_recovery_us_p50} and
 * {@code tail_recovery_us_p99} (see {@link TailRecoveryMeter}).
 */
public final class CollectiveMetrics {
    /** Bytes of nccl-tests' default element type, float. */
    static final int TYPE_BYTES = 4;

    private CollectiveMetrics() {
    }

    /** Adds the loss-model metrics of {@code fabric} (configured by {@code fc}) to {@code m}. */
    public static void loss(Map<String, Object> m, FabricConfig fc, Fabric fabric) {
        m.put("loss_model", fc.lossModel);
        m.put("loss_rate", fc.linkLoss);
        long injected = 0;
        for (int h = 0; h < fabric.hosts(); h++) {
            for (int p = 0; p < fabric.planes(); p++) {
                injected += fabric.hostUplink(h, p).packets();
            }
        }
        long lost = 0;
        for (Link l : fabric.links()) {
            lost += l.lossDrops();
        }
        m.put("loss_e2e_rate", injected == 0 ? 0.0 : lost / (double) injected);
    }

    /**
     * Adds the nccl-tests columns of {@code workload} (a collective that ran from {@code startPs} to
     * {@code endPs}) and, for MetaRoCE, the tail recovery times.
     */
    public static void collective(Map<String, Object> m, Workload workload, Transport transport, long startPs, long endPs) {
        if (transport instanceof MetaRoceTransport mt) {
            m.put("tail_recovery_us_p50", mt.tailRecoveryUs(0.5));
            m.put("tail_recovery_us_p99", mt.tailRecoveryUs(0.99));
        }
        if (!workload.collective()) {
            return;
        }
        boolean complete = workload.done() && !workload.aborted();
        long size = workload.collectiveBytes();
        double timeUs = (endPs - startPs) / (double) Units.PS_PER_US;
        double algbw = complete ? size / (timeUs * 1e3) : Double.NaN; // bytes per ns = GB/s
        m.put("collective", workload.kind());
        m.put("ranks", (long) workload.ranks());
        m.put("size_bytes", size);
        m.put("count", size / TYPE_BYTES);
        m.put("type", "float");
        m.put("time_us", complete ? timeUs : Double.NaN);
        m.put("algbw_GBps", algbw);
        m.put("busbw_GBps", algbw * workload.busFactor());
    }
}
