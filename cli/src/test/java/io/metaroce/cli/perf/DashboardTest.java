package io.metaroce.cli.perf;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** deploy/grafana/metaroce-dashboard.json is valid JSON and queries only metrics the endpoints serve. */
class DashboardTest {
    private static final Pattern METRIC = Pattern.compile("metaroce_[a-z0-9_]+");

    @Test
    void everyPanelQueriesServedMetrics() throws IOException {
        Path file = null;
        for (Path p = Path.of("").toAbsolutePath(); p != null && file == null; p = p.getParent()) {
            Path f = p.resolve("deploy/grafana/metaroce-dashboard.json");
            if (Files.isRegularFile(f)) {
                file = f;
            }
        }
        assertTrue(file != null, "no deploy/grafana/metaroce-dashboard.json above " + Path.of("").toAbsolutePath());
        Map<?, ?> dash = (Map<?, ?>) com.fasterxml.jackson.jr.ob.JSON.std.anyFrom(Files.readString(file));
        Set<String> served = new HashSet<>(Set.of("metaroce_nic_counter_total", "metaroce_nic_read_errors_total"));
        DeviceMetrics.FAMILIES.forEach(f -> served.add(f.sampleName()));
        List<?> panels = (List<?>) dash.get("panels");
        assertFalse(panels.isEmpty());
        Set<String> queried = new HashSet<>();
        for (Object o : panels) {
            for (Object t : (List<?>) ((Map<?, ?>) o).get("targets")) {
                Matcher m = METRIC.matcher(String.valueOf(((Map<?, ?>) t).get("expr")));
                while (m.find()) {
                    queried.add(m.group());
                }
            }
        }
        Set<String> unknown = new HashSet<>(queried);
        unknown.removeAll(served);
        assertTrue(unknown.isEmpty(), "the dashboard queries metrics nobody serves: " + unknown);
        for (String needed : List.of("metaroce_path_srtt_seconds", "metaroce_path_retransmits_total",
                "metaroce_nic_counter_total", "metaroce_tx_bytes_total", "metaroce_path_up")) {
            assertTrue(queried.contains(needed), needed + " not plotted");
        }
    }
}
