package io.metaroce.cli;

import io.metaroce.core.EngineConfig;
import io.metaroce.testkit.BulkTransfer;
import io.metaroce.cli.options.Converters;
import io.metaroce.core.unit.Quantity;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code metaroce demo}: the transport under random loss, in the deterministic harness. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs three parts and verifies every byte they move:",
                "  1) a real RDMA WRITE transfer between two devices over loopback UDP (planes 127.0.0.1-4, 4 paths, "
                        + "1%% of received datagrams dropped on purpose; --loopback-size 0 skips it);",
                "  2) the deterministic harness (virtual time): an RDMA WRITE over --paths paths in --planes planes "
                        + "at each --loss rate, with goodput, retransmissions and completion time;",
                "  3) the fabric simulator (virtual time): MetaRoCE against RoCEv2 (go-back-N, DCQCN, PFC, one QP "
                        + "per plane per host pair) on a leaf-spine of --sim-hosts hosts, a permutation of "
                        + "--sim-size per flow, at 0%% and 1%% random loss on every link (--sim-hosts 0 skips it).",
                "Sizes are written 64MiB, 4MB (10^6), 1500; rates 100Gbps, 10gbit."})
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--paths", defaultValue = "16", description = "part 2: paths per QP (default ${DEFAULT-VALUE})")
    int paths;
    @Option(names = "--planes", defaultValue = "4", description = "part 2: planes (default ${DEFAULT-VALUE})")
    int planes;
    @Option(names = "--size", defaultValue = "64MiB", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "part 2: bytes to write (default ${DEFAULT-VALUE})")
    long size;
    @Option(names = "--rate", defaultValue = "100Gbps", paramLabel = "RATE", converter = Converters.Rate.class,
            description = "part 2: port rate per plane (default ${DEFAULT-VALUE})")
    long rateBps;
    @Option(names = "--loss", split = ",", defaultValue = "0,0.01,0.10", paramLabel = "FRACTION",
            converter = Converters.Fraction.class,
            description = "part 2: loss rates to run, e.g. 0,1%%,0.1 (default ${DEFAULT-VALUE})")
    double[] losses;
    @Option(names = "--seed", defaultValue = "1", description = "random seed (default ${DEFAULT-VALUE})")
    long seed;
    @Option(names = "--loopback-size", defaultValue = "64MiB", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "part 1: bytes of the real loopback transfer, a multiple of 1MiB; 0 skips it "
                    + "(default ${DEFAULT-VALUE})")
    long loopbackSize;
    @Option(names = "--sim-hosts", defaultValue = "16",
            description = "part 3: hosts of the simulated MetaRoCE vs RoCEv2 comparison (4 per leaf, 4 spines, 4 planes); "
                    + "0 skips it (default ${DEFAULT-VALUE})")
    int simHosts;
    @Option(names = "--sim-size", defaultValue = "4MiB", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "part 3: bytes per flow of the simulated permutation (default ${DEFAULT-VALUE})")
    long simSize;

    public DemoCommand() {
    }

    @Override
    public Integer call() throws Exception {
        if (simHosts < 0 || simHosts == 1 || simSize <= 0) {
            System.err.println("metaroce demo: --sim-hosts must be 0 (skip) or at least 2 and --sim-size positive");
            return 2;
        }
        if (loopbackSize % (1 << 20) != 0 || size <= 0 || rateBps <= 0) {
            System.err.println("metaroce demo: --loopback-size must be a multiple of 1MiB, --size and --rate positive");
            return 2;
        }
        int loopbackMib = (int) (loopbackSize >> 20);
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
        // the harness's line rate (PATH-14), which also sizes the connection's initial window (CC-1)
        EngineConfig cfg = new EngineConfig().paths(paths).planes(planes).txRateBps(rateBps * planes);
        long bytes = size;
        System.out.printf(Locale.ROOT, "MetaRoCE-J demo: %s RDMA WRITE, %d paths over %d planes of %s, "
                + "deterministic harness (virtual time, seed %d)%n%n", Quantity.formatBytes(size), paths, planes,
                Quantity.formatBitsPerSecond(rateBps), seed);
        System.out.printf(Locale.ROOT, "%-7s %12s %10s %14s %12s %9s %12s %8s%n", "loss", "goodput Gb/s",
                "vs 0% loss", "data dropped", "retransmits", "retx/drop", "time (ms)", "data");
        double lossless = Double.NaN;
        boolean allCorrect = true;
        for (double loss : losses) {
            BulkTransfer.Result r = BulkTransfer.run(cfg, rateBps, loss, bytes, 64, seed,
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
                + "at the receiver. Aggregate line rate: %s.%n", Quantity.formatBitsPerSecond(rateBps * planes));
        boolean simOk = true;
        if (simHosts != 0) {
            System.out.printf(Locale.ROOT, "%n3) Simulated fabric (virtual time, seed %d): MetaRoCE vs RoCEv2, "
                    + "%d hosts (4 per leaf, 4 spines, 4 planes of 100 Gb/s), permutation of %s per flow, "
                    + "random loss on every link; RoCEv2 as deployed: PFC, DCQCN with its ECN thresholds (400 KB / "
                    + "1.6 MB), one QP per plane per host pair; MetaRoCE: one QP per pair over 16 paths, minRto "
                    + "50 us; goodput summed over all flows, FCT per flow%n%n", seed, simHosts,
                    Quantity.formatBytes(simSize));
            simOk = SimDemo.run(simHosts, simSize, new double[] {0, 0.01}, seed, System.out).ok();
        }
        return allCorrect && loopbackOk && simOk ? 0 : 1;
    }
}
