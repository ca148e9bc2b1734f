package io.metaroce.cli.perf;

import io.metaroce.net.DeviceStats;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A Prometheus endpoint ({@code --metrics-port}): the Prometheus Java client's HTTP server on
 * {@code http://ADDR:PORT/metrics}, serving a device's families ({@link DeviceMetrics}) and, with a NIC, that NIC's
 * pause, ECN and CNP counters as {@code metaroce_nic_counter_total{iface, counter}} (read failures counted in
 * {@code metaroce_nic_read_errors_total}). Values are read at scrape time, at most once per
 * {@link #MIN_READ_INTERVAL_NS} however many families or scrapers ask (a device's statistics come from its agent
 * thread). Close it before the device.
 */
public final class MetricsEndpoint implements AutoCloseable {
    /** Reads of the device or NIC closer together than this reuse the previous values. */
    static final long MIN_READ_INTERVAL_NS = 200_000_000L;

    private final HTTPServer server;
    private final String address;

    private MetricsEndpoint(HTTPServer server, String address) {
        this.server = server;
        this.address = address;
    }

    /**
     * Serves on {@code bind} (an address; {@code 0.0.0.0} for every interface) port {@code port} (0 = any free
     * one): {@code device}'s statistics when not null, {@code nic}'s counters when not null.
     */
    public static MetricsEndpoint start(String bind, int port, Supplier<DeviceStats> device, NicCounters nic)
            throws IOException {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("metrics port " + port + " outside 0..65535");
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        if (device != null) {
            DeviceMetrics.register(registry, cached(device));
        }
        if (nic != null) {
            AtomicLong errors = new AtomicLong();
            Supplier<Map<String, Long>> counters = cached(() -> {
                try {
                    return nic.read();
                } catch (IOException e) {
                    errors.incrementAndGet();
                    return Map.of();
                }
            });
            CounterWithCallback.builder().name("metaroce_nic_counter")
                    .help("A host NIC's pause/PFC, ECN and CNP counters (ethtool -S)").labelNames("iface", "counter")
                    .callback(cb -> counters.get().forEach((k, v) -> cb.call(Math.max(0, v), nic.iface(), k)))
                    .register(registry);
            CounterWithCallback.builder().name("metaroce_nic_read_errors").help("Failed ethtool -S reads")
                    .callback(cb -> cb.call(errors.get())).register(registry);
        }
        HTTPServer s = HTTPServer.builder().hostname(bind).port(port).registry(registry).buildAndStart();
        return new MetricsEndpoint(s, bind + ":" + s.getPort());
    }

    /** {@code supplier}, called at most once per {@link #MIN_READ_INTERVAL_NS}. */
    static <T> Supplier<T> cached(Supplier<T> supplier) {
        return new Supplier<>() {
            private T value;
            private long readAtNs;

            @Override
            public synchronized T get() {
                long now = System.nanoTime();
                if (value == null || now - readAtNs >= MIN_READ_INTERVAL_NS) {
                    value = supplier.get();
                    readAtNs = now;
                }
                return value;
            }
        };
    }

    /** The port bound. */
    public int port() {
        return server.getPort();
    }

    /** The URL to scrape, e.g. {@code http://0.0.0.0:9464/metrics}. */
    public String url() {
        return "http://" + address + "/metrics";
    }

    @Override
    public void close() {
        server.close();
    }
}
