package io.metaroce.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * {@link EngineBench}'s parts interleaved in one JVM, for a machine whose load changes from second to second: JMH
 * runs each benchmark in its own fork, minutes apart, so on shared cores the ratio of two of them moves with the
 * load (0.08-0.33 for the same code in one afternoon). Here every slice runs each part for the same short time,
 * one after the other (the copy baseline, the data floor, one CRC32C, the engine pair copying and gathering), and
 * the ratios are taken within the slice; the median over the slices is what a quiet machine would show.
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar io.metaroce.bench.EngineRatio [payload] [slices]
 * [sliceMs] [warmupSeconds]} (defaults 4096, 30, 100, 10). Prints one line per slice (progress) and a summary of
 * min / median / max per figure.
 */
public final class EngineRatio {
    private EngineRatio() {
    }

    /** A named part: one call runs {@link EngineBench#BATCH} packets (or copies). */
    private record Part(String name, LongSupplier batch) {
    }

    public static void main(String[] args) {
        int payload = args.length > 0 ? Integer.parseInt(args[0]) : 4096;
        int slices = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        long sliceNs = (args.length > 2 ? Long.parseLong(args[2]) : 100) * 1_000_000L;
        long warmupNs = (args.length > 3 ? Long.parseLong(args[3]) : 10) * 1_000_000_000L;
        EngineBench copy = bench(payload, "copy");
        EngineBench gather = bench(payload, "gather");
        List<Part> parts = List.of(new Part("copy", copy::copyBaseline), new Part("floor", copy::dataFloor),
                new Part("crc", () -> copy.crcBaseline()), new Part("engine-copy", copy::engine),
                new Part("engine-gather", gather::engine));
        try {
            System.out.printf(Locale.ROOT, "warming up %d s (payload %d B)%n", warmupNs / 1_000_000_000L, payload);
            long end = System.nanoTime() + warmupNs;
            while (System.nanoTime() - end < 0) {
                for (Part p : parts) {
                    run(p, sliceNs / 4);
                }
            }
            double[][] ns = new double[parts.size()][slices];
            System.out.printf(Locale.ROOT, "%5s %9s %9s %9s %12s %14s   (ns per packet; engine / copy ratios)%n",
                    "slice", "copy", "floor", "crc", "engine-copy", "engine-gather");
            for (int s = 0; s < slices; s++) {
                for (int k = 0; k < parts.size(); k++) {
                    ns[k][s] = run(parts.get(k), sliceNs);
                }
                System.out.printf(Locale.ROOT, "%5d %9.1f %9.1f %9.1f %12.1f %14.1f   %.3f %.3f%n", s + 1, ns[0][s],
                        ns[1][s], ns[2][s], ns[3][s], ns[4][s], ns[0][s] / ns[3][s], ns[0][s] / ns[4][s]);
            }
            summary(ns, slices);
        } finally {
            copy.tearDown();
            gather.tearDown();
        }
    }

    private static EngineBench bench(int payload, String transmit) {
        EngineBench b = new EngineBench();
        b.payload = payload;
        b.packetsPerMessage = 16;
        b.datagramBuffers = "split";
        b.auth = "off";
        b.transmit = transmit;
        b.ackBundle = true;
        b.setup();
        return b;
    }

    /** Runs {@code p} for about {@code forNs}; returns nanoseconds per packet. */
    private static double run(Part p, long forNs) {
        long sink = 0;
        long batches = 0;
        long t0 = System.nanoTime();
        long t;
        do {
            sink += p.batch().getAsLong();
            batches++;
            t = System.nanoTime();
        } while (t - t0 < forNs);
        if (sink == 42) {
            System.out.print(""); // keeps the result alive
        }
        return (double) (t - t0) / (batches * EngineBench.BATCH);
    }

    private static void summary(double[][] ns, int slices) {
        List<String> lines = new ArrayList<>();
        String[] what = {"copy ns", "floor ns", "crc ns", "engine-copy ns", "engine-gather ns"};
        for (int k = 0; k < what.length; k++) {
            lines.add(stat(what[k], ns[k], "%.1f"));
        }
        double[] floorRatio = new double[slices];
        double[] copyRatio = new double[slices];
        double[] gatherRatio = new double[slices];
        double[] copyProto = new double[slices];
        double[] gatherProto = new double[slices];
        for (int s = 0; s < slices; s++) {
            floorRatio[s] = ns[0][s] / ns[1][s];
            copyRatio[s] = ns[0][s] / ns[3][s];
            gatherRatio[s] = ns[0][s] / ns[4][s];
            copyProto[s] = ns[3][s] - ns[1][s];
            gatherProto[s] = ns[4][s] - ns[1][s];
        }
        lines.add(stat("floor / copy bytes/s (best an engine pair can do)", floorRatio, "%.3f"));
        lines.add(stat("engine-copy / copy bytes/s (target 0.5)", copyRatio, "%.3f"));
        lines.add(stat("engine-gather / copy bytes/s (target 0.5)", gatherRatio, "%.3f"));
        lines.add(stat("engine-copy minus floor, ns (the protocol's part)", copyProto, "%.1f"));
        lines.add(stat("engine-gather minus floor, ns", gatherProto, "%.1f"));
        System.out.println("\nsummary over " + slices + " slices: min / median / max");
        lines.forEach(System.out::println);
    }

    private static String stat(String name, double[] v, String fmt) {
        double[] s = v.clone();
        Arrays.sort(s);
        String f = fmt + " / " + fmt + " / " + fmt;
        return String.format(Locale.ROOT, "  %-52s " + f, name, s[0], s[s.length / 2], s[s.length - 1]);
    }
}
