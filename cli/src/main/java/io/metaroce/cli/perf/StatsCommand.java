package io.metaroce.cli.perf;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code metaroce stats FILE}: prints the statistics a running tool writes with {@code --stats-file FILE}. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Prints a device's statistics (counters, and per QP and path: RTT, window, in flight, "
                + "retransmits, timeouts, ECN echoes, SACK gaps) from the JSON file a running tool writes every "
                + "second with --stats-file FILE (for example `metaroce perf write-bw --stats-file FILE`)."})
public final class StatsCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The statistics file.")
    Path file;

    @Option(names = {"-w", "--watch"}, description = "Print again every interval until interrupted.")
    boolean watch;

    @Option(names = "--interval", defaultValue = "1", paramLabel = "SECONDS",
            description = "With --watch: seconds between prints (default ${DEFAULT-VALUE}).")
    double intervalS;

    @Option(names = "--count", paramLabel = "N", description = "With --watch: stop after N prints.")
    Integer count;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public StatsCommand() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new StatsCommand()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int prints = watch ? (count != null ? count : Integer.MAX_VALUE) : 1;
        for (int k = 0; k < prints; k++) {
            if (k > 0) {
                Thread.sleep((long) (intervalS * 1000));
                out.println();
            }
            StatsJson.Snapshot snap;
            try {
                snap = StatsJson.read(Files.readString(file, StandardCharsets.UTF_8));
            } catch (IOException e) {
                err.println("stats: cannot read " + file + ": " + e.getMessage()
                        + " (start a tool with --stats-file " + file + ")");
                err.flush();
                return 1;
            } catch (IllegalArgumentException e) {
                err.println("stats: " + file + " is not a statistics file: " + e.getMessage());
                err.flush();
                return 1;
            }
            double ageS = (System.currentTimeMillis() - snap.writtenAtMs()) / 1e3;
            out.printf(Locale.ROOT, "%s: written %s (%.1f s ago%s)%s%n", file, Instant.ofEpochMilli(snap.writtenAtMs()),
                    ageS, ageS > 3 ? "; the writer may have stopped" : "",
                    snap.source().isEmpty() ? "" : " by " + snap.source());
            out.print(snap.stats().format());
            out.flush();
        }
        return 0;
    }
}
