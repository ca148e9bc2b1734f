/** Discrete-event fabric simulator driving the real sans-IO MetaRoCE engine over integer picoseconds. */
module io.metaroce.sim {
    requires transitive io.metaroce.core;
    requires org.yaml.snakeyaml;
    exports io.metaroce.sim.event;
    exports io.metaroce.sim.fabric;
    exports io.metaroce.sim.topology;
    exports io.metaroce.sim.transport;
    exports io.metaroce.sim.roce;
    exports io.metaroce.sim.workload;
    exports io.metaroce.sim.control;
    exports io.metaroce.sim.metrics;
    exports io.metaroce.sim.run;
    exports io.metaroce.sim.experiment;
}
