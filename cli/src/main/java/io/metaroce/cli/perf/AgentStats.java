package io.metaroce.cli.perf;

import io.metaroce.conformance.agent.Agent;
import io.metaroce.conformance.target.EngineHost;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.Path;
import io.metaroce.core.QueuePair;
import io.metaroce.net.DeviceStats;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The conformance agent's engine as {@link DeviceStats}, so the agent's {@code --metrics-port} serves the same
 * families as the perf tools. Built on the agent's thread ({@code Agent.observe}); datagrams received are the
 * agent socket's, datagrams sent the engine's packets.
 */
public final class AgentStats {
    private AgentStats() {
    }

    /** How often the agent publishes a snapshot for scrapes. */
    static final long PUBLISH_PERIOD_NS = 100_000_000L;

    /**
     * Serves {@code agent}'s metrics on {@code bind}:{@code port}: the agent publishes a snapshot of its engine from
     * its own thread every {@link #PUBLISH_PERIOD_NS} (the engine is that thread's alone) and scrapes read the
     * latest. Call before {@code agent.serve()}; close the endpoint after.
     */
    public static MetricsEndpoint serve(Agent agent, String bind, int port) throws IOException {
        AtomicReference<DeviceStats> snapshot = new AtomicReference<>(
                new DeviceStats("agent", Map.of(), 0, 0, 0, 0, 0, 0, List.of()));
        agent.observe(PUBLISH_PERIOD_NS, host -> snapshot.set(of(host, agent.dataReceived())));
        return MetricsEndpoint.start(bind, port, snapshot::get, null);
    }

    /** A snapshot of {@code host}'s engine and QP; {@code rxDatagrams} as counted by the agent's socket. */
    public static DeviceStats of(EngineHost host, long rxDatagrams) {
        Engine e = host.engine();
        Map<Counter, Long> counters = new java.util.EnumMap<>(Counter.class);
        for (Counter c : Counter.values()) {
            counters.put(c, 0L); // before the tester's first reset there is no engine: every counter at 0
        }
        if (e != null) {
            counters.putAll(e.counters().snapshot());
        }
        List<DeviceStats.QpStats> qps = new ArrayList<>();
        QueuePair q = host.queuePair();
        if (e != null && q != null) {
            List<DeviceStats.PathStats> ps = new ArrayList<>();
            for (int i = 0; i < q.pathCount(); i++) {
                Path p = q.path(i);
                ps.add(new DeviceStats.PathStats(p.id(), p.plane(), p.state().name(), p.srttNs(), p.cwndBytes(),
                        p.inflightBytes(), p.txPackets(), p.txBytes(), p.retransmits(), p.timeouts(), p.ecnEchoes(),
                        p.sackGaps(), p.failures()));
            }
            qps.add(new DeviceStats.QpStats(q.qpn(), q.state().name(), q.remoteQpn(), ps, q.counters().snapshot()));
        }
        Map<String, Long> cm = new java.util.LinkedHashMap<>();
        if (e != null) {
            host.counters().forEach((k, v) -> {
                if (k.startsWith("CM_")) {
                    cm.put(k, v); // CTR-7: the agent's connection manager
                }
            });
        }
        return new DeviceStats("agent", counters, rxDatagrams, counters.getOrDefault(Counter.TX_PACKETS, 0L), 0, 0, 0,
                0, qps, DeviceStats.Datapath.NONE, cm);
    }
}
