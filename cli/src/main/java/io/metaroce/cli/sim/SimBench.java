package io.metaroce.cli.sim;

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
import io.metaroce.core.wire.Opcode;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.experiment.SpecFields;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.Simulation;
import io.metaroce.sim.topology.Topologies;
import io.metaroce.sim.transport.Host;
import io.metaroce.sim.transport.MetaRoceTransport;
import io.metaroce.sim.workload.Derangement;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Throughput benchmark of the simulator in the scenario that htsim (the C++ simulator of the Ultra Ethernet
 * work) can run identically: a three-tier k-ary fat-tree (k=8: 128 hosts; k=16: 1,024; k=32: 8,192), one plane,
 * 100 Gb/s and 1 us per link, 4,150-byte data packets on the wire (4,086 B of payload; the engine's datagram
 * plus {@link FabricConfig#wireOverheadBytes}), 64-byte control packets, 178,450 B of buffer per port, ECN
 * marking rising linearly from 37 KB to 145 KB of queue (probability 1 at 145 KB), a seeded random permutation
 * of 2 MB flows, MetaRoCE spraying each QP over {@code paths} paths.
 *
 * <p>Prints data packets simulated per wall-second, events per second, events per data packet, wall time, peak
 * RSS (VmHWM of /proc/self/status: the whole process, JVM included) and flows completed, as one
 * {@code key=value} line prefixed {@code RESULT} (for scripts) after the readable lines.
 *
 * <p>Arguments: {@code --k K} (8), {@code --flow-bytes B} (2,000,000), {@code --seed S} (1), {@code --paths P}
 * (the engine's default, 16), {@code --warmups N} (1: runs of the k=8 scenario with other seeds, unmeasured, so
 * that the JIT has compiled the hot paths; their memory counts in the peak RSS), {@code --limit-ms M} (1,000 of
 * virtual time),
 * {@code --payload on|off} (off: the engines elide payload bytes, {@code EngineConfig.elidePayload}, as htsim
 * carries none; on: every byte is copied and CRC-checked), {@code --workload permutation|alltoall} (alltoall: every
 * ordered pair of hosts on its own connection, 512 KiB each unless {@code --flow-bytes}, htsim's all-to-all; the
 * report adds the memory per connection: peak RSS minus the RSS before the connections were made, over the flows),
 * {@code --trimming on|off} (off; on: switches trim what their buffer cannot take to its headers and forward it ahead of
 * data, as htsim's UEC switches do by default, and receivers NAK it at once, REL-17), {@code --counters on|off}
 * (off; on: one more line with every engine counter that is not zero, summed over the hosts), {@code --set
 * engine.KEY=VALUE} (repeatable: any engine setting, written as in an experiment file, e.g. {@code --set
 * engine.paths=64}; the defaults are the engine's own but for the MTU, paths, one plane and the host's line rate).
 */
public final class SimBench {
    private SimBench() {
    }

    /** Benchmark parameters, from the command line. */
    record Params(int k, long flowBytes, long seed, int paths, int warmups, long limitMs, boolean payload,
                  boolean allToAll, boolean trimming, boolean counters, List<String> engineSets) {
        static Params parse(String[] args) {
            int k = 8;
            long flowBytes = -1;
            boolean allToAll = false;
            long seed = 1;
            int paths = new EngineConfig().paths;
            int warmups = 1;
            long limitMs = 1_000;
            boolean payload = false;
            boolean trimming = false;
            boolean counters = false;
            List<String> engineSets = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after " + a);
                }
                String v = args[++i];
                boolean word = a.equals("--workload") || a.equals("--payload") || a.equals("--trimming")
                        || a.equals("--counters") || a.equals("--set");
                if (!word && !v.matches("-?[0-9]{1,18}")) {
                    throw new IllegalArgumentException(a + " expects a whole number, got '" + v + "'");
                }
                switch (a) {
                    case "--k" -> k = Integer.parseInt(v);
                    case "--flow-bytes" -> flowBytes = Long.parseLong(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--paths" -> paths = Integer.parseInt(v);
                    case "--warmups" -> warmups = Integer.parseInt(v);
                    case "--limit-ms" -> limitMs = Long.parseLong(v);
                    case "--workload" -> allToAll = switch (v) {
                        case "alltoall" -> true;
                        case "permutation" -> false;
                        default -> throw new IllegalArgumentException("--workload takes permutation or alltoall, got "
                                + v);
                    };
                    case "--payload" -> payload = onOff(a, v);
                    case "--trimming" -> trimming = onOff(a, v);
                    case "--counters" -> counters = onOff(a, v);
                    case "--set" -> engineSets.add(engineSetting(v));
                    default -> throw new IllegalArgumentException("unknown option " + a
                            + " (options: --k --workload --flow-bytes --seed --paths --warmups --limit-ms --payload"
                            + " --trimming --counters --set)");
                }
            }
            if (flowBytes < 0) {
                flowBytes = allToAll ? 512 * 1024 : 2_000_000; // htsim's scenarios
            }
            return new Params(k, flowBytes, seed, paths, warmups, limitMs, payload, allToAll, trimming, counters,
                    List.copyOf(engineSets));
        }

        /** {@code engine.KEY=VALUE}, checked against the engine's settings now so a typo fails before any run. */
        private static String engineSetting(String v) {
            int eq = v.indexOf('=');
            if (!v.startsWith("engine.") || eq < 0) {
                throw new IllegalArgumentException("--set takes engine.KEY=VALUE, got '" + v + "'");
            }
            engineConfig(List.of(v), new EngineConfig());
            return v;
        }

        private static boolean onOff(String option, String v) {
            return switch (v) {
                case "on" -> true;
                case "off" -> false;
                default -> throw new IllegalArgumentException(option + " takes on or off, got " + v);
            };
        }
    }

    /**
     * The engine's defaults with {@code base}'s MTU, paths, planes and line rate (the bench's own settings; nothing
     * else of {@code base} is taken) and then the {@code engine.KEY=VALUE} settings applied by the experiment files'
     * rules (units, named errors), validated; an unknown key or a bad value is an {@link IllegalArgumentException}
     * naming it.
     */
    static EngineConfig engineConfig(List<String> sets, EngineConfig base) {
        ExperimentSpec spec = new ExperimentSpec();
        EngineConfig ec = spec.engine;
        ec.mtu(base.mtu).paths(base.paths).planes(base.planes).txRateBps(base.txRateBps);
        try {
            for (String s : sets) {
                int eq = s.indexOf('=');
                SpecFields.set(spec, s.substring(0, eq), s.substring(eq + 1));
            }
            return ec.copy().validate();
        } catch (SpecFields.SpecException e) {
            throw new IllegalArgumentException("--set " + e.getMessage());
        }
    }

    /** Runs the benchmark; see the class comment for the arguments. */
    public static void main(String[] args) {
        Params p = Params.parse(args);
        for (int w = 0; w < p.warmups(); w++) {
            Bench b = new Bench(new Params(8, p.flowBytes(), p.seed() + 1000 + w, p.paths(), 0, p.limitMs(),
                    p.payload(), false, p.trimming(), false, p.engineSets()));
            b.run();
            System.out.printf("warm-up %d (k=8): dataPackets/wall-s=%.0f wall=%.3f s completed=%d/%d%n", w,
                    b.dataPackets() * 1e9 / Math.max(1, b.wallNs), b.wallNs / 1e9, b.completed, b.flows);
        }
        long setup0 = System.nanoTime();
        Bench b = new Bench(p);
        double setupS = (System.nanoTime() - setup0) / 1e9;
        b.run();
        b.report(setupS);
    }

    /** The benchmark's fabric at arity {@code k}. */
    static FabricConfig fabric(int k) {
        return new FabricConfig().fatTree(k).planes(1)
                .hostRateBps(100_000_000_000L).fabricRateBps(100_000_000_000L)
                .hostLinkDelayPs(Units.psFromUs(1)).fabricLinkDelayPs(Units.psFromUs(1))
                .bufferBytes(178_450).ecn(37_000, 145_000, 1.0)
                .wireOverheadBytes(4150 - io.metaroce.core.wire.Packet.datagramLength(Opcode.WRITE, 4086))
                .controlWireBytes(64);
    }

    /**
     * One benchmark run: the fabric, one host with a real engine per fabric host, and one WRITE flow per host
     * to its permutation peer. Payload bytes are really moved by the engines, but as htsim carries none, every
     * host reads from one shared source buffer and writes into one shared sink buffer (the data is not
     * verified here; {@link Simulation} verifies it in the tests), so memory does not grow by a flow per host.
     */
    private static final class Bench {
        final Params p;
        final EventLoop loop = new EventLoop();
        final PacketPool pool;
        final Fabric fabric;
        final Host[] hosts;
        final Arena arena = Arena.ofAuto();
        final int flows;
        final long rssBeforeQpsKb;
        int completed;
        long lastCompletionPs;
        /** Completion times of the flows, in order of completion (every flow starts at time 0). */
        long[] completionPs;
        long wallNs;
        long cpuNs;

        Bench(Params p) {
            this.p = p;
            FabricConfig fc = fabric(p.k()).trimming(p.trimming());
            int n = fc.hosts;
            SplittableRandom master = new SplittableRandom(p.seed());
            EngineConfig ec = engineConfig(p.engineSets(),
                    new EngineConfig().mtu(4086).paths(p.paths()).planes(1).txRateBps(fc.hostRateBps));
            ec.elidePayload = !p.payload(); // htsim carries no payload either
            Engine[] engines = new Engine[n];
            for (int i = 0; i < n; i++) {
                engines[i] = new Engine(ec, master.split());
            }
            pool = MetaRoceTransport.packetPool(ec, 0);
            fabric = Topologies.build(fc, loop, pool, master.split());
            MemorySegment source = arena.allocate(p.flowBytes(), 64);
            SplittableRandom fill = master.split();
            for (long off = 0; off + 8 <= source.byteSize(); off += 8) {
                source.set(ValueLayout.JAVA_LONG_UNALIGNED, off, fill.nextLong());
            }
            MemorySegment sink = arena.allocate(p.flowBytes(), 64);
            hosts = new Host[n];
            ProtectionDomain[] pds = new ProtectionDomain[n];
            CompletionQueue[] cqs = new CompletionQueue[n];
            for (int i = 0; i < n; i++) {
                hosts[i] = new Host(i, engines[i], loop, pool, fabric.nics(i));
                fabric.attach(i, hosts[i]);
                pds[i] = engines[i].allocPd();
                cqs[i] = engines[i].createCq(p.allToAll() ? 2 * n : 64);
                hosts[i].watchCompletions(cqs[i], this::completed);
            }
            rssBeforeQpsKb = rssKb();
            MemoryRegion[] src = new MemoryRegion[n];
            MemoryRegion[] dst = new MemoryRegion[n];
            for (int i = 0; i < n; i++) {
                src[i] = engines[i].registerMemory(pds[i], source, Access.LOCAL_WRITE);
                dst[i] = engines[i].registerMemory(pds[i], sink, Access.ALL);
            }
            int[] perm = Derangement.byReshuffling(n, new SplittableRandom(p.seed() ^ 0x5eed));
            int f = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 1; j < (p.allToAll() ? n : 2); j++) {
                    // all-to-all: every ordered pair, each on its own connection (htsim's 128 x 127 flows)
                    int d = p.allToAll() ? (i + j) % n : perm[i];
                    QueuePair qa = engines[i].createQp(pds[i], cqs[i], cqs[i]);
                    QueuePair qb = engines[d].createQp(pds[d], cqs[d], cqs[d]);
                    int psnA = master.nextInt(1 << 24);
                    int psnB = master.nextInt(1 << 24);
                    qa.connect(d, qb.qpn(), psnA, psnB);
                    qb.connect(i, qa.qpn(), psnB, psnA);
                    int rc = qa.postWrite(f++, src[i], 0, (int) p.flowBytes(), dst[d].address(), dst[d].rkey(),
                            QueuePair.SIGNALED);
                    if (rc != QueuePair.OK) {
                        throw new IllegalStateException("postWrite failed: " + rc);
                    }
                }
            }
            flows = f;
            for (Host h : hosts) {
                h.pump();
            }
        }

        private void completed(Host host, WorkCompletion wc, long nowPs) {
            if (wc.status() != WcStatus.SUCCESS) {
                return;
            }
            if (completionPs == null) {
                completionPs = new long[flows];
            }
            completionPs[completed] = nowPs;
            completed++;
            lastCompletionPs = nowPs;
            if (completed == flows) {
                loop.stop();
            }
        }

        void run() {
            // promote the setup's long-lived objects (engines, fabric) now, so young collections during the
            // measured run do not copy them
            System.gc();
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            loop.run(Units.psFromMs(p.limitMs()));
            wallNs = System.nanoTime() - t0;
            cpuNs = threads.getCurrentThreadCpuTime() - c0;
        }

        long dataPackets() {
            long n = 0;
            for (Host h : hosts) {
                n += h.txDataPackets();
            }
            return n;
        }

        long engineCounter(Counter c) {
            long n = 0;
            for (Host h : hosts) {
                n += h.engine().counters().get(c);
            }
            return n;
        }

        /** Every engine counter that is not zero, summed over the hosts, one line of name=value pairs. */
        void printCounters() {
            StringBuilder line = new StringBuilder("counters:");
            for (Counter c : Counter.values()) {
                long n = engineCounter(c);
                if (n != 0) {
                    line.append(' ').append(c.name()).append('=').append(n);
                }
            }
            System.out.println(line);
        }

        void report(double setupS) {
            double wallS = wallNs / 1e9;
            long data = dataPackets();
            long events = loop.eventsProcessed();
            long wakes = 0;
            long stale = 0;
            long hostRx = 0;
            long hostTx = 0;
            long internal = 0;
            for (Host h : hosts) {
                wakes += h.wakeTimer().fired();
                stale += h.wakeTimer().staleFirings();
                hostRx += h.rxPackets();
                hostTx += h.txPackets();
                internal += h.engine().internalErrors();
            }
            long linkDrops = 0;
            for (Link l : fabric.links()) {
                linkDrops += l.dropped();
            }
            long simPs = completed == flows ? lastCompletionPs : loop.nowPs();
            double goodput = (double) completed * p.flowBytes() * 8.0 / Math.max(1, simPs) * 1000.0;
            long peakKb = peakRssKb();
            double rssMb = peakKb / 1024.0;
            double pps = data / Math.max(1e-9, wallS);
            double epp = (double) events / Math.max(1, data);
            double perConnKb = (peakKb - rssBeforeQpsKb) / (double) flows;
            double liveMb = liveHeapBytes() / 1048576.0; // after the peak was read: the collection it runs adds none
            System.out.printf("k=%d hosts=%d workload=%s paths=%d flows=%d completed=%d flowBytes=%d simulated=%.1f us "
                            + "goodput=%.1f Gb/s%n", p.k(), hosts.length, p.allToAll() ? "alltoall" : "permutation",
                    hosts[0].engine().config().paths, flows, completed, p.flowBytes(), simPs / 1e6, goodput);
            if (!p.engineSets().isEmpty()) {
                System.out.println("engine settings: " + String.join(" ", p.engineSets()));
            }
            if (completed > 0) {
                // completions arrive in time order: the array is sorted
                System.out.printf("fct: p50=%.1f us p90=%.1f us p99=%.1f us max=%.1f us (%d flows)%n",
                        completionPs[(completed - 1) / 2] / 1e6, completionPs[(int) ((completed - 1) * 0.9)] / 1e6,
                        completionPs[(int) ((completed - 1) * 0.99)] / 1e6, completionPs[completed - 1] / 1e6,
                        completed);
            }
            System.out.printf("memory: peak RSS %.1f MB, %.1f MB before the connections were made: %.1f KB per "
                    + "connection (peak RSS / flows: %.1f KB; a connection is a QP at each end)%n", rssMb,
                    rssBeforeQpsKb / 1024.0, perConnKb, peakKb / (double) flows);
            System.out.printf("live heap after the run: %.1f MB (%.1f KB per host); the rest of the peak RSS is the JVM "
                    + "(code, class data, compiler, collector) and heap not yet collected%n", liveMb,
                    liveMb * 1024 / hosts.length);
            System.out.printf("dataPackets=%d events=%d setup=%.3f s wall=%.3f s cpu=%.3f s (the simulating thread; "
                    + "below wall when other processes compete for the cores)%n", data, events, setupS, wallS,
                    cpuNs / 1e9);
            System.out.printf("dataPackets/wall-s=%.0f events/s=%.0f events/dataPacket=%.2f peakRss=%.1f MB%n", pps,
                    events / wallS, epp, rssMb);
            System.out.printf("bufferDrops=%d linkDrops=%d ecnMarks=%d retransmits=%d timeouts=%d poolCreated=%d "
                            + "internalErrors=%d%n", fabric.bufferDrops(), linkDrops,
                    fabric.sumPorts(SwitchPort::ecnMarked), engineCounter(Counter.RETRANSMITS),
                    engineCounter(Counter.TIMEOUTS), pool.created(), internal);
            if (p.trimming()) {
                System.out.printf("trimmed=%d trimNaks=%d trimLosses=%d%n", fabric.sumPorts(SwitchPort::trimmed),
                        engineCounter(Counter.RX_TRIMMED), engineCounter(Counter.TRIM_LOSSES));
            }
            if (p.counters()) {
                printCounters();
            }
            System.out.printf("hostTxPackets=%d hostRxPackets=%d engineWakes=%d staleWakes=%d peakPendingEvents=%d%n",
                    hostTx, hostRx, wakes, stale, loop.peakPending());
            System.out.printf("RESULT k=%d hosts=%d pkts_per_s=%.0f events_per_s=%.0f events_per_pkt=%.2f "
                            + "wall_s=%.3f cpu_s=%.3f pkts_per_cpu_s=%.0f setup_s=%.3f rss_mb=%.1f completed=%d flows=%d "
                            + "workload=%s kb_per_conn=%.1f live_heap_mb=%.1f%n",
                    p.k(), hosts.length, pps, events / wallS, epp, wallS, cpuNs / 1e9, data / Math.max(1e-9, cpuNs / 1e9),
                    setupS, rssMb, completed, flows, p.allToAll() ? "alltoall" : "permutation", perConnKb, liveMb);
        }
    }

    /**
     * Bytes of heap reachable now: a full collection first (the simulation's objects are still referenced, so this is
     * what the run holds: engines, fabric, the packet pool at its peak), then the heap's used bytes.
     */
    static long liveHeapBytes() {
        System.gc();
        return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Peak resident set of this process in KiB (VmHWM), or -1 where /proc is not available. */
    static long peakRssKb() {
        return status("VmHWM:");
    }

    /** Resident set of this process now in KiB (VmRSS), or -1 where /proc is not available. */
    static long rssKb() {
        return status("VmRSS:");
    }

    private static long status(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
