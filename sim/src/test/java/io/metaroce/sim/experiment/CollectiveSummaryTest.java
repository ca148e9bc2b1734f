package io.metaroce.sim.experiment;

import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.RunResult;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Size sweeps of collectives: skipped points, nccl-tests tables in summary.md, faceted plots. */
class CollectiveSummaryTest {
    private static final String YAML = """
            name: t-coll
            fabric: {hosts: 8, hostsPerLeaf: 4, spines: 2}
            workload: {kind: allreduce}
            sweep:
              transport: [metaroce, rocev2]
              fabric.lossModel: [end-to-end, per-link]
              fabric.linkLoss: [0, 0.01]
              workload.bytes: [1MiB, 4MiB]
            skip:
              - {fabric.lossModel: per-link, fabric.linkLoss: 0}
            derived:
              busbw_vs_lossless: {of: busbw_GBps, baseline: {fabric.linkLoss: 0, fabric.lossModel: end-to-end}}
            acceptance:
              - {metric: busbw_vs_lossless, require: ">= 0.86", when: {transport: metaroce, fabric.linkLoss: 0.01}}
            plot:
              - {name: size, x: workload.bytes, y: busbw_GBps, series: fabric.linkLoss, logX: true,
                 facets: [transport, fabric.lossModel]}
              - {name: loss, x: loss_e2e_rate, y: busbw_GBps, series: transport, facets: [fabric.lossModel],
                 along: [fabric.linkLoss], when: {workload.bytes: 4MiB}}
            """;

    /** A collective's metrics from the spec: RoCEv2 at per-link loss never finishes. */
    private static RunResult fake(ExperimentSpec s) {
        RunResult r = new RunResult();
        boolean perLink = s.fabric.lossModel.equals("per-link");
        boolean roce = s.transport.equals("rocev2");
        double e2e = perLink ? 1 - Math.pow(1 - s.fabric.linkLoss, 3) : s.fabric.linkLoss;
        double busbw = (roce ? 30 : 40) * (1 - (roce ? 20 : 4) * e2e);
        boolean done = !(roce && perLink);
        r.metrics.put("loss_model", s.fabric.lossModel);
        r.metrics.put("loss_rate", s.fabric.linkLoss);
        r.metrics.put("loss_e2e_rate", e2e);
        r.metrics.put("collective", "allreduce");
        r.metrics.put("ranks", 8L);
        r.metrics.put("size_bytes", s.workload.bytes);
        r.metrics.put("count", s.workload.bytes / 4);
        r.metrics.put("type", "float");
        double algbw = busbw / (2 * 7 / 8.0);
        r.metrics.put("time_us", done ? s.workload.bytes / (algbw * 1e3) : Double.NaN);
        r.metrics.put("sim_time_us", done ? s.workload.bytes / (algbw * 1e3) : 50_000.0);
        r.metrics.put("algbw_GBps", done ? algbw : Double.NaN);
        r.metrics.put("busbw_GBps", done ? busbw : Double.NaN);
        r.metrics.put("error_completions", 0L);
        r.metrics.put("retransmits", (long) (e2e * 1000));
        return r;
    }

    @Test
    void sizeSweepsGetNcclTablesNamingTheLossModelAndFacetedPlots(@TempDir Path out) throws IOException {
        ExperimentFile f = ExperimentFile.parse("t-coll", YAML);
        assertEquals(12, f.points().size(), "16 in the product, the 4 lossless per-link points skipped");
        ExperimentRunner.Summary s = ExperimentRunner.run(f, false, out, (spec, p) -> fake(spec),
                (i, n, label) -> (now, limit, ev, w) -> { },
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new RecordingCharts());
        assertEquals("pass", s.verdict(), "per-link points compare with the end-to-end lossless baseline");
        String md = Files.readString(out.resolve("summary.md"));
        assertTrue(md.contains("## nccl-tests tables"), md);
        assertTrue(md.contains("### transport=metaroce, lossModel=end-to-end, linkLoss=0.01"), md);
        assertTrue(md.contains("Loss: end-to-end 1% (measured end to end 1%)."), md);
        assertTrue(md.contains("Loss: per-link 1% (measured end to end 2.97%)."), md);
        // nccl-tests' row: size, count, type, time, algbw, busbw
        assertTrue(md.contains("| 4194304 | 1048576 | float | 183.5 | 22.86 | 40.00 | 0 | 0 | - | 0% | 1.000 | n/a |"),
                md);
        // RoCEv2 at per-link loss ran out of time: bounds, not figures
        assertTrue(md.contains("| > 50000 | < 0.08 | < 0.15 |"), md);
        for (String png : List.of("sweep-size-transport-metaroce-lossModel-end-to-end.png",
                "sweep-size-transport-rocev2-lossModel-per-link.png", "sweep-loss-lossModel-end-to-end.png",
                "sweep-loss-lossModel-per-link.png")) {
            assertTrue(Files.isRegularFile(out.resolve(png)), png + " missing");
            assertTrue(md.contains("](" + png + ")"), png + " not in summary.md");
        }
    }

    @Test
    void aSkipEntryWithAnUnknownKeyIsAnInputError() {
        SpecFields.SpecException e = assertThrows(SpecFields.SpecException.class, () -> ExperimentFile.parse("t",
                YAML.replace("{fabric.lossModel: per-link, fabric.linkLoss: 0}", "{fabric.lossModle: per-link}")));
        assertTrue(e.getMessage().contains("lossModle"), e.getMessage());
    }

    @Test
    void aSizeRangeSweepsLikeNcclTests() {
        ExperimentFile f = ExperimentFile.parse("t", YAML.replace("workload.bytes: [1MiB, 4MiB]",
                "workload.bytes: \"1MiB..1GiB x4\""));
        assertEquals(List.of("1MiB", "4MiB", "16MiB", "64MiB", "256MiB", "1GiB"), f.sweep().get("workload.bytes"));
        f.setAxis("workload.bytes", List.of("4KiB..10KiBx2", "3000"));
        assertEquals(List.of("4KiB", "8KiB", "3000"), f.sweep().get("workload.bytes"));
        assertThrows(SpecFields.SpecException.class, () -> f.setAxis("workload.bytes", List.of("4MiB..1MiBx2")));
        assertThrows(SpecFields.SpecException.class, () -> f.setAxis("workload.bytes", List.of("1..1GiBx1")));
        assertThrows(SpecFields.SpecException.class, () -> f.setAxis("fabric.linkLoss", List.of("1..8x2")));
    }
}
