/** Discrete-event fabric simulator driving the real sans-IO MetaRoCE engine over integer picoseconds. */
@SuppressWarnings("requires-automatic") // JFreeChart 1.5.6 has only an Automatic-Module-Name
module io.metaroce.sim {
    requires transitive io.metaroce.core;
    requires java.management; // SimBench: peak heap via MemoryPoolMXBean
    requires java.desktop; // PNG plots (headless)
    requires org.yaml.snakeyaml;
    requires org.jfree.jfreechart;
    exports io.metaroce.sim;
    exports io.metaroce.sim.experiment;
}
