package io.metaroce.cli.perf;

import picocli.CommandLine.Option;

/** The {@code --metrics-port} and {@code --metrics-bind} options of every command with a metrics endpoint. */
public final class MetricsOptions {
    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve the counters (per device and per path) as Prometheus metrics on "
                    + "http://ADDR:PORT/metrics (0 = any free port; read them with `metaroce monitor HOST:PORT`).")
    Integer port;

    @Option(names = "--metrics-bind", paramLabel = "ADDR", defaultValue = "0.0.0.0",
            description = "Address the metrics endpoint listens on (default ${DEFAULT-VALUE}: every interface).")
    String bind = "0.0.0.0";

    public MetricsOptions() {
    }

    /** True when {@code --metrics-port} was given. */
    public boolean enabled() {
        return port != null;
    }

    /** The port ({@code --metrics-port}); only with {@link #enabled()}. */
    public int port() {
        return port;
    }

    /** The address to bind. */
    public String bind() {
        return bind;
    }
}
