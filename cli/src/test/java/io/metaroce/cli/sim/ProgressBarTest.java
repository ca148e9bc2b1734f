package io.metaroce.cli.sim;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The non-terminal progress line ends current: a short point does not leave its first line as the last. */
class ProgressBarTest {
    @Test
    void theLastLineOfAPointShowsWhereItGot() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar(new PrintStream(buf, true, StandardCharsets.UTF_8), false, "  ");
        bar.progress(60_000_000L, 100_000_000_000L, 1_000, 1_000_000L);        // 60 us, printed at once
        bar.progress(500_000_000L, 100_000_000_000L, 50_000, 400_000_000L);    // within 5 s: not printed
        bar.progress(900_000_000L, 100_000_000_000L, 90_000, 800_000_000L);    // within 5 s: not printed
        bar.finish();
        List<String> lines = buf.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("sim 60.0 us of 100.00 ms"), lines.toString());
        assertTrue(lines.get(1).contains("sim 900.0 us of 100.00 ms") && lines.get(1).contains("0.8 s"),
                lines.toString());
        bar.finish(); // nothing new: no repeated line
        assertEquals(2, buf.toString(StandardCharsets.UTF_8).lines().count());
    }
}
