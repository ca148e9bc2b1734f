package io.metaroce.sim;

import io.metaroce.core.EngineConfig;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.SplittableRandom;

/**
 * Throughput benchmark of the simulator: a seeded random permutation of 2 MB WRITE flows on a 128-host
 * leaf-spine (1 plane, 100 Gb/s, 1 us links). Prints data packets simulated per wall-second, events per
 * second, events per data packet, wall time and peak heap. Arguments: [hosts] [flowBytes] [seed] [warmups]
 * (defaults 128, 2 MiB, 1, 1). Warm-up runs use other seeds and are not measured, so the JIT has compiled the
 * hot paths first; the peak heap covers the warm-ups too. Zero allocation per packet in steady state is meant
 * to be checked here (e.g. with -Xlog:gc or JFR allocation samples), not in unit tests.
 */
public final class SimBench {
    private SimBench() {
    }

    public static void main(String[] args) {
        int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 128;
        long flowBytes = args.length > 1 ? Long.parseLong(args[1]) : 2L << 20;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
        int warmups = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        for (int w = 0; w < warmups; w++) {
            Simulation.Result r = run(hosts, flowBytes, seed + 1000 + w).result;
            System.out.printf("warm-up %d: dataPackets/wall-s=%.0f wall=%.3f s%n", w, r.dataPacketsPerWallSecond(),
                    r.wallNs() / 1e9);
        }
        Run run = run(hosts, flowBytes, seed);
        Simulation sim = run.sim;
        Simulation.Result r = run.result;
        report(hosts, flowBytes, sim, r);
    }

    private record Run(Simulation sim, Simulation.Result result) {
    }

    private static Run run(int hosts, long flowBytes, long seed) {
        int hostsPerLeaf = 16;
        FabricConfig fc = new FabricConfig().hosts(hosts).hostsPerLeaf(hostsPerLeaf).spines(hostsPerLeaf).planes(1)
                .hostRateBps(100_000_000_000L).fabricRateBps(100_000_000_000L)
                .hostLinkDelayPs(Units.psFromUs(1)).fabricLinkDelayPs(Units.psFromUs(1));
        EngineConfig ec = new EngineConfig();
        Simulation sim = new Simulation(seed, fc, ec, false);
        int[] perm = derangement(hosts, new SplittableRandom(seed ^ 0x5eed));
        for (int i = 0; i < hosts; i++) {
            sim.addFlow(i, perm[i], flowBytes, 1);
        }
        // promote the setup's long-lived objects (engines, buffers) now, so young collections during the
        // measured run do not copy them
        System.gc();
        return new Run(sim, sim.run(Units.psFromMs(1_000)));
    }

    private static void report(int hosts, long flowBytes, Simulation sim, Simulation.Result r) {
        long peak = 0;
        for (MemoryPoolMXBean b : ManagementFactory.getMemoryPoolMXBeans()) {
            if (b.getType() == MemoryType.HEAP) {
                peak += b.getPeakUsage().getUsed();
            }
        }
        double wallS = r.wallNs() / 1e9;
        long wakes = 0;
        long stale = 0;
        long hostRx = 0;
        long hostTx = 0;
        for (int i = 0; i < hosts; i++) {
            wakes += sim.host(i).wakeTimer().fired();
            stale += sim.host(i).wakeTimer().staleFirings();
            hostRx += sim.host(i).rxPackets();
            hostTx += sim.host(i).txPackets();
        }
        System.out.printf("hosts=%d flows=%d completed=%d flowBytes=%d simulated=%.1f us goodput=%.1f Gb/s%n",
                hosts, r.flows(), r.completed(), flowBytes, r.simulatedPs() / 1e6, r.goodputGbps());
        System.out.printf("dataPackets=%d events=%d wall=%.3f s%n", r.dataPackets(), r.events(), wallS);
        System.out.printf("dataPackets/wall-s=%.0f events/s=%.0f events/dataPacket=%.2f peakHeap=%.1f MB%n",
                r.dataPacketsPerWallSecond(), r.events() / wallS, (double) r.events() / Math.max(1, r.dataPackets()),
                peak / 1048576.0);
        System.out.printf("bufferDrops=%d linkDrops=%d ecnMarks=%d retransmits=%d timeouts=%d poolCreated=%d "
                        + "internalErrors=%d meanFct=%.1f us maxFct=%.1f us%n",
                r.bufferDrops(), r.linkDrops(), r.ecnMarks(), r.retransmits(), r.timeouts(), sim.pool().created(),
                r.internalErrors(), r.meanFctUs(), r.maxFctUs());
        System.out.printf("hostTxPackets=%d hostRxPackets=%d engineWakes=%d staleWakes=%d%n", hostTx, hostRx, wakes,
                stale);
    }

    /** A random permutation with no fixed point (every host sends to another). */
    static int[] derangement(int n, SplittableRandom r) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        boolean ok;
        do {
            for (int i = n - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = p[i];
                p[i] = p[j];
                p[j] = t;
            }
            ok = true;
            for (int i = 0; i < n; i++) {
                if (p[i] == i) {
                    ok = false;
                    break;
                }
            }
        } while (!ok);
        return p;
    }
}
