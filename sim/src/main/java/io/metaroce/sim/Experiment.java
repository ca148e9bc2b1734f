package io.metaroce.sim;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * {@code error_completions}, {@code data_correct} (with {@code verify}), {@code max_queue_bytes},
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
 * hot-link ground truth and the controller's moves), plus every transport counter not named above.
 *
 * <p>Series, one row per {@code sampleIntervalPs} (x = end of the interval, us): {@code goodput},
 * {@code goodput_per_flow} ({@code goodput_per_sender} for incast), {@code goodput_per_receiver},
 * {@code goodput_per_plane} (planes &gt; 1), {@code queue_depth} ({@code watchPorts}), {@code link_throughput}
 * ({@code watchLinks}), {@code fairness}, {@code counters} and {@code path_cwnd} (MetaRoCE).
 */
public final class Experiment {
    /** Jain index an incast must reach (and keep) to count as fair. */
    public static final double FAIR_JAIN = 0.95;
    /** Events between two looks at the wall clock for progress. */
    private static final long PROGRESS_EVENTS = 50_000;
    private static final long PROGRESS_WALL_NS = 250_000_000L;

    private Experiment() {
    }

    /** Runs {@code spec}, reporting progress to {@code progress} (may be null) a few times per wall second. */
    public static RunResult run(ExperimentSpec spec, ProgressListener progress) {
        return new Run(spec, progress).execute();
    }

    /**
     * The transport {@code spec.transport} names: {@code metaroce} (engine config from {@code spec.engine} with the
     * fabric's planes and the host link rate as pacing rate when 0) or {@code rocev2}.
     */
    public static Transport transport(ExperimentSpec spec, EventLoop loop, PacketPool pool, Fabric fabric,
                                      SplittableRandom rng) {
        return switch (spec.transport.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "metaroce" -> new MetaRoceTransport(loop, pool, fabric,
                    MetaRoceTransport.engineConfig(spec.engine, spec.fabric), rng, spec.verify);
            case "rocev2", "roce" -> new RoceTransport(loop, pool, fabric, spec.roce, rng);
            default -> throw new IllegalArgumentException("unknown transport '" + spec.transport
                    + "' (metaroce, rocev2)");
        };
    }

    /** Packet buffer size the transport of {@code spec} needs. */
    public static int packetCapacity(ExperimentSpec spec) {
        if (spec.transport.trim().equalsIgnoreCase("metaroce")) {
            EngineConfig ec = MetaRoceTransport.engineConfig(spec.engine, spec.fabric);
            return MetaRoceTransport.bufferLength(ec) + 64;
        }
        return Math.max(64, spec.workload.crossPacketBytes);
    }

    /** Buffer drops (switch ports and host NICs) and link drops (random loss, link down) of {@code fabric}. */
    static long[] drops(Fabric fabric) {
        long buffer = 0;
        for (SwitchPort sp : fabric.switchPorts()) {
            buffer += sp.dropped();
        }
        for (int h = 0; h < fabric.hosts(); h++) {
            for (SwitchPort nic : fabric.nics(h)) {
                buffer += nic.dropped();
            }
        }
        long link = 0;
        for (Link l : fabric.links()) {
            link += l.dropped();
        }
        return new long[] {buffer, link};
    }

    /** CE marks made by the switch ports of {@code fabric}. */
    static long ecnMarks(Fabric fabric) {
        long n = 0;
        for (SwitchPort sp : fabric.switchPorts()) {
            n += sp.ecnMarked();
        }
        return n;
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
     * goodput per sample interval reached {@link #FAIR_JAIN} and stayed there while all {@code flows} senders were
     * active, at sample granularity: from the last start to the end of the first interval of the final fair run,
     * counting only intervals that begin at or after the last start. Samples end at {@code xUs} (microseconds),
     * each {@code intervalPs} long, with {@code active} flows. -1 if the index never settles at or above it.
     */
    static long timeToFair(double[] xUs, double[] jain, double[] active, int flows, long lastStartPs,
                           long intervalPs) {
        long found = -1;
        boolean any = false;
        for (int i = 0; i < xUs.length; i++) {
            long t = Math.round(xUs[i] * Units.PS_PER_US);
            if (t - intervalPs < lastStartPs) {
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

    /** One run's state. */
    private static final class Run {
        private final ExperimentSpec spec;
        private final ProgressListener progress;
        private final EventLoop loop = new EventLoop();
        private PacketPool pool;
        private Fabric fabric;
        private Transport transport;
        private Workload workload;
        private Sampler sampler;
        private CrossTraffic cross;
        private Link crossLink;
        private RunAddOns addOns;
        private long wall0;
        private long lastProgressWall;
        private long lastProgressEvents;

        Run(ExperimentSpec spec, ProgressListener progress) {
            this.spec = spec;
            this.progress = progress;
        }

        RunResult execute() {
            SplittableRandom master = new SplittableRandom(spec.seed);
            SplittableRandom fabricRng = master.split();
            SplittableRandom transportRng = master.split();
            SplittableRandom workloadRng = master.split();
            pool = new PacketPool(packetCapacity(spec));
            fabric = Fabric.build(spec.fabric, loop, pool, fabricRng);
            transport = transport(spec, loop, pool, fabric, transportRng);
            workload = new Workload(spec.workload, fabric.hosts(), transport, loop, workloadRng, loop::stop);
            Map<String, SwitchPort> ports = watchedPorts();
            WorkloadSpec w = spec.workload;
            if (!w.crossPort.isBlank()) {
                SwitchPort port = portByName(w.crossPort.trim());
                crossLink = port.link(); // named even without traffic: the baseline of the same paths
                if (w.crossGbps > 0) {
                    cross = crossTraffic(w, port);
                }
            }
            Map<String, Link> links = watchedLinks();
            QueuePair paths = transport instanceof MetaRoceTransport mt ? mt.senderQp(0) : null;
            sampler = new Sampler(loop, spec.sampleIntervalPs, transport, workload, fabric, ports, links, crossLink,
                    cross, paths, Math.max(1, spec.maxSeriesColumns), this::tick);
            addOns = new RunAddOns(spec, loop, fabric, transport, workload);
            scheduleFaults();
            if (spec.limitPs <= 0) {
                throw new IllegalArgumentException("limitPs must be positive");
            }
            sampler.start(0);
            addOns.start(0);
            wall0 = System.nanoTime();
            lastProgressWall = wall0;
            loop.run(spec.limitPs);
            sampler.stop();
            addOns.stop();
            long wallNs = System.nanoTime() - wall0;
            if (progress != null) {
                progress.progress(loop.nowPs(), spec.limitPs, loop.eventsProcessed(), wallNs);
            }
            RunResult r = new RunResult();
            metrics(r.metrics, wallNs);
            r.series.addAll(sampler.series());
            r.series.addAll(addOns.series(r.metrics));
            return r;
        }

        private CrossTraffic crossTraffic(WorkloadSpec w, SwitchPort port) {
            if (w.crossDst < 0 || w.crossDst >= fabric.hosts()) {
                throw new IllegalArgumentException("cross traffic destination host " + w.crossDst + " outside 0.."
                        + (fabric.hosts() - 1));
            }
            return new CrossTraffic(loop, pool, port, w.crossDst, planeOf(port.link()), w.crossPacketBytes,
                    w.crossGbps, w.crossStartPs, w.crossStopPs <= 0 ? Long.MAX_VALUE : w.crossStopPs);
        }

        /** Called between samples: looks at the wall clock every PROGRESS_EVENTS events. */
        private void tick() {
            if (progress == null || loop.eventsProcessed() - lastProgressEvents < PROGRESS_EVENTS) {
                return;
            }
            lastProgressEvents = loop.eventsProcessed();
            long now = System.nanoTime();
            if (now - lastProgressWall >= PROGRESS_WALL_NS) {
                lastProgressWall = now;
                progress.progress(loop.nowPs(), spec.limitPs, loop.eventsProcessed(), now - wall0);
            }
        }

        private int planeOf(Link l) {
            for (int p = 0; p < fabric.planes(); p++) {
                if (fabric.planeLinks(p).contains(l)) {
                    return p;
                }
            }
            return 0;
        }

        private SwitchPort portByName(String name) {
            int colon = name.lastIndexOf(':');
            if (colon > 0) {
                String sw = name.substring(0, colon);
                int idx;
                try {
                    idx = Integer.parseInt(name.substring(colon + 1));
                } catch (NumberFormatException e) {
                    idx = -1;
                }
                for (Switch s : fabric.switches()) {
                    if (s.name().equals(sw) && idx >= 0 && idx < s.portCount()) {
                        return s.port(idx);
                    }
                }
            }
            throw new IllegalArgumentException("no switch port named '" + name + "' (switch name:port index)");
        }

        private Link linkByName(String name) {
            for (Link l : fabric.links()) {
                if (l.name().equals(name)) {
                    return l;
                }
            }
            throw new IllegalArgumentException("no link named '" + name + "'");
        }

        private Map<String, SwitchPort> watchedPorts() {
            Map<String, SwitchPort> m = new LinkedHashMap<>();
            for (String raw : spec.watchPorts) {
                String name = raw.trim();
                if (name.equals("receiver")) {
                    int r = workload.flows().get(0).dst();
                    for (int p = 0; p < fabric.planes(); p++) {
                        Link down = fabric.hostDownlink(r, p);
                        m.put("p" + p + " to host " + r, portFeeding(down));
                    }
                } else {
                    m.put(name, portByName(name));
                }
            }
            return m;
        }

        private SwitchPort portFeeding(Link link) {
            for (Switch s : fabric.switches()) {
                for (int i = 0; i < s.portCount(); i++) {
                    if (s.port(i).link() == link) {
                        return s.port(i);
                    }
                }
            }
            throw new IllegalArgumentException("no switch port sends on " + link.name());
        }

        private Map<String, Link> watchedLinks() {
            Map<String, Link> m = new LinkedHashMap<>();
            for (String raw : spec.watchLinks) {
                String name = raw.trim();
                if (name.equals("cross-peers")) {
                    if (crossLink == null) {
                        throw new IllegalArgumentException("watchLinks 'cross-peers' needs workload.crossPort");
                    }
                    for (Link l : peers(crossLink)) {
                        m.put(l.name(), l);
                    }
                } else {
                    m.put(name, linkByName(name));
                }
            }
            return m;
        }

        /** Links named {@code P.<kind><n>>T} for the cross link's plane P, target T and source kind. */
        private List<Link> peers(Link of) {
            String n = of.name();
            int dot = n.indexOf('.');
            int gt = n.indexOf('>');
            if (dot < 0 || gt < dot) {
                return List.of(of);
            }
            String plane = n.substring(0, dot + 1);
            String target = n.substring(gt);
            String kind = n.substring(dot + 1, gt).replaceAll("[0-9]+$", "");
            List<Link> out = new ArrayList<>();
            for (Link l : fabric.links()) {
                String m = l.name();
                int g = m.indexOf('>');
                if (m.startsWith(plane) && g > plane.length() && m.substring(g).equals(target)
                        && m.substring(plane.length(), g).replaceAll("[0-9]+$", "").equals(kind)) {
                    out.add(l);
                }
            }
            return out;
        }

        private void scheduleFaults() {
            for (FaultSpec f : spec.faults) {
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
                    case "link-down", "link-up" -> targets = List.of(linkByName(f.link.trim()));
                    case "link-loss" -> {
                        if (!(f.loss >= 0 && f.loss <= 1)) {
                            throw new IllegalArgumentException("link-loss probability " + f.loss + " not in [0, 1]");
                        }
                        targets = f.link.isBlank() ? fabric.links() : List.of(linkByName(f.link.trim()));
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

        private void metrics(Map<String, Object> m, long wallNs) {
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
            long[] drops = drops(fabric);
            m.put("drops", drops[0] + drops[1]);
            m.put("drops_buffer", drops[0]);
            m.put("drops_link", drops[1]);
            m.put("ecn_marks", ecnMarks(fabric));
            if (fabric.config().trimming) {
                m.put("trimmed", fabric.sumPorts(SwitchPort::trimmed)); // data packets cut to headers, not dropped
            }
            long pauses = 0;
            long pausedPs = 0;
            long maxQueue = 0;
            for (SwitchPort sp : fabric.switchPorts()) {
                pauses += sp.pfcPauses();
                pausedPs += sp.pfcPausedPs();
                maxQueue = Math.max(maxQueue, sp.maxQueuedBytes());
            }
            for (int h = 0; h < fabric.hosts(); h++) {
                for (SwitchPort nic : fabric.nics(h)) {
                    pauses += nic.pfcPauses();
                    pausedPs += nic.pfcPausedPs();
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
            m.put("jain_fairness", jain(rates));
            int datagram = packetCapacity(spec) - 64;
            long rttPs = baseRttPs(spec.fabric, Math.max(datagram, 64));
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
                    workload.lastStartPs(), spec.sampleIntervalPs);
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
                for (Link l : name.trim().equals("cross-peers") ? peers(crossLink)
                        : List.of(linkByName(name.trim()))) {
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
}
