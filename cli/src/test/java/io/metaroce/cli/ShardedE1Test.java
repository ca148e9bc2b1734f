package io.metaroce.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * E1 on the real simulator, scaled down ({@code --scaled}, two loss rates, 1 MiB: 8 points), run two ways through
 * the command line: once with two points at a time ({@code --jobs 2}), and as 4 shards ({@code --shard I/4}, one
 * point at a time) merged with {@code sim merge}. Every file the two write (records, sweep.csv, sweep.png, summary.md,
 * every point's CSVs and PNGs) is byte for byte the same once the wall-clock metrics are taken out.
 */
class ShardedE1Test {
    private static final Set<String> WALL_CLOCK = Set.of("wall_s", "events_per_wall_s", "data_packets_per_wall_s");

    private static int metaroce(String... args) {
        PrintStream saved = System.out;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            return Main.run(args);
        } finally {
            System.setOut(saved);
        }
    }

    @Test
    void fourShardsMergedEqualOneParallelRun(@TempDir Path tmp) throws IOException {
        String e1 = ExperimentsScaledTest.experimentsDir().resolve("e1-loss.yaml").toString();
        String[] common = {"--scaled", "--sweep", "fabric.linkLoss=0,0.01", "--set", "workload.bytes=1MiB",
            "--quiet"};
        Path single = tmp.resolve("single");
        // exit code 1: e1's acceptance fails today (see ExperimentsScaledTest); the files are what is compared
        assertEquals(1, metaroce(concat(new String[] {"sim", "run", e1, "--out", single.toString(), "--jobs", "2"},
                common)));
        List<String> merge = new ArrayList<>(List.of("sim", "merge"));
        for (int i = 1; i <= 4; i++) {
            Path d = tmp.resolve("shard-" + i);
            assertEquals(0, metaroce(concat(new String[] {"sim", "run", e1, "--out", d.toString(), "--jobs", "1",
                    "--shard", i + "/4"}, common)));
            merge.add(d.toString());
        }
        // a shard missing: refused with exit code 2 and nothing written
        Path partial = tmp.resolve("partial");
        List<String> three = new ArrayList<>(merge.subList(0, 5));
        three.addAll(List.of("--out", partial.toString()));
        assertEquals(2, metaroce(three.toArray(new String[0])));
        assertFalse(Files.exists(partial.resolve("records.yaml")));
        merge.addAll(List.of("--out", tmp.resolve("merged").toString()));
        assertEquals(1, metaroce(merge.toArray(new String[0])));

        Map<String, String> a = tree(single, "\0");
        Map<String, String> b = tree(tmp.resolve("merged"), "\0");
        assertEquals(a.keySet(), b.keySet());
        assertTrue(a.keySet().containsAll(List.of("records.yaml", "sweep.csv", "sweep.png", "summary.md")), a.keySet()
                .toString());
        assertEquals(8, a.keySet().stream().filter(f -> f.endsWith("record.yaml")).count(), a.keySet().toString());
        for (String f : a.keySet()) {
            assertEquals(a.get(f), b.get(f), f);
        }
    }

    @Test
    void badShardJobsAndMergeArgumentsAreOneLineErrors(@TempDir Path tmp) {
        String e1 = ExperimentsScaledTest.experimentsDir().resolve("e1-loss.yaml").toString();
        String out = tmp.resolve("x").toString();
        for (String[] args : List.of(new String[] {"sim", "run", e1, "--shard", "5/4", "--out", out},
                new String[] {"sim", "run", e1, "--shard", "two", "--out", out},
                new String[] {"sim", "run", e1, "--jobs", "0", "--out", out},
                new String[] {"sim", "merge", tmp.toString(), "--out", out})) {
            PrintStream saved = System.err;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try {
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                assertEquals(2, metaroce(args), String.join(" ", args));
            } finally {
                System.setErr(saved);
            }
            String msg = err.toString(StandardCharsets.UTF_8);
            assertEquals(1, msg.lines().count(), msg);
            assertTrue(msg.startsWith("metaroce sim "), msg);
        }
        assertFalse(Files.exists(tmp.resolve("x")), "nothing written");
    }

    private static String[] concat(String[] a, String[] b) {
        return Stream.concat(Arrays.stream(a), Arrays.stream(b)).toArray(String[]::new);
    }

    /**
     * Every file under {@code dir} but those whose relative path starts with {@code skip} (e.g. shard directories
     * inside the merged one): text without wall-clock metrics; PNGs as a hash and size of their bytes.
     */
    static Map<String, String> tree(Path dir, String skip) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                String name = dir.relativize(p).toString();
                if (name.startsWith(skip)) {
                    continue;
                }
                if (name.endsWith(".png")) {
                    files.put(name, Arrays.hashCode(Files.readAllBytes(p)) + " (" + Files.size(p) + " bytes)");
                } else if (name.endsWith("sweep.csv")) {
                    files.put(name, withoutWallColumns(Files.readAllLines(p)));
                } else {
                    files.put(name, Files.readAllLines(p).stream()
                            .filter(l -> !WALL_CLOCK.contains(l.strip().split(":")[0]))
                            .collect(Collectors.joining("\n")));
                }
            }
        }
        return files;
    }

    private static String withoutWallColumns(List<String> lines) {
        List<String> header = List.of(lines.get(0).split(",", -1));
        List<Integer> keep = IntStream.range(0, header.size()).filter(i -> !WALL_CLOCK.contains(header.get(i)))
                .boxed().toList();
        assertTrue(keep.size() < header.size(), "sweep.csv has wall-clock columns: " + header);
        return lines.stream().map(l -> {
            String[] cells = l.split(",", -1);
            return keep.stream().map(i -> cells[i]).collect(Collectors.joining(","));
        }).collect(Collectors.joining("\n"));
    }
}
