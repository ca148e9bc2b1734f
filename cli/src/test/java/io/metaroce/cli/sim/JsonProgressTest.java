package io.metaroce.cli.sim;

import com.fasterxml.jackson.jr.ob.JSON;
import io.metaroce.sim.run.ProgressListener;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sim run --progress json}'s lines: one JSON object each, rate-limited per point, with an ETA. */
class JsonProgressTest {
    static List<Map<String, Object>> parse(ByteArrayOutputStream buf) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String line : buf.toString(StandardCharsets.UTF_8).lines().toList()) {
            out.add(JSON.std.mapFrom(line)); // every line must be one JSON object
        }
        return out;
    }

    @Test
    void linesAreRateLimitedPerPointAndEndWithTheirPointDone() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        long[] clock = {0};
        JsonProgress jp = new JsonProgress(new PrintStream(buf, true, StandardCharsets.UTF_8), 1_000_000_000L,
                () -> clock[0]);
        ProgressListener a = jp.forPoint(0, 2, "seed=1");
        ProgressListener b = jp.forPoint(1, 2, "seed=2");
        a.progress(0, 100_000_000_000L, 0, 0);                           // first line, no ETA yet
        a.progress(25_000_000_000L, 100_000_000_000L, 2_000_000, 999_999_999L); // < 1 s after: no line
        b.progress(10_000_000_000L, 100_000_000_000L, 500_000, 500_000_000L);   // the other point's own first line
        a.progress(25_000_000_000L, 100_000_000_000L, 2_000_000, 1_000_000_000L); // 1 s after: a line
        clock[0] = 4_000_000_000L;
        jp.finished(a, null);              // one of two points done after 4 s: 4 s to go
        b.progress(20_000_000_000L, 100_000_000_000L, 600_000, 2_000_000_000L);
        jp.finished(b, "boom");
        jp.finished(b, null); // a point ends once
        jp.done("e1", "pass", 2, 1.5, "/tmp/x", List.of());
        List<Map<String, Object>> lines = parse(buf);
        assertEquals(List.of("progress", "progress", "progress", "point_done", "progress", "point_done", "done"),
                lines.stream().map(m -> m.get("event")).toList());
        assertNull(lines.get(0).get("eta_max_s"));
        assertNull(lines.get(0).get("eta_s"));
        Map<String, Object> third = lines.get(2);
        assertEquals(1, ((Number) third.get("point")).intValue());
        assertEquals(2, ((Number) third.get("points")).intValue());
        assertEquals("seed=1", third.get("label"));
        assertEquals(25_000_000_000L, ((Number) third.get("sim_time_ps")).longValue());
        assertEquals(0.25, ((Number) third.get("fraction")).doubleValue(), 1e-12);
        assertEquals(2e6, ((Number) third.get("events_per_s")).doubleValue(), 1e-6);
        assertEquals(3.0, ((Number) third.get("eta_max_s")).doubleValue(), 1e-9); // 1 s for a quarter: 3 s more
        assertEquals(1, ((Number) lines.get(3).get("points_done")).intValue());
        assertEquals(4.0, ((Number) lines.get(4).get("eta_s")).doubleValue(), 1e-9);
        assertEquals(0.2, ((Number) lines.get(4).get("fraction")).doubleValue(), 1e-12);
        assertEquals("boom", lines.get(5).get("error"));
        assertEquals(2, ((Number) lines.get(5).get("points_done")).intValue());
        assertEquals(2, ((Number) lines.get(6).get("points")).intValue());
    }
}
