package io.metaroce.cli.perf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A host NIC's own congestion counters, read with {@code ethtool -S IFACE} as the monitor script of seed 002 does:
 * the PFC / pause, ECN and CNP counters (e.g. mlx5's {@code rx_pause_ctrl_phy}, {@code tx_prio3_pause},
 * {@code rx_ecn_mark}, {@code np_cnp_sent}, {@code rp_cnp_handled}), so an operator running RoCE NICs beside
 * MetaRoCE sees both in one place. Counters are matched by name ({@link #INTERESTING}); the others are skipped.
 */
final class NicCounters {
    /** Counter names kept: pause and PFC, ECN, CNP. */
    static final Pattern INTERESTING = Pattern.compile("(?i).*(pause|pfc|ecn|cnp).*");
    private static final Pattern LINE = Pattern.compile("^\\s*([^:\\s][^:]*?)\\s*:\\s*(-?\\d+)\\s*$");
    private static final long TIMEOUT_MS = 5_000;

    private final String iface;
    private final String ethtool;

    /** Counters of {@code iface}, read by the {@code ethtool} program (a name on the PATH or a path). */
    NicCounters(String iface, String ethtool) {
        if (iface == null || iface.isBlank() || iface.startsWith("-") || iface.contains("/")) {
            throw new IllegalArgumentException("not an interface name: '" + iface + "'");
        }
        this.iface = iface;
        this.ethtool = ethtool;
    }

    String iface() { return iface; }

    /** The interesting counters now, by name in ethtool's order; IOException with ethtool's words on failure. */
    Map<String, Long> read() throws IOException {
        Process p = new ProcessBuilder(ethtool, "-S", iface).redirectErrorStream(true).start();
        String text;
        try (InputStream in = p.getInputStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(ethtool + " -S " + iface + " did not finish in " + TIMEOUT_MS + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted reading " + iface, e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(ethtool + " -S " + iface + ": " + text.strip().replace('\n', ' '));
        }
        return parse(text);
    }

    /** The interesting counters of {@code ethtool -S} output (the "NIC statistics:" header and others skipped). */
    static Map<String, Long> parse(String ethtoolOutput) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : ethtoolOutput.split("\\R")) {
            var mt = LINE.matcher(line);
            if (mt.matches() && INTERESTING.matcher(mt.group(1)).matches()) {
                try {
                    m.put(mt.group(1).trim(), Long.parseLong(mt.group(2)));
                } catch (NumberFormatException e) {
                    // beyond a long: not a counter we can rate; skipped
                }
            }
        }
        return m;
    }
}
