package io.metaroce.sim.experiment;

import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sweep chart's layouts: bars for an axis of names, a grid of a chart per metric and per panel value (what is
 * drawn; cli's JFreeChartsTest checks the drawing's pixel sizes).
 */
class SweepPlotTest {
    private static final String BASE = """
            name: t-plot
            fabric: {hosts: 8, hostsPerLeaf: 4, spines: 2}
            workload: {kind: bulk, bytes: 1MiB}
            sweep:
              workload.kind: [bulk, hotspot]
              transport: [metaroce, rocev2]
              fabric.linkLoss: [0, 0.01]
            """;

    private static RunResult fake(ExperimentSpec s) {
        RunResult r = new RunResult();
        r.metrics.put("goodput_gbps", (s.transport.equals("rocev2") ? 50.0 : 90.0) * (1 - s.fabric.linkLoss));
        r.metrics.put("drops", (long) (s.fabric.linkLoss * 1000));
        return r;
    }

    /** Runs the fake sweep with {@code plot} and returns what the sweep chart draws. */
    private static String sweep(String plot, Path out) throws Exception {
        ExperimentFile f = ExperimentFile.parse("t", BASE + plot + "\n");
        ExperimentRunner.run(f, false, out, (spec, p) -> fake(spec), (i, n, label) -> (now, limit, ev, wall) -> { },
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new RecordingCharts());
        return Files.readString(out.resolve("sweep.png")).strip();
    }

    @Test
    void barsForAnAxisOfNamesOneChartPerMetric(@TempDir Path out) throws Exception {
        String chart = sweep("plot: {x: workload.kind, y: [goodput_gbps, drops], series: transport, bars: true}",
                out);
        assertEquals("grid 2x1 bars", chart, "a chart per metric, one under the other, in one column");
    }

    @Test
    void panelsPutAChartPerAxisValueSideBySide(@TempDir Path out) throws Exception {
        String chart = sweep("plot: {x: fabric.linkLoss, y: [goodput_gbps, drops], series: transport, "
                + "separate: true, panels: workload.kind}", out);
        assertEquals("grid 2x2 lines", chart, "a row per metric, bulk and hotspot side by side");
    }

    @Test
    void aPlainPlotIsOneLineChart(@TempDir Path out) throws Exception {
        String chart = sweep("plot: {x: fabric.linkLoss, y: goodput_gbps, series: transport}", out);
        assertTrue(chart.startsWith("line t-plot: goodput_gbps vs linkLoss | "), chart);
    }

    @Test
    void anUnknownPlotSettingIsNamed() {
        SpecFields.SpecException e = assertThrows(SpecFields.SpecException.class,
                () -> ExperimentFile.parse("t", BASE + "plot: {x: workload.kind, y: drops, bar: true}\n"));
        assertTrue(e.getMessage().contains("plot.bar: not a plot setting"), e.getMessage());
    }
}
