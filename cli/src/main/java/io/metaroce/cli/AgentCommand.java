package io.metaroce.cli;

import io.metaroce.conformance.agent.Agent;
import io.metaroce.cli.perf.AgentStats;
import io.metaroce.cli.perf.MetricsEndpoint;
import io.metaroce.cli.perf.MetricsOptions;
import io.metaroce.conformance.target.Mutation;
import io.metaroce.cli.options.Converters;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;

/** {@code metaroce agent}: serves the conformance agent protocol for our engine, so a tester can drive it. */
@Command(name = "agent", mixinStandardHelpOptions = true,
        description = "Runs the conformance agent: our core engine on a UDP socket, driven by the wall clock and "
                + "controlled by a tester (`metaroce conformance run --target HOST:PORT`) through the protocol of "
                + "docs/conformance/AGENT-PROTOCOL.md.")
public final class AgentCommand implements Callable<Integer> {
    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:4800",
            converter = Converters.Address.class,
            description = "Control address, [IPV6]:PORT for IPv6 (default ${DEFAULT-VALUE}).")
    InetSocketAddress listen;
    @Option(names = "--data-port", paramLabel = "PORT", defaultValue = "0",
            description = "Datapath UDP port on the same host; 0 picks a free one (default ${DEFAULT-VALUE}).")
    int dataPort;
    @Option(names = "--mutation", paramLabel = "NAME", defaultValue = "NONE", hidden = true,
            description = "Serve a deliberately broken engine (testing the suite).")
    Mutation mutation;
    @CommandLine.Mixin
    MetricsOptions metricsOptions = new MetricsOptions();
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public AgentCommand() {
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter o = spec.commandLine().getOut();
        MetricsEndpoint metrics = null;
        try (Agent agent = new Agent(listen, dataPort, mutation)) {
            if (metricsOptions.enabled()) {
                try {
                    metrics = AgentStats.serve(agent, metricsOptions.bind(), metricsOptions.port());
                } catch (IOException | IllegalArgumentException e) {
                    spec.commandLine().getErr().println("agent: cannot serve metrics on " + metricsOptions.bind() + ":"
                            + metricsOptions.port() + ": " + e.getMessage());
                    return 2;
                }
                o.println("metrics: " + metrics.url());
            }
            o.println("metaroce agent: control " + agent.controlAddress() + ", datapath " + agent.dataAddress()
                    + " (protocol v" + Agent.PROTOCOL_VERSION + "; engine on the wall clock)");
            o.flush();
            agent.serve();
        } finally {
            if (metrics != null) {
                metrics.close();
            }
        }
        return 0;
    }
}
