package io.metaroce.cli;

import io.metaroce.cli.perf.PerfCommand;
import io.metaroce.cli.perf.StatsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** {@code metaroce}: the project's command line. Subcommands are added by each part of the project. */
@Command(name = "metaroce", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = Main.DESCRIPTION,
        subcommands = {DemoCommand.class, PerfCommand.class, StatsCommand.class, TestbedCommand.class,
                io.metaroce.cli.sim.SimCommand.class,
                ConformanceCommand.class, AgentCommand.class, StressCommand.class,
                io.metaroce.cli.perf.MonitorCommand.class,
                ManCommand.class, CompletionCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    static final String DESCRIPTION = "MetaRoCE-J: an open implementation of the MetaRoCE multipath RDMA transport "
            + "for lossy Ethernet (independent; its own wire format v1; not affiliated with Meta).";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public Main() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code (for tests). */
    public static int run(String... args) {
        return commandLineFor(args).execute(args);
    }

    /** The whole command tree, configured as {@code metaroce} runs it (also what man pages and completion are made from). */
    public static CommandLine commandLine() {
        return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /**
     * The tree {@code args} need: only the subcommand that {@code args[0]} names exactly, or none for a lone
     * {@code --version}; the whole tree otherwise (help, completion of a misspelt name, no arguments). picocli
     * builds the model of every command it is given from its annotations, most of a short command's start-up
     * when it was the whole tree every time.
     */
    static CommandLine commandLineFor(String... args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            return new CommandLine(new Lean());
        }
        if (args.length > 0) {
            for (Class<?> c : Main.class.getAnnotation(Command.class).subcommands()) {
                Command a = c.getAnnotation(Command.class);
                if (a != null && a.name().equals(args[0]) && c != CommandLine.HelpCommand.class) { // help: every command
                    CommandLine cl = new CommandLine(new Lean());
                    cl.addSubcommand(c);
                    return cl.setCaseInsensitiveEnumValuesAllowed(true); // after adding: it applies to those present
                }
            }
        }
        return commandLine();
    }

    /** The root of {@link #commandLineFor}'s one-command trees: {@code metaroce} without its subcommands. */
    @Command(name = "metaroce", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
            description = Main.DESCRIPTION)
    static final class Lean implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().usage(System.out);
        }
    }

    /** Reads the version Maven filtered into the jar. */
    public static final class Version implements CommandLine.IVersionProvider {
        public Version() {
        }

        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            return new String[] {"metaroce " + p.getProperty("version", "unknown") + " (wire format v"
                    + io.metaroce.core.wire.Packet.VERSION + ", Java " + Runtime.version() + ")"};
        }
    }
}
