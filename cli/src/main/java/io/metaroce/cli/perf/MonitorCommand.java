package io.metaroce.cli.perf;

import io.metaroce.cli.options.HostPort;
import io.metaroce.net.DeviceStats;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code metaroce monitor}: a live table of a running device's counters with rates per second, its paths flagged
 * where loss, RTT or failovers cross thresholds, in the spirit of seed 002's NIC-counter monitor script; the
 * source is a Prometheus endpoint ({@code --metrics-port} of a perf tool or the agent) or a statistics file
 * ({@code --stats-file}); {@code --nic IFACE} adds a host NIC's pause/PFC, ECN and CNP counters from
 * {@code ethtool -S}, {@code --csv FILE} logs every sample, {@code --metrics-port} re-exports what it reads.
 */
@Command(name = "monitor", mixinStandardHelpOptions = true,
        description = {"Shows a running device's counters live, with rates per second, and flags paths whose loss "
                + "(retransmitted over sent packets), smoothed RTT or failovers cross thresholds. SOURCE is the "
                + "HOST:PORT of a Prometheus endpoint (`perf ... --metrics-port PORT`, `agent --metrics-port PORT`) "
                + "or a statistics file (`perf ... --stats-file FILE`). With --nic IFACE it also samples that NIC's "
                + "pause, ECN and CNP counters (ethtool -S), and can log to CSV and re-export on --metrics-port."})
public final class MonitorCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "SOURCE",
            description = "HOST:PORT of a metrics endpoint, or a statistics file; omit for --nic alone.")
    String source;

    @Option(names = "--nic", paramLabel = "IFACE", description = "Also sample this NIC's counters with ethtool -S.")
    String nic;

    @Option(names = "--ethtool", paramLabel = "PROGRAM", defaultValue = "ethtool", hidden = true,
            description = "The ethtool program (default ${DEFAULT-VALUE}).")
    String ethtool;

    @Option(names = "--interval", defaultValue = "1", paramLabel = "SECONDS",
            description = "Seconds between samples (default ${DEFAULT-VALUE}).")
    double intervalS;

    @Option(names = "--count", paramLabel = "N", description = "Stop after N tables (default: until interrupted).")
    Integer count;

    @Option(names = "--csv", paramLabel = "FILE", description = "Append every sample to FILE (one row per sample).")
    Path csv;

    @Option(names = "--loss", defaultValue = "0.01", paramLabel = "FRACTION",
            description = "Flag a path retransmitting more than this fraction of its packets (default ${DEFAULT-VALUE}).")
    double loss;

    @Option(names = "--rtt-us", defaultValue = "1000", paramLabel = "US",
            description = "Flag a path whose smoothed RTT exceeds this (default ${DEFAULT-VALUE} us).")
    double rttUs;

    @Option(names = "--failovers", defaultValue = "0", paramLabel = "N",
            description = "Flag a path failing over more than N times in an interval (default ${DEFAULT-VALUE}).")
    long failovers;

    @CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Made on the first scrape: picocli instantiates every command when any command starts, and a client built here
     * would load and initialise the TLS stack (~400 classes) for every './metaroce' command.
     */
    private HttpClient http;

    public MonitorCommand() {
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (source == null && nic == null) {
            err.println("monitor: give a SOURCE (HOST:PORT or a statistics file), --nic IFACE, or both");
            return 2;
        }
        if (!(intervalS > 0) || (count != null && count < 1) || !(loss >= 0) || !(rttUs >= 0) || failovers < 0) {
            err.println("monitor: --interval must be > 0, --count >= 1, thresholds >= 0");
            return 2;
        }
        InetSocketAddress endpoint = null;
        Path statsFile = null;
        if (source != null) {
            if (Files.exists(Path.of(source))) {
                statsFile = Path.of(source);
            } else {
                try {
                    endpoint = HostPort.parse(source);
                } catch (IllegalArgumentException e) {
                    err.println("monitor: " + source + " is neither a file nor HOST:PORT (" + e.getMessage() + ")");
                    return 2;
                }
            }
        }
        NicCounters nicCounters;
        try {
            nicCounters = nic == null ? null : new NicCounters(nic, ethtool);
        } catch (IllegalArgumentException e) {
            err.println("monitor: --nic: " + e.getMessage());
            return 2;
        }
        AtomicReference<DeviceStats> lastStats = new AtomicReference<>();
        MetricsEndpoint export = null;
        MonitorView view = new MonitorView(new MonitorView.Thresholds(loss, rttUs, failovers));
        MonitorCsv log = null;
        try {
            if (metrics.enabled()) {
                export = MetricsEndpoint.start(metrics.bind(), metrics.port(), statsFile == null ? null : lastStats::get,
                        nicCounters);
                out.println("metrics: " + export.url());
            }
            if (csv != null) {
                log = new MonitorCsv(csv);
            }
            int tables = count == null ? Integer.MAX_VALUE : count;
            for (int k = 0; k < tables; k++) {
                if (k > 0) {
                    Thread.sleep(Math.max(1, (long) (intervalS * 1000)));
                    out.println();
                }
                List<DeviceMetrics.Sample> samples = List.of();
                Map<String, Long> nicNow = Map.of();
                try {
                    if (endpoint != null) {
                        samples = scrape(endpoint);
                    } else if (statsFile != null) {
                        DeviceStats d = StatsJson.read(Files.readString(statsFile, StandardCharsets.UTF_8)).stats();
                        lastStats.set(d);
                        samples = DeviceMetrics.samples(d);
                    }
                    if (nicCounters != null) {
                        nicNow = nicCounters.read();
                    }
                } catch (IOException | IllegalArgumentException e) {
                    err.println("monitor: " + e.getMessage());
                    err.flush();
                    if (k == 0) {
                        return 1; // nothing to watch: say so once, plainly
                    }
                    continue; // the source went away for a moment: keep watching
                }
                long now = System.nanoTime();
                out.print(view.render(source == null ? "nic " + nic : source, now, samples, nic, nicNow));
                out.flush();
                if (log != null) {
                    log.append(System.currentTimeMillis(), samples, nicNow);
                }
            }
            return 0;
        } catch (IOException e) {
            err.println("monitor: " + e.getMessage());
            return 1;
        } finally {
            if (export != null) {
                export.close();
            }
            if (log != null) {
                log.close();
            }
        }
    }

    private List<DeviceMetrics.Sample> scrape(InetSocketAddress endpoint) throws IOException {
        URI uri = URI.create("http://" + endpoint.getHostString() + ":" + endpoint.getPort() + "/metrics");
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build();
        HttpResponse<String> r;
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
        }
        try {
            r = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted scraping " + uri, e);
        } catch (IOException e) {
            throw new IOException("cannot scrape " + uri + ": " + (e.getMessage() == null ? e.toString()
                    : e.getMessage()), e);
        }
        if (r.statusCode() != 200) {
            throw new IOException(uri + " answered HTTP " + r.statusCode());
        }
        return PromText.parse(r.body());
    }
}
