package io.metaroce.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sim run --progress json} end to end: standard output holds JSON lines only, the human log goes to stderr. */
class SimRunJsonProgressTest {
    @Test
    void simRunWritesOnlyJsonLinesOnStandardOutput(@TempDir Path tmp) throws IOException {
        String e1 = ExperimentsScaledTest.experimentsDir().resolve("e1-loss.yaml").toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Main.run("sim", "run", e1, "--scaled", "--sweep", "fabric.linkLoss=0,0.01",
                    "--sweep", "transport=metaroce", "--sweep", "workload.kind=permutation",
                    "--set", "workload.bytes=256KiB", "--out", tmp.toString(), "--jobs", "2",
                    "--progress", "json", "--progress-interval", "0s");
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        List<Map<String, Object>> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).lines().toList()) {
            lines.add(JSON.std.mapFrom(line)); // every line must be one JSON object
        }
        assertTrue(lines.size() >= 4, lines.toString());
        assertEquals(2, lines.stream().filter(m -> m.get("event").equals("point_done")).count(), lines.toString());
        Map<String, Object> last = lines.getLast();
        assertEquals("done", last.get("event"));
        assertEquals(code == 0 ? "pass" : "fail", last.get("verdict"));
        for (Map<String, Object> m : lines) {
            if (m.get("event").equals("point_done")) {
                assertTrue(((Number) m.get("sim_time_ps")).longValue() > 0, m.toString());
                assertTrue(((Number) m.get("events")).longValue() > 0, m.toString());
            }
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("Records, CSVs and plots in"), err.toString());
    }
}
