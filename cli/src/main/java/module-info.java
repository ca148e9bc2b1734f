/** The metaroce command line. */
@SuppressWarnings("requires-automatic") // HdrHistogram 2.2.2, the Prometheus client 1.10 and JFreeChart 1.5.6 have no module descriptor
module io.metaroce.cli {
    requires io.metaroce.core;
    requires io.metaroce.testkit;
    requires io.metaroce.net;
    requires io.metaroce.sim;
    requires io.metaroce.conformance;
    requires info.picocli;
    requires info.picocli.codegen;
    requires com.fasterxml.jackson.jr.ob;
    requires HdrHistogram;
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.metrics.exporter.httpserver;
    requires jdk.httpserver;
    requires java.net.http;
    requires java.desktop; // PNG charts (headless)
    requires org.jfree.jfreechart;
    requires java.management; // SimBench: peak heap via MemoryPoolMXBean
    opens io.metaroce.cli to info.picocli;
    opens io.metaroce.cli.perf to info.picocli;
    opens io.metaroce.cli.sim to info.picocli;
    opens io.metaroce.cli.options to info.picocli;
}
