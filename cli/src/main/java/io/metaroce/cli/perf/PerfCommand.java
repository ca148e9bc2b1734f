package io.metaroce.cli.perf;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * {@code metaroce perf}: bandwidth and latency tests over the real UDP datapath, after perftest's ib_write_bw
 * and friends. Run one side without HOST (the server), the other with the server's plane-0 address.
 */
@Command(name = "perf", mixinStandardHelpOptions = true,
        description = {"Bandwidth and latency tests over the real UDP datapath, after perftest (ib_write_bw, "
                + "ib_send_bw, ib_read_bw, ib_write_lat, ib_send_lat).",
                "Start the server with `metaroce perf write-bw`, then the client with `metaroce perf write-bw HOST`. "
                        + "Exit codes: 0 ok, 1 error (error completion, data mismatch, stall), 2 connection failure, "
                        + "3 acceptance failed (verdict: fail)."},
        subcommands = {PerfCommand.WriteBw.class, PerfCommand.SendBw.class, PerfCommand.ReadBw.class,
                PerfCommand.WriteLat.class, PerfCommand.SendLat.class})
public final class PerfCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public PerfCommand() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Runs {@code perf} on its own (until it is registered in the main command). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new PerfCommand()).execute(args));
    }

    /** One test; the subclasses name it. */
    abstract static class TestCommand implements Callable<Integer> {
        @Mixin
        PerfOptions options;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        private final TestKind kind;

        TestCommand(TestKind kind) {
            this.kind = kind;
        }

        @Override
        public Integer call() {
            return PerfRun.run(kind, options, spec.commandLine().getOut(), spec.commandLine().getErr());
        }
    }

    @Command(name = "write-bw", mixinStandardHelpOptions = true,
            description = "RDMA WRITE bandwidth (like ib_write_bw); --verify checks the data on the server.")
    public static final class WriteBw extends TestCommand {
        public WriteBw() {
            super(TestKind.WRITE_BW);
        }
    }

    @Command(name = "send-bw", mixinStandardHelpOptions = true,
            description = "SEND bandwidth (like ib_send_bw); the server keeps -r receives posted; --verify checks "
                    + "every message on the server.")
    public static final class SendBw extends TestCommand {
        public SendBw() {
            super(TestKind.SEND_BW);
        }
    }

    @Command(name = "read-bw", mixinStandardHelpOptions = true,
            description = "RDMA READ bandwidth (like ib_read_bw): the client reads the server's buffer; --verify "
                    + "checks the data on the client.")
    public static final class ReadBw extends TestCommand {
        public ReadBw() {
            super(TestKind.READ_BW);
        }
    }

    @Command(name = "write-lat", mixinStandardHelpOptions = true,
            description = "RDMA WRITE (with immediate) ping-pong latency (like ib_write_lat), one-way = RTT/2.")
    public static final class WriteLat extends TestCommand {
        public WriteLat() {
            super(TestKind.WRITE_LAT);
        }
    }

    @Command(name = "send-lat", mixinStandardHelpOptions = true,
            description = "SEND ping-pong latency (like ib_send_lat), one-way = RTT/2.")
    public static final class SendLat extends TestCommand {
        public SendLat() {
            super(TestKind.SEND_LAT);
        }
    }
}
