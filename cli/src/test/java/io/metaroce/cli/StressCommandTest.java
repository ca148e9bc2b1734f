package io.metaroce.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code metaroce stress}: a small batch with its summary and CSV, one seed with its trace, and bad options. */
class StressCommandTest {
    private static String capture(Runnable r) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setOut(old);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void smallBatchPrintsProgressSummaryAndCsv(@TempDir Path dir) throws IOException {
        Path csv = dir.resolve("run.csv");
        String out = capture(() -> assertEquals(0, Main.run("stress", "--cases", "4", "--seed-base", "1", "--jobs",
                "2", "--csv", csv.toString())));
        assertTrue(out.contains("[    4/4] 0 failed"), out);
        assertTrue(out.contains("cases 4, passed 4, failed 0"), out);
        assertTrue(out.contains("cases/s"), out);
        assertTrue(out.contains("4 passed, 0 failed"), out);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(5, lines.size(), lines::toString);
        assertTrue(lines.get(1).startsWith("1,ok,"), lines::toString);
    }

    @Test
    void oneSeedWritesItsTrace(@TempDir Path dir) throws IOException {
        Path trace = dir.resolve("trace.txt");
        String out = capture(() -> assertEquals(0, Main.run("stress", "--seed", "3", "--trace", trace.toString())));
        assertTrue(out.startsWith("seed 3: "), out);
        assertTrue(out.contains("seed 3 ok: ok"), out);
        String t = Files.readString(trace);
        assertTrue(t.contains(" deliver n") && t.contains(" completion ") && t.contains("connect node"),
                t.substring(0, Math.min(500, t.length())));
    }

    @Test
    void badOptionsAreRefusedWithExitCode2() {
        assertEquals(2, Main.run("stress", "--cases", "0"));
        assertEquals(2, Main.run("stress", "--trace", "x.txt"));
    }
}
