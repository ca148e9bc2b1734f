package io.metaroce.cli;

import io.metaroce.net.testbed.PlaneCounters;
import io.metaroce.net.testbed.Testbed;
import io.metaroce.net.testbed.TestbedException;
import io.metaroce.net.testbed.TestbedSpec;
import picocli.CommandLine;
import io.metaroce.cli.options.Converters;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code metaroce testbed}: builds, changes and removes the network-namespace test bed (hosts joined by
 * per-plane Linux bridges, with tc/nft impairments) that the real-datapath tests and benchmarks run on.
 */
@Command(name = "testbed", mixinStandardHelpOptions = true,
        description = {"Builds the Linux network-namespace test bed: <name>-h<H> host namespaces, one "
                + "<name>-sw<P> switch namespace (a bridge) per plane, a veth per host and plane; host H has "
                + "10.(200+P).0.(H+1) on interface pP. Bottleneck by tc htb + bfifo on the switch ports, random "
                + "loss and ECN marking (phantom queue) by nft, plane failure by ip link set down.",
                "Needs root."},
        subcommands = {TestbedCommand.Up.class, TestbedCommand.Down.class, TestbedCommand.Exec.class,
                TestbedCommand.Plane.class, TestbedCommand.Loss.class, TestbedCommand.Show.class})
public final class TestbedCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public TestbedCommand() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Prints why the bed cannot be used here and returns true, or returns false when it can. */
    static boolean unsupported() {
        Optional<String> why = Testbed.unsupportedReason();
        if (why.isEmpty()) {
            return false;
        }
        System.err.println("metaroce testbed: " + why.get());
        return true;
    }

    /** Runs {@code body}, turning test bed failures into a message and exit code 1. */
    static Integer guarded(Callable<Integer> body) throws Exception {
        if (unsupported()) {
            return 1;
        }
        try {
            return body.call();
        } catch (TestbedException e) {
            System.err.println("metaroce testbed: " + e.getMessage());
            return 1;
        }
    }

    /** The {@code --name} every subcommand takes. */
    static final class BedName {
        @Option(names = "--name", defaultValue = "tb", paramLabel = "NAME",
                description = "test bed name, 1-12 characters (default ${DEFAULT-VALUE})")
        String name;
    }

    /** {@code testbed up}. */
    @Command(name = "up", mixinStandardHelpOptions = true,
            description = "Builds a test bed (removing leftovers of an earlier one with the same name first).")
    public static final class Up implements Callable<Integer> {
        @Mixin
        BedName bed = new BedName();
        @Option(names = "--hosts", defaultValue = "2", description = "hosts (default ${DEFAULT-VALUE})")
        int hosts;
        @Option(names = "--planes", defaultValue = "4", description = "planes (default ${DEFAULT-VALUE})")
        int planes;
        @Option(names = "--mtu", defaultValue = "9000", paramLabel = "SIZE", converter = Converters.IntSize.class,
                description = "link MTU of every veth: the IP packet's largest size, bytes (default ${DEFAULT-VALUE})")
        int mtu;
        @Option(names = "--rate", defaultValue = "0", paramLabel = "RATE", converter = Converters.Rate.class,
                description = "bottleneck rate of each switch port towards its host, e.g. 10Gbps, 500Mbps, "
                        + "10gbit (bits/s); 0 = unlimited (default ${DEFAULT-VALUE})")
        long rate;
        @Option(names = "--buffer", defaultValue = "0", paramLabel = "SIZE", converter = Converters.Size.class,
                description = "bfifo byte limit behind the rate limiter, e.g. 1MiB, 64KiB, 100KB; 0 = the htb "
                        + "class's default packet fifo (default ${DEFAULT-VALUE})")
        long buffer;
        @Option(names = "--loss", defaultValue = "0", paramLabel = "FRACTION", converter = Converters.Fraction.class,
                description = "random loss of every IPv4 frame at each switch, e.g. 0.01 or 1%% "
                        + "(default ${DEFAULT-VALUE})")
        double loss;
        @Option(names = "--ecn-rate", defaultValue = "0", paramLabel = "RATE", converter = Converters.Rate.class,
                description = "phantom-queue rate: ECT packets towards a host are marked CE once the traffic to "
                        + "it has exceeded this rate by about one second's worth of bytes (nft's byte limit keeps "
                        + "1 s of tokens), e.g. 9Gbps; 0 = off (default ${DEFAULT-VALUE})")
        long ecnRate;
        @Option(names = "--offloads", defaultValue = "off",
                description = "TSO/GSO/GRO on the veths: off (every packet is one wire frame; best for loss and "
                        + "ECN experiments) or on (default ${DEFAULT-VALUE})")
        String offloads;

        public Up() {
        }

        @Override
        public Integer call() throws Exception {
            TestbedSpec s;
            try {
                boolean off = switch (offloads.toLowerCase(Locale.ROOT)) {
                    case "off" -> true;
                    case "on" -> false;
                    default -> throw new IllegalArgumentException("--offloads must be on or off: " + offloads);
                };
                s = new TestbedSpec(bed.name, hosts, planes, mtu, rate, buffer, loss, ecnRate, off);
            } catch (IllegalArgumentException e) {
                System.err.println("metaroce testbed up: " + e.getMessage());
                return 2;
            }
            return guarded(() -> {
                Testbed tb = Testbed.up(s);
                System.out.print(tb.describe());
                System.out.printf("run a command on a host:  metaroce testbed exec --name %s --host 0 -- CMD...  "
                        + "(or: ip netns exec %s CMD...)%n", bed.name, tb.hostNamespace(0));
                System.out.printf("remove it:                metaroce testbed down --name %s%n", bed.name);
                return 0;
            });
        }
    }

    /** {@code testbed down}. */
    @Command(name = "down", mixinStandardHelpOptions = true,
            description = "Removes every namespace of a test bed (killing what runs inside). Idempotent.")
    public static final class Down implements Callable<Integer> {
        @Mixin
        BedName bed = new BedName();

        public Down() {
        }

        @Override
        public Integer call() throws Exception {
            return guarded(() -> {
                int n = Testbed.down(bed.name);
                System.out.println(n == 0 ? "no namespaces of test bed '" + bed.name + "' were present"
                        : "removed " + n + " namespaces of test bed '" + bed.name + "'");
                return 0;
            });
        }
    }

    /** {@code testbed exec}. */
    @Command(name = "exec", mixinStandardHelpOptions = true,
            description = "Runs a command inside a host's namespace (stdin/stdout/stderr passed through) and "
                    + "exits with its exit code: testbed exec --name tb --host 0 -- ping 10.201.0.2")
    public static final class Exec implements Callable<Integer> {
        @Mixin
        BedName bed = new BedName();
        @Option(names = "--host", required = true, description = "host number, from 0")
        int host;
        @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command and its arguments (after --)")
        List<String> command;

        public Exec() {
        }

        @Override
        public Integer call() throws Exception {
            return guarded(() -> {
                Testbed tb = Testbed.attach(bed.name);
                if (host < 0 || host >= tb.hosts()) {
                    System.err.println("metaroce testbed exec: host " + host + " outside 0.." + (tb.hosts() - 1));
                    return 2;
                }
                try {
                    Process p = tb.processBuilder(host, command).inheritIO().start();
                    return p.waitFor();
                } catch (IOException e) {
                    System.err.println("metaroce testbed exec: cannot start " + command + ": " + e.getMessage());
                    return 1;
                }
            });
        }
    }

    /** {@code testbed plane}. */
    @Command(name = "plane", mixinStandardHelpOptions = true,
            description = "Fails (down) or repairs (up) a plane: its switch ports go down/up, the hosts' "
                    + "interfaces on that plane lose/regain carrier.")
    public static final class Plane implements Callable<Integer> {
        @Mixin
        BedName bed = new BedName();
        @Option(names = "--plane", required = true, description = "plane number, from 0")
        int plane;
        @Parameters(index = "0", paramLabel = "up|down", description = "down: fail the plane; up: repair it")
        String state;

        public Plane() {
        }

        @Override
        public Integer call() throws Exception {
            String want = state.toLowerCase(Locale.ROOT);
            if (!want.equals("up") && !want.equals("down")) {
                System.err.println("metaroce testbed plane: say up or down, not '" + state + "'");
                return 2;
            }
            return guarded(() -> {
                Testbed tb = Testbed.attach(bed.name);
                if (plane < 0 || plane >= tb.planes()) {
                    System.err.println("metaroce testbed plane: plane " + plane + " outside 0.."
                            + (tb.planes() - 1));
                    return 2;
                }
                if (want.equals("down")) {
                    tb.planeDown(plane);
                } else {
                    tb.planeUp(plane);
                }
                System.out.printf("plane %d of test bed '%s' is %s%n", plane, bed.name, want);
                return 0;
            });
        }
    }

    /** {@code testbed loss}. */
    @Command(name = "loss", mixinStandardHelpOptions = true,
            description = "Changes the random loss rate at once, on every plane or one: testbed loss --name tb 0.05")
    public static final class Loss implements Callable<Integer> {
        @Mixin
        BedName bed = new BedName();
        @Option(names = "--plane", description = "only this plane (default: all)")
        Integer plane;
        @Parameters(index = "0", paramLabel = "FRACTION", converter = Converters.Fraction.class,
                description = "loss rate, e.g. 0.05 or 5%%")
        double loss;

        public Loss() {
        }

        @Override
        public Integer call() throws Exception {
            return guarded(() -> {
                Testbed tb = Testbed.attach(bed.name);
                if (plane == null) {
                    tb.setLoss(loss);
                } else {
                    if (plane < 0 || plane >= tb.planes()) {
                        System.err.println("metaroce testbed loss: plane " + plane + " outside 0.."
                                + (tb.planes() - 1));
                        return 2;
                    }
                    tb.setLoss(plane, loss);
                }
                System.out.printf(Locale.ROOT, "random loss of test bed '%s' %s: %.4f%%%n", bed.name,
                        plane == null ? "(all planes)" : "(plane " + plane + ")", loss * 100);
                return 0;
            });
        }
    }

    /** {@code testbed show}. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Shows a running test bed: namespaces, addresses and the switches' nft counters.")
    public static final class Show implements Callable<Integer> {
        @Mixin
        BedName bed = new BedName();

        public Show() {
        }

        @Override
        public Integer call() throws Exception {
            return guarded(() -> {
                Testbed tb = Testbed.attach(bed.name);
                System.out.print(tb.describe());
                for (int p = 0; p < tb.planes(); p++) {
                    PlaneCounters c = tb.counters(p);
                    System.out.printf(Locale.ROOT, "  plane %d counters: %d IPv4 frames (%d bytes), %d lost "
                            + "(%.4f%%), %d marked CE%n", p, c.ipv4Packets(), c.ipv4Bytes(), c.lostPackets(),
                            c.ipv4Packets() == 0 ? 0.0 : c.lossFraction() * 100, c.markedPackets());
                }
                return 0;
            });
        }
    }
}
