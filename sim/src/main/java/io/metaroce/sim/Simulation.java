package io.metaroce.sim;

import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A runnable experiment: an {@link EventLoop}, a {@link LeafSpine} fabric, one {@link Host} with a real
 * {@link Engine} per fabric host, and a bulk-transfer workload of RDMA WRITE flows, each on its own QP pair.
 * Everything random (engines, links, ports, ECMP salts, PSNs, data) is split off one master seed.
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

    private static final int MSG_BITS = 20;

    private final EventLoop loop = new EventLoop();
    private final PacketPool pool;
    private final Fabric fabric;
    private final Host[] hosts;
    private final ProtectionDomain[] pds;
    private final CompletionQueue[] cqs;
    private final MemoryRegion[] sourceMrs;
    private final MemorySegment[] sinks;
    private final MemoryRegion[] sinkMrs;
    private final SplittableRandom rng;
    private final boolean verify;
    private final Arena arena = Arena.ofAuto();
    private MemorySegment source;
    private final List<Flow> flows = new ArrayList<>();
    private int completed;
    private long startPs;
    private long lastCompletionPs;
    private long errors;

    private static final class Flow {
        final int src;
        final int dst;
        final long bytes;
        final int messages;
        final QueuePair qp;
        final MemorySegment dstSeg;
        int remaining;
        long finishPs = -1;
        boolean failed;

        Flow(int src, int dst, long bytes, int messages, QueuePair qp, MemorySegment dstSeg) {
            this.src = src;
            this.dst = dst;
            this.bytes = bytes;
            this.messages = messages;
            this.qp = qp;
            this.dstSeg = dstSeg;
            this.remaining = messages;
        }
    }

    /**
     * Builds the fabric {@code fabricCfg} with one engine per host from {@code engineCfg} (its {@code planes}
     * is overridden by the fabric's; a zero {@code txRateBps} becomes the host link rate), all seeded from
     * {@code seed}. With {@code verify}, every flow gets its own destination buffer, compared at the end.
     */
    public Simulation(long seed, FabricConfig fabricCfg, EngineConfig engineCfg, boolean verify) {
        SplittableRandom master = new SplittableRandom(seed);
        EngineConfig ec = engineCfg.copy().planes(fabricCfg.planes);
        if (ec.txRateBps == 0) {
            ec.txRateBps = fabricCfg.hostRateBps;
        }
        this.verify = verify;
        this.rng = master.split();
        Engine[] engines = new Engine[fabricCfg.hosts];
        for (int i = 0; i < engines.length; i++) {
            engines[i] = new Engine(ec, master.split());
        }
        this.pool = new PacketPool(engines.length == 0 ? 9000 : engines[0].maxDatagramLength() + 64);
        this.fabric = Fabric.build(fabricCfg, loop, pool, master.split());
        int h = fabricCfg.hosts;
        hosts = new Host[h];
        pds = new ProtectionDomain[h];
        cqs = new CompletionQueue[h];
        sourceMrs = new MemoryRegion[h];
        sinks = new MemorySegment[h];
        sinkMrs = new MemoryRegion[h];
        for (int i = 0; i < h; i++) {
            hosts[i] = new Host(i, engines[i], loop, pool, fabric.nics(i));
            fabric.attach(i, hosts[i]);
            pds[i] = engines[i].allocPd();
            cqs[i] = engines[i].createCq(Math.max(1024, ec.sqDepth * 4));
            hosts[i].watchCompletions(cqs[i], this::onCompletion);
        }
    }

    public EventLoop loop() { return loop; }
    public Fabric fabric() { return fabric; }
    public Host host(int i) { return hosts[i]; }
    public int hostCount() { return hosts.length; }
    public PacketPool pool() { return pool; }

    /** Runs {@code action} at virtual time {@code atPs} (scripted faults); then pumps every host. */
    public void at(long atPs, Runnable action) {
        loop.schedule(atPs, arg -> {
            action.run();
            for (Host host : hosts) {
                host.pump();
            }
        }, 0);
    }

    /**
     * Adds a flow writing {@code bytes} from host {@code src} to host {@code dst} as {@code messages} WRITEs,
     * posted now. Returns the flow's index.
     */
    public int addFlow(int src, int dst, long bytes, int messages) {
        if (src == dst) {
            throw new IllegalArgumentException("flow to itself");
        }
        ensureSource(bytes);
        Engine es = hosts[src].engine();
        Engine ed = hosts[dst].engine();
        QueuePair qa = es.createQp(pds[src], cqs[src], cqs[src]);
        QueuePair qb = ed.createQp(pds[dst], cqs[dst], cqs[dst]);
        int psnA = rng.nextInt(1 << 24);
        int psnB = rng.nextInt(1 << 24);
        qa.connect(dst, qb.qpn(), psnA, psnB);
        qb.connect(src, qa.qpn(), psnB, psnA);
        if (sourceMrs[src] == null || sourceMrs[src].length() < bytes) {
            sourceMrs[src] = es.registerMemory(pds[src], source, Access.LOCAL_WRITE);
        }
        MemorySegment dstSeg;
        MemoryRegion md;
        if (verify) {
            dstSeg = arena.allocate(bytes, 64);
            md = ed.registerMemory(pds[dst], dstSeg, Access.ALL);
        } else {
            if (sinks[dst] == null || sinks[dst].byteSize() < bytes) {
                sinks[dst] = arena.allocate(bytes, 64);
                sinkMrs[dst] = ed.registerMemory(pds[dst], sinks[dst], Access.ALL);
            }
            dstSeg = null;
            md = sinkMrs[dst];
        }
        int id = flows.size();
        Flow f = new Flow(src, dst, bytes, messages, qa, dstSeg);
        flows.add(f);
        long chunk = bytes / messages;
        for (int m = 0; m < messages; m++) {
            long len = m == messages - 1 ? bytes - chunk * m : chunk;
            int rc = qa.postWrite((long) id << MSG_BITS | m, sourceMrs[src], chunk * m, (int) len,
                    md.address() + chunk * m, md.rkey(), QueuePair.SIGNALED);
            if (rc != QueuePair.OK) {
                throw new IllegalStateException("postWrite failed: " + rc);
            }
        }
        hosts[src].pump();
        return id;
    }

    private void ensureSource(long bytes) {
        if (source != null && source.byteSize() >= bytes) {
            return;
        }
        long size = Math.max(bytes, source == null ? 0 : source.byteSize() * 2);
        source = arena.allocate(size, 64);
        SplittableRandom r = rng.split();
        long i = 0;
        for (; i + 8 <= size; i += 8) {
            source.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        for (; i < size; i++) {
            source.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        java.util.Arrays.fill(sourceMrs, null);
    }

    private void onCompletion(Host host, WorkCompletion wc, long nowPs) {
        if (wc.wrId() < 0 || (wc.wrId() >>> MSG_BITS) >= flows.size()) {
            return;
        }
        Flow f = flows.get((int) (wc.wrId() >>> MSG_BITS));
        if (f.src != host.index() || f.remaining == 0) {
            return;
        }
        if (wc.status() != WcStatus.SUCCESS) {
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
        boolean correct = true;
        for (Flow f : flows) {
            if (f.finishPs >= 0 && !f.failed) {
                ok++;
                bytes += f.bytes;
                double fct = (f.finishPs - startPs) / 1e6;
                fctSum += fct;
                fctMax = Math.max(fctMax, fct);
                if (verify && source.asSlice(0, f.bytes).mismatch(f.dstSeg) != -1) {
                    correct = false;
                }
            }
        }
        long bufferDrops = 0;
        long marks = 0;
        for (SwitchPort sp : fabric.switchPorts()) {
            bufferDrops += sp.dropped();
            marks += sp.ecnMarked();
        }
        for (int i = 0; i < hosts.length; i++) {
            for (int p = 0; p < fabric.config().planes; p++) {
                bufferDrops += hosts[i].nic(p).dropped();
            }
        }
        long linkDrops = 0;
        for (Link l : fabric.links()) {
            linkDrops += l.dropped();
        }
        long retx = 0;
        long timeouts = 0;
        long dataPackets = 0;
        long internal = 0;
        for (Host h : hosts) {
            retx += h.engine().counters().get(Counter.RETRANSMITS);
            timeouts += h.engine().counters().get(Counter.TIMEOUTS);
            dataPackets += h.txDataPackets();
            internal += h.engine().internalErrors();
        }
        long simPs = (completed == flows.size() ? lastCompletionPs : loop.nowPs()) - startPs;
        double goodput = bytes * 8.0 / Math.max(1, simPs) * 1000.0; // bits per ps -> Gb/s
        return new Result(flows.size(), ok, bytes, simPs, goodput, ok == 0 ? 0 : fctSum / ok, fctMax,
                bufferDrops, linkDrops, marks, retx, timeouts, errors, loop.eventsProcessed(), dataPackets,
                wallNs, correct, internal);
    }
}
