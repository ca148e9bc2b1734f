package io.metaroce.cli;

import io.metaroce.testkit.stress.CaseGenerator;
import io.metaroce.testkit.stress.StressCase;
import io.metaroce.testkit.stress.StressResult;
import io.metaroce.testkit.stress.StressRun;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code metaroce stress}: the engine's random stress (package {@code io.metaroce.testkit.stress}), many
 * seeded cases in parallel with progress and a summary, or one case with its trace.
 */
@Command(name = "stress", mixinStandardHelpOptions = true,
        description = "Random stress of the engine on the deterministic harness: each seed makes a case of 2-8 "
                + "engines, 1-64 QPs per pair, every operation and size, PSN wrap and random faults that heal; "
                + "every work request must then complete with correct data. Prints progress, a summary and every "
                + "failing seed; exit code 1 when any case failed.")
public final class StressCommand implements Callable<Integer> {
    @Option(names = "--cases", defaultValue = "2000", description = "Cases to run (default ${DEFAULT-VALUE}).")
    int cases;
    @Option(names = "--seed-base", defaultValue = "1",
            description = "First seed; the cases are seeds N..N+cases-1 (default ${DEFAULT-VALUE}).")
    long seedBase;
    @Option(names = "--jobs", defaultValue = "0",
            description = "Cases run at once; 0 = one per available core (default ${DEFAULT-VALUE}).")
    int jobs;
    @Option(names = "--seed", description = "Run this one seed only and print its case, result and detail.")
    Long seed;
    @Option(names = "--trace", paramLabel = "FILE",
            description = "With --seed: write every delivered datagram, fault, post and completion to FILE.")
    Path trace;
    @Option(names = "--csv", paramLabel = "FILE",
            description = "Write one line per case (seed, category, virtual ns, events, ops, bytes, wall ms, reason).")
    Path csv;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public StressCommand() {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut();
        if (seed != null) {
            return one(o, seed);
        }
        if (trace != null) {
            spec.commandLine().getErr().println("stress: --trace needs --seed");
            return 2;
        }
        if (cases < 1 || jobs < 0) {
            spec.commandLine().getErr().println("stress: --cases must be >= 1 and --jobs >= 0");
            return 2;
        }
        return batch(o);
    }

    private int one(PrintWriter o, long s) throws IOException {
        StressCase c = CaseGenerator.generate(s);
        o.println(c.describe());
        o.println("faults: " + c.faults());
        StressResult r;
        if (trace != null) {
            try (BufferedWriter w = Files.newBufferedWriter(trace)) {
                r = StressRun.run(c, line -> {
                    try {
                        w.write(line);
                        w.newLine();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
        } else {
            r = StressRun.run(c, null);
        }
        o.println(r.line());
        o.print(r.detail());
        o.printf("virtual %.3f ms, %d network events%n", r.virtualNs() / 1e6, r.events());
        if (trace != null) {
            o.println("trace written to " + trace);
        }
        return r.passed() ? 0 : 1;
    }

    private record Timed(StressResult result, long wallNs) {
    }

    private int batch(PrintWriter o) throws Exception {
        int threads = jobs == 0 ? Runtime.getRuntime().availableProcessors() : jobs;
        o.printf("stress: %d cases, seeds %d..%d, %d jobs%n", cases, seedBase, seedBase + cases - 1, threads);
        o.flush();
        long start = System.nanoTime();
        List<Timed> results = new ArrayList<>(cases);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            ExecutorCompletionService<Timed> done = new ExecutorCompletionService<>(pool);
            for (long s = seedBase; s < seedBase + cases; s++) {
                long caseSeed = s;
                done.submit(() -> {
                    long t = System.nanoTime();
                    StressResult r = StressRun.run(caseSeed);
                    return new Timed(r, System.nanoTime() - t);
                });
            }
            long lastReport = start;
            int failed = 0;
            for (int i = 0; i < cases; i++) {
                Future<Timed> f = done.take();
                Timed t = f.get();
                results.add(t);
                if (!t.result.passed()) {
                    failed++;
                    o.println("FAIL " + t.result.line());
                }
                long now = System.nanoTime();
                if (now - lastReport > 5_000_000_000L || i == cases - 1) {
                    lastReport = now;
                    double rate = (i + 1) / ((now - start) / 1e9);
                    o.printf("[%5d/%d] %d failed, %.1f cases/s, %.0f s left%n", i + 1, cases, failed, rate,
                            (cases - i - 1) / rate);
                }
                o.flush();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        results.sort(Comparator.comparingLong(t -> t.result.seed()));
        if (csv != null) {
            writeCsv(results);
        }
        return summary(o, results, seconds, threads);
    }

    private int summary(PrintWriter o, List<Timed> results, double seconds, int threads) {
        Map<String, List<StressResult>> byCategory = new TreeMap<>();
        long ops = 0;
        long bytes = 0;
        long events = 0;
        long trimmed = 0;
        long rebuilt = 0;
        Timed slowest = results.getFirst();
        for (Timed t : results) {
            StressResult r = t.result;
            ops += r.operations();
            bytes += r.bytes();
            events += r.events();
            trimmed += r.trimmed();
            rebuilt += r.rebuilt();
            if (t.wallNs > slowest.wallNs) {
                slowest = t;
            }
            if (!r.passed()) {
                byCategory.computeIfAbsent(r.category(), k -> new ArrayList<>()).add(r);
            }
        }
        int failed = byCategory.values().stream().mapToInt(List::size).sum();
        o.println();
        o.printf("cases %d, passed %d, failed %d; %d work requests, %.1f MB payload, %d network events, %d packets "
                + "trimmed, %d segments rebuilt from parities%n", results.size(), results.size() - failed, failed, ops,
                bytes / 1e6, events, trimmed, rebuilt);
        o.printf("wall %.1f s with %d jobs: %.1f cases/s (slowest: seed %d, %.2f s)%n", seconds, threads,
                results.size() / seconds, slowest.result.seed(), slowest.wallNs / 1e9);
        for (Map.Entry<String, List<StressResult>> e : byCategory.entrySet()) {
            List<StressResult> l = e.getValue();
            StringBuilder seeds = new StringBuilder();
            for (StressResult r : l) {
                seeds.append(seeds.isEmpty() ? "" : " ").append(r.seed());
            }
            o.printf("  %-24s %4d  seeds %s%n", e.getKey(), l.size(), seeds);
        }
        if (failed > 0) {
            o.println("replay one: ./metaroce stress --seed N --trace trace.txt");
        }
        o.printf("%d passed, %d failed%n", results.size() - failed, failed);
        return failed == 0 ? 0 : 1;
    }

    private void writeCsv(List<Timed> results) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            w.write("seed,category,virtual_ns,events,ops,bytes,wall_ms,reason\n");
            for (Timed t : results) {
                StressResult r = t.result;
                w.write(r.seed() + "," + r.category() + "," + r.virtualNs() + "," + r.events() + ","
                        + r.operations() + "," + r.bytes() + "," + t.wallNs / 1_000_000 + ",\""
                        + r.reason().replace("\"", "'") + "\"\n");
            }
        }
    }
}
