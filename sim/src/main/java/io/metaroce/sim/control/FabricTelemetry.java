package io.metaroce.sim.control;

import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.SwitchPort;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * INT-like telemetry of a fabric's switch-to-switch links (host links are left out: no route choice changes
 * them): per link, the bytes it carried since the previous sample (all traffic, as a switch counter sees it), the
 * queue of the port feeding it at the sample, and whether that port was paused by PFC in between.
 */
public final class FabricTelemetry {
    private final List<SwitchPort> ports = new ArrayList<>();
    private final Map<Link, Integer> index = new IdentityHashMap<>();
    private final long[] lastBytes;
    private final long[] lastPauses;
    /** Load over the last period, b/s. */
    final double[] loadBps;
    /** Queue at the last sample, bytes. */
    public final long[] queueBytes;
    /** Paused at the sample or paused since the previous one. */
    final boolean[] paused;

    /** Telemetry of every switch-to-switch link of {@code fabric}; the first {@code sample} measures from now. */
    public FabricTelemetry(Fabric fabric) {
        Map<Link, Boolean> hostLinks = new IdentityHashMap<>();
        for (int h = 0; h < fabric.hosts(); h++) {
            for (int p = 0; p < fabric.planes(); p++) {
                hostLinks.put(fabric.hostUplink(h, p), true);
                hostLinks.put(fabric.hostDownlink(h, p), true);
            }
        }
        for (SwitchPort sp : fabric.switchPorts()) {
            if (!hostLinks.containsKey(sp.link())) {
                index.put(sp.link(), ports.size());
                ports.add(sp);
            }
        }
        int n = ports.size();
        lastBytes = new long[n];
        lastPauses = new long[n];
        loadBps = new double[n];
        queueBytes = new long[n];
        paused = new boolean[n];
        for (int i = 0; i < n; i++) {
            lastBytes[i] = ports.get(i).link().bytes();
        }
    }

    /** Links watched. */
    public int size() { return ports.size(); }

    /** Index of {@code link}, or -1 for a host link. */
    int indexOf(Link link) {
        Integer i = index.get(link);
        return i == null ? -1 : i;
    }

    Link link(int i) { return ports.get(i).link(); }

    /** Reads every counter; {@code periodPs} is the time since the previous sample. */
    public void sample(long periodPs) {
        for (int i = 0; i < ports.size(); i++) {
            SwitchPort sp = ports.get(i);
            long b = sp.link().bytes();
            loadBps[i] = (b - lastBytes[i]) * 8.0 * Units.PS_PER_S / periodPs;
            lastBytes[i] = b;
            queueBytes[i] = sp.queuedBytes();
            long pauses = sp.pfcPauses();
            paused[i] = sp.isPaused() || pauses != lastPauses[i];
            lastPauses[i] = pauses;
        }
    }

    /** True if link {@code i} is hot at the last sample: its queue at least {@code hotQueueBytes}, or paused. */
    public boolean hot(int i, long hotQueueBytes) {
        return queueBytes[i] >= hotQueueBytes || paused[i];
    }
}
