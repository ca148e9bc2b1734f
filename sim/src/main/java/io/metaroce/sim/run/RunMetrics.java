package io.metaroce.sim.run;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.CrossTraffic;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.metrics.CollectiveMetrics;
import io.metaroce.sim.metrics.FabricCounters;
import io.metaroce.sim.metrics.Sampler;
import io.metaroce.sim.metrics.Series;
import io.metaroce.sim.metrics.SeriesRecorder;
import io.metaroce.sim.topology.FabricNames;
import io.metaroce.sim.transport.MetaRoceTransport;
import io.metaroce.sim.transport.Transport;
import io.metaroce.sim.workload.Workload;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** The metrics of one finished run (their names and meaning are listed on {@link Experiment}). */
final class RunMetrics {
    private final ExperimentSpec spec;
    private final EventLoop loop;
    private final Fabric fabric;
    private final Transport transport;
    private final Workload workload;
    private final Sampler sampler;
    private final RunAddOns addOns;
    private final CrossTraffic cross;
    private final Link crossLink;

    RunMetrics(ExperimentSpec spec, EventLoop loop, Fabric fabric, Transport transport, Workload workload,
               Sampler sampler, RunAddOns addOns, CrossTraffic cross, Link crossLink) {
        this.spec = spec;
        this.loop = loop;
        this.fabric = fabric;
        this.transport = transport;
        this.workload = workload;
        this.sampler = sampler;
        this.addOns = addOns;
        this.cross = cross;
        this.crossLink = crossLink;
    }

    void metrics(Map<String, Object> m, long wallNs) {
        List<Workload.Flow> flows = workload.flows();
        long start = spec.workload.startPs;
        long end = workload.done() ? workload.endPs() : loop.nowPs();
        long duration = Math.max(1, end - start);
        long delivered = 0;
        for (int c = 0; c < transport.connections(); c++) {
            delivered += transport.receivedBytes(c);
        }
        m.put("transport", transport.name());
        m.put("goodput_gbps", delivered * 8.0 * 1000.0 / duration);
        double[] fcts = new double[flows.size()];
        int ok = 0;
        double[] rates = new double[flows.size()];
        long[] perFlowBytes = new long[flows.size()];
        for (int c = 0; c < transport.connections(); c++) {
            perFlowBytes[workload.flowOf(c).index] += transport.receivedBytes(c);
        }
        for (int i = 0; i < flows.size(); i++) {
            Workload.Flow f = flows.get(i);
            if (f.ok()) {
                fcts[ok++] = (f.finishPs - f.startPs) / (double) Units.PS_PER_US;
            }
            long until = f.done() ? f.finishPs : end;
            rates[i] = until > f.startPs ? perFlowBytes[i] * 8.0 * 1000.0 / (until - f.startPs) : 0;
        }
        double[] done = Arrays.copyOf(fcts, ok);
        Arrays.sort(done);
        double sum = 0;
        for (double v : done) {
            sum += v;
        }
        m.put("mean_fct_us", ok == 0 ? Double.NaN : sum / ok);
        m.put("p99_completion_latency_us", ok == 0 ? Double.NaN : done[Math.max(0, (int) Math.ceil(0.99 * ok) - 1)]);
        m.put("max_fct_us", ok == 0 ? Double.NaN : done[ok - 1]);
        if (workload.collective()) {
            boolean complete = workload.done() && !workload.aborted();
            double t = (end - start) / (double) Units.PS_PER_US;
            m.put("completion_time_us", complete ? t : Double.NaN);
            double algbw = complete ? workload.collectiveBytes() * 8.0 * 1000.0 / duration : Double.NaN;
            m.put("algbw_gbps", algbw);
            m.put("busbw_gbps", algbw * workload.busFactor());
        }
        long[] drops = FabricCounters.drops(fabric);
        m.put("drops", drops[0] + drops[1]);
        m.put("drops_buffer", drops[0]);
        m.put("drops_link", drops[1]);
        m.put("ecn_marks", FabricCounters.ecnMarks(fabric));
        if (fabric.config().trimming) {
            m.put("trimmed", fabric.sumPorts(SwitchPort::trimmed)); // data packets cut to headers, not dropped
        }
        long pauses = 0;
        long pausedPs = 0;
        long maxQueue = 0;
        long maxNicQueue = 0;
        for (SwitchPort sp : fabric.switchPorts()) {
            pauses += sp.pfcPauses();
            pausedPs += sp.pfcPausedPs();
            maxQueue = Math.max(maxQueue, sp.maxQueuedBytes());
        }
        for (int h = 0; h < fabric.hosts(); h++) {
            for (SwitchPort nic : fabric.nics(h)) {
                pauses += nic.pfcPauses();
                pausedPs += nic.pfcPausedPs();
                maxNicQueue = Math.max(maxNicQueue, nic.maxQueuedBytes());
            }
        }
        m.put("pfc_pauses", pauses);
        m.put("pfc_paused_us", pausedPs / (double) Units.PS_PER_US);
        Map<String, Long> counters = transport.counters();
        m.put("retransmits", counters.getOrDefault("retransmits", 0L));
        m.put("timeouts", counters.getOrDefault("timeouts", 0L));
        m.put("path_failovers", counters.getOrDefault("path_failovers", 0L));
        m.put("flows", (long) flows.size());
        m.put("flows_completed", (long) ok);
        m.put("error_completions", workload.failedMessages());
        if (spec.verify && transport instanceof MetaRoceTransport mt) {
            m.put("data_correct", mt.verifyFailures() == 0 && mt.verifiedMessages() > 0);
        }
        m.put("max_queue_bytes", maxQueue);
        m.put("max_nic_queue_bytes", maxNicQueue);
        m.put("jain_fairness", Experiment.jain(rates));
        int datagram = Experiment.packetCapacity(spec) - Experiment.BUFFER_SLACK;
        long rttPs = Experiment.baseRttPs(spec.fabric, Math.max(datagram, 64));
        m.put("base_rtt_us", rttPs / (double) Units.PS_PER_US);
        if (workload.kind().equals("incast")) {
            long fair = timeToFair();
            m.put("time_to_fair_us", fair < 0 ? Double.NaN : fair / (double) Units.PS_PER_US);
            m.put("time_to_fair_rtts", fair < 0 ? Double.NaN : fair / (double) rttPs);
        }
        fabricLinks(m, duration);
        planeFailure(m, rttPs);
        crossMetrics(m, duration);
        addOns.metrics(m, start, end, rttPs);
        CollectiveMetrics.loss(m, spec.fabric, fabric);
        CollectiveMetrics.collective(m, workload, transport, start, end);
        counters.forEach((k, v) -> {
            if (!m.containsKey(k)) {
                m.put(k, v);
            }
        });
        m.put("events", loop.eventsProcessed());
        m.put("data_packets", transport.dataPacketsSent());
        m.put("samples", (long) sampler.samples());
        m.put("sim_time_us", (end - start) / (double) Units.PS_PER_US);
        m.put("wall_s", wallNs / 1e9);
        m.put("events_per_wall_s", loop.eventsProcessed() * 1e9 / Math.max(1, wallNs));
        m.put("data_packets_per_wall_s", transport.dataPacketsSent() * 1e9 / Math.max(1, wallNs));
    }

    private long timeToFair() {
        Series jain = sampler.fairness().toSeries();
        Series act = sampler.active().toSeries();
        return Experiment.timeToFair(jain.x(), jain.y()[0], act.y()[0], workload.flows().size(),
                workload.lastStartPs(), spec.fairWindowInForcePs());
    }

    /**
     * E3: mean goodput per sample before (the start-up interval left out), during (and its minimum) and after
     * the first plane-down (until that plane's plane-up), and the recovery time: from the failure to the end
     * of the first sample interval after it whose goodput reached 0.9 of the surviving planes' share of the
     * goodput before (0.9 x 3/4 with 4 planes).
     */
    private void planeFailure(Map<String, Object> m, long rttPs) {
        long down = -1;
        long up = Long.MAX_VALUE;
        int plane = 0;
        for (FaultSpec f : spec.faults) {
            if (f.kind.trim().equalsIgnoreCase("plane-down") && (down < 0 || f.atPs < down)) {
                down = f.atPs;
                plane = f.plane;
            }
        }
        if (down < 0) {
            return;
        }
        for (FaultSpec f : spec.faults) {
            if (f.kind.trim().equalsIgnoreCase("plane-up") && f.plane == plane && f.atPs > down && f.atPs < up) {
                up = f.atPs;
            }
        }
        SeriesRecorder g = sampler.aggregate();
        long step = spec.sampleIntervalPs;
        // "after" ends when the first flow completes: from then on fewer flows share the fabric
        long firstDone = Long.MAX_VALUE;
        for (Workload.Flow f : workload.flows()) {
            if (f.done()) {
                firstDone = Math.min(firstDone, f.finishPs);
            }
        }
        double[] before = new double[2];
        double[] during = new double[2];
        double[] after = new double[2];
        long recovery = -1;
        double threshold = Double.NaN;
        double duringMin = Double.POSITIVE_INFINITY;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < g.size(); i++) {
                long t = Math.round(g.x(i) * Units.PS_PER_US);
                long from = t - step;
                double v = g.get(0, i);
                if (pass == 0) {
                    if (from >= spec.workload.startPs + step && t <= down) { // the start-up interval left out
                        before[0] += v;
                        before[1]++;
                    } else if (from >= down && t <= up) {
                        during[0] += v;
                        during[1]++;
                        duringMin = Math.min(duringMin, v);
                    } else if (from >= up && t <= firstDone && (!workload.done() || t <= workload.endPs())) {
                        after[0] += v;
                        after[1]++;
                    }
                } else if (from >= down && recovery < 0 && v >= threshold) {
                    recovery = t - down;
                }
            }
            // back to 0.9 of the surviving planes' share of the goodput before (0.9 x 3/4 with 4 planes)
            threshold = 0.9 * (fabric.planes() - 1.0) / Math.max(1, fabric.planes())
                    * (before[1] == 0 ? Double.NaN : before[0] / before[1]);
        }
        m.put("goodput_before_gbps", before[1] == 0 ? Double.NaN : before[0] / before[1]);
        m.put("goodput_during_gbps", during[1] == 0 ? Double.NaN : during[0] / during[1]);
        m.put("goodput_during_min_gbps", during[1] == 0 ? Double.NaN : duringMin);
        m.put("goodput_after_gbps", after[1] == 0 ? Double.NaN : after[0] / after[1]);
        m.put("recovery_time_us", recovery < 0 ? Double.NaN : recovery / (double) Units.PS_PER_US);
        m.put("recovery_time_rtts", recovery < 0 ? Double.NaN : recovery / (double) rttPs);
    }

    /**
     * E6: spread of the load over the switch-to-switch links that carried data packets: the busiest and least
     * busy link's mean throughput over the run (wire bytes) and the busiest over the mean.
     */
    private void fabricLinks(Map<String, Object> m, long duration) {
        java.util.Set<Link> hostLinks = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int h = 0; h < fabric.hosts(); h++) {
            for (int p = 0; p < fabric.planes(); p++) {
                hostLinks.add(fabric.hostUplink(h, p));
                hostLinks.add(fabric.hostDownlink(h, p));
            }
        }
        double max = 0;
        double min = Double.POSITIVE_INFINITY;
        double sum = 0;
        int n = 0;
        for (Link l : fabric.links()) {
            if (hostLinks.contains(l) || l.dataPackets() == 0) {
                continue;
            }
            double g = l.bytes() * 8.0 * 1000.0 / duration;
            max = Math.max(max, g);
            min = Math.min(min, g);
            sum += g;
            n++;
        }
        if (n > 0) {
            m.put("fabric_links_used", (long) n);
            m.put("fabric_link_max_gbps", max);
            m.put("fabric_link_min_gbps", min);
            m.put("fabric_link_imbalance", max / (sum / n));
        }
    }

    /**
     * E8: transport throughput (wire bytes without the filler) of the cross-traffic link and of the other
     * watched links over the run; also without traffic ({@code crossGbps} 0), as the baseline of the same links.
     */
    private void crossMetrics(Map<String, Object> m, long duration) {
        if (crossLink == null) {
            return;
        }
        long crossBytes = cross == null ? 0 : cross.acceptedBytes();
        m.put("cross_offered_gbps", cross == null ? 0.0 : cross.offeredBytes() * 8.0 * 1000.0 / duration);
        m.put("cross_carried_gbps", crossBytes * 8.0 * 1000.0 / duration);
        m.put("congested_path_gbps", Math.max(0, crossLink.bytes() - crossBytes) * 8.0 * 1000.0 / duration);
        double min = Double.NaN;
        double sum = 0;
        int n = 0;
        for (String name : spec.watchLinks) {
            for (Link l : name.trim().equals("cross-peers") ? FabricNames.peers(fabric, crossLink)
                    : List.of(FabricNames.link(fabric, name.trim()))) {
                if (l == crossLink) {
                    continue;
                }
                double v = l.bytes() * 8.0 * 1000.0 / duration;
                min = Double.isNaN(min) ? v : Math.min(min, v);
                sum += v;
                n++;
            }
        }
        if (n > 0) {
            m.put("other_paths_mean_gbps", sum / n);
            m.put("other_paths_min_gbps", min);
        }
    }
}
