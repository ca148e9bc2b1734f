package io.metaroce.sim.experiment;

import io.metaroce.sim.fabric.FabricConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad experiment values are input errors at load time: one line naming the key, nothing allocated. */
class PointChecksTest {
    private static String error(String yaml) {
        SpecFields.SpecException e = assertThrows(SpecFields.SpecException.class, () -> ExperimentFile.parse("x", yaml));
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void aBillionHostsIsRefusedBeforeAllocating() {
        long t0 = System.nanoTime();
        String m = error("fabric: {hosts: 1000000000, hostsPerLeaf: 4, spines: 2}");
        assertTrue(m.startsWith("fabric.hosts: 1000000000 hosts x 1 planes need at least"), m);
        assertTrue(m.contains("this JVM has"), m);
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "refused at once, not after an allocation attempt");
    }

    @Test
    void theHeapBoundScalesWithHostsAndPlanes() {
        FabricConfig f = new FabricConfig().hosts(1024).planes(8);
        assertDoesNotThrow(() -> PointChecks.memory(f, 1L << 30)); // 1024 x 8 x 64 KiB = 512 MiB
        assertThrows(SpecFields.SpecException.class, () -> PointChecks.memory(f, 256L << 20));
        FabricConfig huge = new FabricConfig().hosts(Integer.MAX_VALUE).planes(256);
        assertThrows(SpecFields.SpecException.class, () -> PointChecks.memory(huge, 1L << 40));
    }

    @Test
    void negativeSizesAndZeroPlanesAreInputErrors() {
        assertTrue(error("fabric: {planes: 0}").contains("fabric.planes must be in 1..256, got 0"));
        assertTrue(error("workload: {bytes: -1}").startsWith("workload.bytes: must be >= 0, got -1"));
        assertTrue(error("fabric: {hosts: -4}").contains("fabric.hosts must be >= 1"));
        assertTrue(error("limitPs: 0").startsWith("limitPs: must be > 0"));
    }

    @Test
    void aFairnessWindowIsWholeSampleIntervals() {
        assertTrue(error("sampleIntervalPs: 10us\nfairWindowPs: 15us").startsWith(
                "fairWindowPs: must be 0 or a multiple of sampleIntervalPs (10000000 ps) of at most 1000 intervals, got"
                        + " 15000000 ps"));
        assertTrue(error("sampleIntervalPs: 10us\nfairWindowPs: 1s").startsWith("fairWindowPs: must be 0 or a"));
        assertTrue(error("fairWindowPs: -10us").startsWith("fairWindowPs: time '-10us' must not be negative"));
        assertDoesNotThrow(() -> ExperimentFile.parse("x", "sampleIntervalPs: 10us\nfairWindowPs: 200us"));
    }

    @Test
    void aBadValueInASweepOrScaledPointIsCaughtToo() {
        assertTrue(error("sweep: {fabric.planes: [1, 0]}").contains("fabric.planes"));
        assertTrue(error("scaled: {workload.bytes: -5}").contains("workload.bytes"));
        ExperimentFile f = ExperimentFile.parse("x", "fabric: {hosts: 8}");
        assertThrows(SpecFields.SpecException.class, () -> f.set("fabric.planes", "0"));
        assertThrows(SpecFields.SpecException.class, () -> f.setAxis("workload.bytes", List.of("1", "-1")));
    }

    @Test
    void aSweepOfTooManyPointsIsRefusedBeforeBuildingThem() {
        String axis = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
        String m = error("sweep: {seed: " + axis + ", fabric.linkLoss: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],"
                + " workload.bytes: " + axis + ", workload.messages: " + axis + ", engine.mtu: [64, 65, 66, 67, 68, 69,"
                + " 70, 71, 72, 73]}");
        assertTrue(m.startsWith("sweep: 100000 points"), m);
    }

    @Test
    void aYamlErrorIsOneLineWithFileAndLine() throws Exception {
        Path file = Files.createTempFile("bad", ".yaml");
        try {
            Files.writeString(file, "name: x\nfabric: {hosts: 8\nworkload: {bytes: 1MiB}\n");
            SpecFields.SpecException e = assertThrows(SpecFields.SpecException.class, () -> ExperimentFile.load(file));
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getMessage().startsWith(file + ":3:"), e.getMessage());
            assertTrue(e.getMessage().contains("YAML error"), e.getMessage());
        } finally {
            Files.delete(file);
        }
    }
}
