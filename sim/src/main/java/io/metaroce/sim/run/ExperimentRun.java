package io.metaroce.sim.run;

import io.metaroce.core.QueuePair;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.CrossTraffic;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.metrics.Sampler;
import io.metaroce.sim.topology.FabricNames;
import io.metaroce.sim.topology.Topologies;
import io.metaroce.sim.transport.MetaRoceTransport;
import io.metaroce.sim.transport.Transport;
import io.metaroce.sim.workload.Workload;
import io.metaroce.sim.workload.WorkloadSpec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One run of an {@link ExperimentSpec} (see {@link Experiment}): builds the event loop, packet pool, fabric,
 * transport, workload, cross traffic, sampler, add-ons and scripted faults from the spec's master seed (one split
 * stream each), runs until the workload is done or {@code limitPs} and collects the metrics ({@link RunMetrics})
 * and series.
 */
final class ExperimentRun {
    /** Events between two looks at the wall clock for progress. */
    private static final long PROGRESS_EVENTS = 50_000;
    private static final long PROGRESS_WALL_NS = 250_000_000L;
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

    ExperimentRun(ExperimentSpec spec, ProgressListener progress) {
        this.spec = spec;
        this.progress = progress;
    }

    RunResult execute() {
        SplittableRandom master = new SplittableRandom(spec.seed);
        SplittableRandom fabricRng = master.split();
        SplittableRandom transportRng = master.split();
        SplittableRandom workloadRng = master.split();
        pool = Experiment.packetPool(spec);
        fabric = Topologies.build(spec.fabric, loop, pool, fabricRng);
        transport = Experiment.transport(spec, loop, pool, fabric, transportRng);
        workload = new Workload(spec.workload, fabric.hosts(), transport, loop, workloadRng, loop::stop);
        Map<String, SwitchPort> ports = watchedPorts();
        WorkloadSpec w = spec.workload;
        if (!w.crossPort.isBlank()) {
            SwitchPort port = FabricNames.port(fabric, w.crossPort.trim());
            crossLink = port.link(); // named even without traffic: the baseline of the same paths
            if (w.crossGbps > 0) {
                cross = crossTraffic(w, port);
            }
        }
        Map<String, Link> links = watchedLinks();
        QueuePair paths = transport instanceof MetaRoceTransport mt ? mt.senderQp(0) : null;
        sampler = new Sampler(loop, spec.sampleIntervalPs, transport, workload, fabric, ports, links, crossLink,
                cross, paths, Math.max(1, spec.maxSeriesColumns), this::tick);
        sampler.fairWindow((int) (spec.fairWindowInForcePs() / spec.sampleIntervalPs));
        addOns = new RunAddOns(spec, loop, fabric, transport, workload);
        FaultScript.schedule(spec.faults, fabric, loop);
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
        new RunMetrics(spec, loop, fabric, transport, workload, sampler, addOns, cross, crossLink)
                .metrics(r.metrics, wallNs);
        r.series.addAll(sampler.series());
        r.series.addAll(addOns.series(r.metrics));
        return r;
    }

    private CrossTraffic crossTraffic(WorkloadSpec w, SwitchPort port) {
        if (w.crossDst < 0 || w.crossDst >= fabric.hosts()) {
            throw new IllegalArgumentException("cross traffic destination host " + w.crossDst + " outside 0.."
                    + (fabric.hosts() - 1));
        }
        return new CrossTraffic(loop, pool, port, w.crossDst, FabricNames.planeOf(fabric, port.link()), w.crossPacketBytes,
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

    private Map<String, SwitchPort> watchedPorts() {
        Map<String, SwitchPort> m = new LinkedHashMap<>();
        for (String raw : spec.watchPorts) {
            String name = raw.trim();
            if (name.equals("receiver")) {
                int r = workload.flows().get(0).dst();
                for (int p = 0; p < fabric.planes(); p++) {
                    Link down = fabric.hostDownlink(r, p);
                    m.put("p" + p + " to host " + r, FabricNames.portFeeding(fabric, down));
                }
            } else {
                m.put(name, FabricNames.port(fabric, name));
            }
        }
        return m;
    }

    private Map<String, Link> watchedLinks() {
        Map<String, Link> m = new LinkedHashMap<>();
        for (String raw : spec.watchLinks) {
            String name = raw.trim();
            if (name.equals("cross-peers")) {
                if (crossLink == null) {
                    throw new IllegalArgumentException("watchLinks 'cross-peers' needs workload.crossPort");
                }
                for (Link l : FabricNames.peers(fabric, crossLink)) {
                    m.put(l.name(), l);
                }
            } else {
                m.put(name, FabricNames.link(fabric, name));
            }
        }
        return m;
    }
}
