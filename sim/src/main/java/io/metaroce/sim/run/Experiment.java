package io.metaroce.sim.run;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.metrics.CollectiveMetrics;
import io.metaroce.sim.roce.RoceTransport;
import io.metaroce.sim.transport.MetaRoceTransport;
import io.metaroce.sim.transport.Transport;

import java.util.SplittableRandom;

/**
 * Runs one {@link ExperimentSpec} point: builds the event loop, packet pool, fabric, transport, workload, cross
 * traffic, sampler and scripted faults from the spec's master seed (one split stream each), runs until the
 * workload is done or {@code limitPs}, and returns the metrics (EXPERIMENTS.md names) and time series. The same
 * spec gives identical metrics apart from the wall-clock ones ({@code wall_s}, {@code events_per_wall_s},
 * {@code data_packets_per_wall_s}).
 *
 * <p>Metrics: {@code goodput_gbps} (payload placed at the receivers over the workload's duration),
 * {@code mean_fct_us}, {@code p99_completion_latency_us}, {@code max_fct_us} (per flow: start to the sender's last
 * completion), {@code completion_time_us}, {@code algbw_gbps}, {@code busbw_gbps} (collectives), {@code drops}
 * ({@code drops_buffer} + {@code drops_link}), {@code ecn_marks}, {@code trimmed} (with {@code fabric.trimming}),
 * {@code pfc_pauses}, {@code pfc_paused_us},
 * {@code retransmits}, {@code timeouts}, {@code path_failovers}, {@code flows}, {@code flows_completed},
 * {@code error_completions}, {@code data_correct} (with {@code verify}), {@code max_queue_bytes} (switch ports),
 * {@code max_nic_queue_bytes} (the hosts' NIC ports),
 * {@code jain_fairness} (Jain's index over every flow's mean goodput from its start to its completion, or to the
 * end of the run for flows still active), {@code base_rtt_us} (unloaded round trip over the longest leaf-spine
 * path with one full-size packet per hop, the unit of the {@code _rtts} metrics), for incast
 * {@code time_to_fair_us} and {@code time_to_fair_rtts} (see {@link #timeToFair}), for a plane failure
 * {@code goodput_before_gbps}, {@code goodput_during_gbps}, {@code goodput_after_gbps} (from the plane's return
 * to the first flow's completion),
 * {@code recovery_time_us}, {@code recovery_time_rtts}, with cross traffic {@code congested_path_gbps},
 * {@code other_paths_mean_gbps}, {@code other_paths_min_gbps}, and {@code events}, {@code data_packets},
 * {@code sim_time_us}, {@code wall_s}, for the load spread over switch-to-switch links (E6)
 * {@code fabric_links_used}, {@code fabric_link_max_gbps}, {@code fabric_link_min_gbps},
 * {@code fabric_link_imbalance}, the metrics of {@link RunAddOns} (FCT slowdown; for hotspot and storm workloads
 * the victims' goodput and PFC pauses per hop; with {@code controller.periodPs} or {@code controller.watch} the
 * hot-link ground truth and the controller's moves), those of {@link CollectiveMetrics} (every record: the loss model
 * {@code loss_model}, {@code loss_rate}, the measured {@code loss_e2e_rate}; collectives: nccl-tests' {@code size_bytes},
 * {@code count}, {@code type}, {@code time_us}, {@code algbw_GBps}, {@code busbw_GBps}; MetaRoCE:
 * {@code tail_recovery_us_p50} and {@code _p99}), plus every transport counter not named above.
 *
 * <p>Series, one row per {@code sampleIntervalPs} (x = end of the interval, us): {@code goodput},
 * {@code goodput_per_flow} ({@code goodput_per_sender} for incast), {@code goodput_per_receiver},
 * {@code goodput_per_plane} (planes &gt; 1), {@code queue_depth} ({@code watchPorts}), {@code link_throughput}
 * ({@code watchLinks}), {@code fairness}, {@code counters} and {@code path_cwnd} (MetaRoCE).
 */
public final class Experiment {
    /** Jain index an incast must reach (and keep) to count as fair. */
    public static final double FAIR_JAIN = 0.95;

    private Experiment() {
    }

    /** Runs {@code spec}, reporting progress to {@code progress} (may be null) a few times per wall second. */
    public static RunResult run(ExperimentSpec spec, ProgressListener progress) {
        return new ExperimentRun(spec, progress).execute();
    }

    /**
     * The transport {@code spec.transport} names: {@code metaroce} (engine config from {@code spec.engine} with the
     * fabric's planes, the host link rate as pacing rate when 0 and, with {@code spec.grants}, as the receivers'
     * inbound capacity when 0) or {@code rocev2}.
     */
    public static Transport transport(ExperimentSpec spec, EventLoop loop, PacketPool pool, Fabric fabric,
                                      SplittableRandom rng) {
        return switch (spec.transport.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "metaroce" -> new MetaRoceTransport(loop, pool, fabric,
                    MetaRoceTransport.engineConfig(spec.engine, spec.fabric, spec.grants), rng, spec.verify);
            case "rocev2", "roce" -> new RoceTransport(loop, pool, fabric, spec.roce, rng);
            default -> throw new IllegalArgumentException("unknown transport '" + spec.transport
                    + "' (metaroce, rocev2)");
        };
    }

    /** Bytes each MetaRoCE packet buffer holds beyond the engine's longest datagram. */
    static final int BUFFER_SLACK = 64;

    /** The packet pool the transport of {@code spec} needs (buffers of {@link #packetCapacity}; see {@link MetaRoceTransport#packetPool}). */
    static PacketPool packetPool(ExperimentSpec spec) {
        if (spec.transport.trim().equalsIgnoreCase("metaroce")) {
            return MetaRoceTransport.packetPool(MetaRoceTransport.engineConfig(spec.engine, spec.fabric, spec.grants),
                    BUFFER_SLACK);
        }
        return new PacketPool(packetCapacity(spec));
    }

    /** Packet buffer size the transport of {@code spec} needs. */
    public static int packetCapacity(ExperimentSpec spec) {
        if (spec.transport.trim().equalsIgnoreCase("metaroce")) {
            EngineConfig ec = MetaRoceTransport.engineConfig(spec.engine, spec.fabric, spec.grants);
            return MetaRoceTransport.bufferLength(ec) + BUFFER_SLACK;
        }
        return Math.max(64, spec.workload.crossPacketBytes);
    }

    /** Jain's fairness index of {@code xs} (1 for an empty or all-zero set). */
    static double jain(double[] xs) {
        double s = 0;
        double sq = 0;
        for (double x : xs) {
            s += x;
            sq += x * x;
        }
        return sq == 0 ? 1.0 : s * s / (xs.length * sq);
    }

    /**
     * First time after the last sender started ({@code lastStartPs}) at which the Jain index over per-sender
     * goodput in a fairness window reached {@link #FAIR_JAIN} and stayed there while all {@code flows} senders were
     * active, at sample granularity: from the last start to the end of the first window of the final fair run,
     * counting only windows that begin at or after the last start. Windows end at {@code xUs} (microseconds), one
     * per sample, each {@code windowPs} long (one sample interval, or several sliding by one), with {@code active}
     * flows. -1 if the index never settles at or above it.
     */
    static long timeToFair(double[] xUs, double[] jain, double[] active, int flows, long lastStartPs,
                           long windowPs) {
        long found = -1;
        boolean any = false;
        for (int i = 0; i < xUs.length; i++) {
            long t = Math.round(xUs[i] * Units.PS_PER_US);
            if (t - windowPs < lastStartPs) {
                continue;
            }
            if (active[i] < flows) {
                break; // a sender finished: fairness among all of them no longer defined
            }
            any = true;
            if (jain[i] >= FAIR_JAIN) {
                if (found < 0) {
                    found = t - lastStartPs;
                }
            } else {
                found = -1;
            }
        }
        return any ? found : -1;
    }

    /** Unloaded round-trip time of the fabric's longest path (propagation and one full-size packet per hop). */
    static long baseRttPs(FabricConfig fc, int datagramBytes) {
        long oneWay = 2 * fc.hostLinkDelayPs + 2 * fc.fabricLinkDelayPs
                + 2 * Units.txTimePs(datagramBytes, fc.hostRateBps) + 2 * Units.txTimePs(datagramBytes, fc.fabricRateBps);
        return 2 * oneWay;
    }
}
