/** Discrete-event fabric simulator driving the real sans-IO MetaRoCE engine over integer picoseconds. */
module io.metaroce.sim {
    requires transitive io.metaroce.core;
    requires java.management; // SimBench: peak heap via MemoryPoolMXBean
    exports io.metaroce.sim;
}
