package io.metaroce.cli.perf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reference parser of the Prometheus text format, the Python client's ({@code prometheus_client.parser}, Debian
 * package python3-prometheus-client, which {@code .ci/run} installs), run on the system Python. Outside CI a machine
 * without it skips; in CI ({@code CI} set) its absence fails.
 */
final class PromReference {
    static final String PYTHON = "/usr/bin/python3";

    /** The parsed exposition: family count and samples (labels sorted). */
    record Parsed(int families, List<DeviceMetrics.Sample> samples) {
        double value(String name, Map<String, String> labels) {
            for (DeviceMetrics.Sample s : samples) {
                if (s.name().equals(name) && s.labels().equals(new TreeMap<>(labels))) {
                    return s.value();
                }
            }
            return Double.NaN;
        }

        List<DeviceMetrics.Sample> named(String name) {
            return samples.stream().filter(s -> s.name().equals(name)).toList();
        }
    }

    private PromReference() {
    }

    static void requireParser() throws IOException, InterruptedException {
        boolean ok = Files.isExecutable(Path.of(PYTHON))
                && new ProcessBuilder(PYTHON, "-c", "import prometheus_client.parser").start().waitFor() == 0;
        if (System.getenv("CI") != null) {
            assertTrue(ok, PYTHON + " with prometheus_client is missing (apt-get install python3-prometheus-client)");
        }
        assumeTrue(ok, "no " + PYTHON + " with prometheus_client (apt-get install python3-prometheus-client)");
    }

    /** Parses {@code text} with the reference parser; fails the test when it rejects it. */
    static Parsed parse(String text) throws IOException, InterruptedException {
        Path script = Files.createTempFile("prom_parse", ".py");
        try (InputStream in = PromReference.class.getResourceAsStream("prom_parse.py")) {
            Files.write(script, in.readAllBytes());
        }
        try {
            Process p = new ProcessBuilder(PYTHON, script.toString()).start();
            p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "parser did not finish");
            assertEquals(0, p.exitValue(), "the reference parser rejected the exposition: " + err + "\n" + text);
            int families = -1;
            List<DeviceMetrics.Sample> samples = new ArrayList<>();
            for (String line : out.split("\n")) {
                String[] f = line.split("\t");
                if (f[0].equals("families")) {
                    families = Integer.parseInt(f[1]);
                } else if (f.length == 3) {
                    samples.add(new DeviceMetrics.Sample(f[0], labels(f[1]), Double.parseDouble(f[2])));
                }
            }
            return new Parsed(families, samples);
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /** The labels of a JSON object of string values (what json.dumps wrote for a label set). */
    private static Map<String, String> labels(String json) {
        Object o;
        try {
            o = com.fasterxml.jackson.jr.ob.JSON.std.anyFrom(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Map<String, String> m = new TreeMap<>();
        ((Map<?, ?>) o).forEach((k, v) -> m.put(String.valueOf(k), String.valueOf(v)));
        return m;
    }
}
