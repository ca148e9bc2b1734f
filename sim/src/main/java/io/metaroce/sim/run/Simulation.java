package io.metaroce.sim.run;

import io.metaroce.core.EngineConfig;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.metrics.FabricCounters;
import io.metaroce.sim.topology.Topologies;
import io.metaroce.sim.transport.Host;
import io.metaroce.sim.transport.MetaRoceTransport;
import io.metaroce.sim.transport.Transport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A scriptable run for tests and benchmarks: an {@link EventLoop}, a fabric, the {@link MetaRoceTransport} (one
 * real engine per host) and flows added by hand, each on its own QP pair, with faults scripted at given times.
 * Everything random (engines, links, ports, ECMP salts, PSNs, data) is split off one master seed. Experiments
 * described by an {@link ExperimentSpec} run through {@link Experiment} instead.
 */
public final class Simulation {
    /**
     * What a run measured.
     *
     * @param flows             flows started
     * @param completed         flows whose every message completed successfully
     * @param bytes             payload bytes of completed flows
     * @param simulatedPs       virtual time from start to the last completion (or the limit)
     * @param goodputGbps       aggregate payload goodput over simulatedPs
     * @param meanFctUs         mean flow completion time of completed flows
     * @param maxFctUs          largest flow completion time
     * @param bufferDrops       packets dropped at full switch buffers
     * @param linkDrops         packets lost on links (random loss, link down)
     * @param ecnMarks          packets marked CE by switch ports
     * @param retransmits       data packets resent by the engines
     * @param timeouts          retransmission timeouts in the engines
     * @param errors            error completions
     * @param events            events processed by the loop
     * @param dataPackets       data packets the hosts sent (originals and retransmits)
     * @param wallNs            wall-clock time of the run
     * @param dataCorrect       all completed flows' destinations equal their sources (true if not verified)
     * @param internalErrors    engine internal errors (must be 0)
     */
    public record Result(int flows, int completed, long bytes, long simulatedPs, double goodputGbps,
                         double meanFctUs, double maxFctUs, long bufferDrops, long linkDrops, long ecnMarks,
                         long retransmits, long timeouts, long errors, long events, long dataPackets, long wallNs,
                         boolean dataCorrect, long internalErrors) {
        /** This result with the wall time zeroed: what must be identical between runs with the same seed. */
        public Result withoutWall() {
            return new Result(flows, completed, bytes, simulatedPs, goodputGbps, meanFctUs, maxFctUs, bufferDrops,
                    linkDrops, ecnMarks, retransmits, timeouts, errors, events, dataPackets, 0, dataCorrect,
                    internalErrors);
        }

        /** Data packets simulated per wall-clock second. */
        public double dataPacketsPerWallSecond() {
            return dataPackets * 1e9 / Math.max(1, wallNs);
        }
    }

    private final EventLoop loop = new EventLoop();
    private final PacketPool pool;
    private final Fabric fabric;
    private final MetaRoceTransport transport;
    private final List<Flow> flows = new ArrayList<>();
    private int completed;
    private long startPs;
    private long lastCompletionPs;
    private long errors;

    private static final class Flow {
        final long bytes;
        int remaining;
        long finishPs = -1;
        boolean failed;

        Flow(long bytes, int messages) {
            this.bytes = bytes;
            this.remaining = messages;
        }
    }

    /**
     * Builds the fabric {@code fabricCfg} with one engine per host from {@code engineCfg} (see
     * {@link MetaRoceTransport#engineConfig} for the planes and pacing rate; grants only as {@code engineCfg} sets
     * them), all seeded from {@code seed}. With
     * {@code verify}, every message gets its own destination buffer, compared with the source on delivery.
     */
    public Simulation(long seed, FabricConfig fabricCfg, EngineConfig engineCfg, boolean verify) {
        SplittableRandom master = new SplittableRandom(seed);
        EngineConfig ec = MetaRoceTransport.engineConfig(engineCfg, fabricCfg, false);
        this.pool = MetaRoceTransport.packetPool(ec, Experiment.BUFFER_SLACK);
        this.fabric = Topologies.build(fabricCfg, loop, pool, master.split());
        this.transport = new MetaRoceTransport(loop, pool, fabric, ec, master.split(), verify);
        transport.setListener(new Transport.Listener() {
            @Override
            public void delivered(int conn, long tag, long nowPs) {
            }

            @Override
            public void completed(int conn, long tag, long nowPs, boolean ok) {
                onCompletion(flows.get(conn), nowPs, ok);
            }
        });
    }

    /** The event loop (virtual time). */
    public EventLoop loop() { return loop; }
    /** The fabric. */
    public Fabric fabric() { return fabric; }
    /** Host {@code i}. */
    public Host host(int i) { return transport.host(i); }
    /** Hosts attached to the fabric. */
    public int hostCount() { return fabric.hosts(); }
    /** The packet pool every host and switch shares. */
    public PacketPool pool() { return pool; }
    /** The transport the flows run on. */
    public MetaRoceTransport transport() { return transport; }

    /** Runs {@code action} at virtual time {@code atPs} (scripted faults); then pumps every host. */
    public void at(long atPs, Runnable action) {
        loop.schedule(atPs, arg -> {
            action.run();
            for (int i = 0; i < fabric.hosts(); i++) {
                transport.host(i).pump();
            }
        }, 0);
    }

    /**
     * Adds a flow writing {@code bytes} from host {@code src} to host {@code dst} as {@code messages} messages,
     * posted now. Returns the flow's index.
     */
    public int addFlow(int src, int dst, long bytes, int messages) {
        if (src == dst) {
            throw new IllegalArgumentException("flow to itself");
        }
        if (bytes < messages || messages <= 0) {
            throw new IllegalArgumentException(messages + " messages of " + bytes + " bytes");
        }
        int id = transport.connect(src, dst);
        flows.add(new Flow(bytes, messages));
        long chunk = bytes / messages;
        for (int m = 0; m < messages; m++) {
            transport.send(id, m == messages - 1 ? bytes - chunk * m : chunk, m);
        }
        return id;
    }

    private void onCompletion(Flow f, long nowPs, boolean ok) {
        if (!ok) {
            errors++;
            f.failed = true;
        }
        if (--f.remaining == 0) {
            f.finishPs = nowPs;
            lastCompletionPs = Math.max(lastCompletionPs, nowPs);
            completed++;
            if (completed == flows.size()) {
                loop.stop();
            }
        }
    }

    /** Runs until every flow completed or virtual time reaches {@code limitPs}; returns the measurements. */
    public Result run(long limitPs) {
        startPs = loop.nowPs();
        long wall0 = System.nanoTime();
        if (completed < flows.size()) {
            loop.run(limitPs);
        }
        long wall = System.nanoTime() - wall0;
        return result(wall);
    }

    private Result result(long wallNs) {
        int ok = 0;
        long bytes = 0;
        double fctSum = 0;
        double fctMax = 0;
        for (Flow f : flows) {
            if (f.finishPs >= 0 && !f.failed) {
                ok++;
                bytes += f.bytes;
                double fct = (f.finishPs - startPs) / 1e6;
                fctSum += fct;
                fctMax = Math.max(fctMax, fct);
            }
        }
        long[] drops = FabricCounters.drops(fabric);
        Map<String, Long> c = transport.counters();
        long simPs = (completed == flows.size() ? lastCompletionPs : loop.nowPs()) - startPs;
        double goodput = bytes * 8.0 / Math.max(1, simPs) * 1000.0; // bits per ps -> Gb/s
        return new Result(flows.size(), ok, bytes, simPs, goodput, ok == 0 ? 0 : fctSum / ok, fctMax,
                drops[0], drops[1], FabricCounters.ecnMarks(fabric), c.get("retransmits"), c.get("timeouts"), errors,
                loop.eventsProcessed(), transport.dataPacketsSent(), wallNs, transport.verifyFailures() == 0,
                c.get("internal_errors"));
    }
}
