package io.metaroce.cli;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.testkit.BulkTransfer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code metaroce demo}: the transport under random loss, in the deterministic harness. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Runs a two-endpoint RDMA WRITE transfer in the deterministic harness (virtual time) at "
                + "0%%, 1%% and 10%% random loss over many paths and prints goodput, retransmissions and "
                + "completion time, then compares MetaRoCE with RoCEv2 in the fabric simulator at 0%% and 1%% "
                + "random loss on every link.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--paths", defaultValue = "16", description = "paths per QP (default ${DEFAULT-VALUE})")
    int paths;
    @Option(names = "--planes", defaultValue = "4", description = "planes (default ${DEFAULT-VALUE})")
    int planes;
    @Option(names = "--size-mib", defaultValue = "64", description = "bytes to write, MiB (default ${DEFAULT-VALUE})")
    int sizeMib;
    @Option(names = "--rate-gbps", defaultValue = "100", description = "port rate per plane, Gb/s (default ${DEFAULT-VALUE})")
    long rateGbps;
    @Option(names = "--loss", split = ",", defaultValue = "0,0.01,0.10",
            description = "loss rates to run (default ${DEFAULT-VALUE})")
    double[] losses;
    @Option(names = "--seed", defaultValue = "1", description = "random seed (default ${DEFAULT-VALUE})")
    long seed;
    @Option(names = "--loopback-mib", defaultValue = "64",
            description = "MiB for the real loopback transfer; 0 skips it (default ${DEFAULT-VALUE})")
    int loopbackMib;
    @Option(names = "--sim-hosts", defaultValue = "16",
            description = "hosts of the simulated MetaRoCE vs RoCEv2 comparison (4 per leaf, 4 spines, 4 planes); "
                    + "0 skips it (default ${DEFAULT-VALUE})")
    int simHosts;
    @Option(names = "--sim-mib", defaultValue = "4",
            description = "MiB per flow of the simulated permutation (default ${DEFAULT-VALUE})")
    int simMib;

    public DemoCommand() {
    }

    @Override
    public Integer call() throws Exception {
        if (simHosts < 0 || simHosts == 1 || simMib <= 0) {
            System.err.println("metaroce demo: --sim-hosts must be 0 (skip) or at least 2 and --sim-mib positive");
            return 2;
        }
        boolean loopbackOk = true;
        if (loopbackMib > 0) {
            System.out.printf(Locale.ROOT, "1) Real network: %d MiB RDMA WRITE between two devices over loopback UDP "
                    + "(planes 127.0.0.1-4), 4 paths, 1%% of received datagrams dropped on purpose "
                    + "(test-only injection)%n", loopbackMib);
            LoopbackDemo.Result r = LoopbackDemo.run((long) loopbackMib << 20, 4, 0.01, System.out);
            System.out.printf(Locale.ROOT, "   datapath %s%n   %.2f Gb/s goodput, %.3f s, %d datagrams dropped "
                            + "by injection, %d retransmitted, %d timeouts, data %s%n%n", r.transport(),
                    r.goodputGbps(), r.seconds(), r.injectedDrops(), r.retransmits(), r.timeouts(),
                    r.dataCorrect() ? "verified" : "WRONG");
            loopbackOk = r.dataCorrect();
            System.out.println("2) Deterministic harness (virtual time):");
        }
        EngineConfig cfg = new EngineConfig().paths(paths).planes(planes);
        long bytes = (long) sizeMib << 20;
        System.out.printf(Locale.ROOT, "MetaRoCE-J demo: %d MiB RDMA WRITE, %d paths over %d planes of %d Gb/s, "
                + "deterministic harness (virtual time, seed %d)%n%n", sizeMib, paths, planes, rateGbps, seed);
        System.out.printf(Locale.ROOT, "%-7s %12s %10s %14s %12s %9s %12s %8s%n", "loss", "goodput Gb/s",
                "vs 0% loss", "data dropped", "retransmits", "retx/drop", "time (ms)", "data");
        double lossless = Double.NaN;
        boolean allCorrect = true;
        for (double loss : losses) {
            BulkTransfer.Result r = BulkTransfer.run(cfg, rateGbps * 1_000_000_000L, loss, bytes, 64, seed,
                    60_000_000_000L);
            if (loss == 0) {
                lossless = r.goodputGbps();
            }
            double rel = r.goodputGbps() / lossless;
            System.out.printf(Locale.ROOT, "%-7s %12.1f %10s %14d %12d %9s %12.3f %8s%n",
                    String.format(Locale.ROOT, "%.1f%%", loss * 100), r.goodputGbps(),
                    Double.isNaN(rel) ? "-" : String.format(Locale.ROOT, "%.3f", rel), r.droppedData(),
                    r.retransmits(), r.droppedData() == 0 ? "-"
                            : String.format(Locale.ROOT, "%.2f", (double) r.retransmits() / r.droppedData()),
                    r.completionNs() / 1e6, r.dataCorrect() && r.errors() == 0 ? "ok" : "WRONG");
            allCorrect &= r.dataCorrect() && r.errors() == 0;
        }
        System.out.printf(Locale.ROOT, "%nOnly lost packets are resent (retx/drop near 1.0); every byte is verified "
                + "at the receiver. Aggregate line rate: %d Gb/s.%n", rateGbps * planes);
        boolean simOk = true;
        if (simHosts != 0) {
            System.out.printf(Locale.ROOT, "%n3) Simulated fabric (virtual time, seed %d): MetaRoCE vs RoCEv2, "
                    + "%d hosts (4 per leaf, 4 spines, 4 planes of 100 Gb/s), permutation of %d MiB per flow, "
                    + "random loss on every link; RoCEv2 with PFC and DCQCN as deployed, MetaRoCE with minRto "
                    + "50 us; goodput summed over all flows, FCT per flow%n%n", seed, simHosts, simMib);
            simOk = SimDemo.run(simHosts, (long) simMib << 20, new double[] {0, 0.01}, seed, System.out).ok();
        }
        return allCorrect && loopbackOk && simOk ? 0 : 1;
    }
}
