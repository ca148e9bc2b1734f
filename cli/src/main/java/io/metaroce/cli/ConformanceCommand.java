package io.metaroce.cli;

import io.metaroce.cli.options.Converters;
import io.metaroce.conformance.CaseResult;
import io.metaroce.conformance.Reports;
import io.metaroce.conformance.Runner;
import io.metaroce.conformance.Suite;
import io.metaroce.conformance.SuiteRun;
import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptException;
import io.metaroce.conformance.target.InProcessTarget;
import io.metaroce.conformance.target.RemoteTarget;
import io.metaroce.conformance.target.Target;
import io.metaroce.conformance.target.Mutation;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code metaroce conformance}: the compliance suite (run it, list its cases, show its coverage). */
@Command(name = "conformance", mixinStandardHelpOptions = true,
        description = "The MetaRoCE wire format v1 compliance suite: wire-level test scripts, each naming the spec "
                + "behaviour IDs it checks (docs/conformance/README.md).",
        subcommands = {ConformanceCommand.Run.class, ConformanceCommand.ListCases.class,
                ConformanceCommand.Coverage.class})
public final class ConformanceCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public ConformanceCommand() {
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Options every subcommand shares. */
    static final class Selection {
        @Option(names = "--section", paramLabel = "ID-PREFIX",
                description = "Only cases of this section (wire, sack, ...) or naming an ID with this prefix (SACK-, "
                        + "NAK-3).")
        String section;
        @Option(names = "--case", paramLabel = "NAME", description = "Only the case with this name.")
        String name;
        @Option(names = "--strict", description = "Also run SHOULD-level cases.")
        boolean strict;
        @Option(names = "--cases-dir", paramLabel = "DIR",
                description = "Read the cases from DIR (*.mrt, one directory per section) instead of the built-in suite.")
        Path casesDir;

        Suite suite() throws IOException {
            return casesDir == null ? Suite.builtIn() : Suite.fromDirectory(casesDir);
        }
    }

    /** {@code metaroce conformance run}. */
    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Runs the suite against our engine in process (virtual time), or against an implementation's "
                    + "agent over UDP with --target. Prints a line per case and a summary; exit code 0 only when no "
                    + "selected case fails.")
    public static final class Run implements Callable<Integer> {
        @CommandLine.Mixin
        Selection sel = new Selection();
        @Option(names = "--target", paramLabel = "HOST:PORT", converter = Converters.Address.class,
                description = "Control address of a conformance agent (./metaroce agent --listen HOST:PORT). "
                        + "Default: our engine in process.")
        InetSocketAddress target;
        @Option(names = "--local", paramLabel = "HOST", defaultValue = "127.0.0.1",
                description = "With --target: local address of the tester's sockets (default ${DEFAULT-VALUE}).")
        String local;
        @Option(names = "--tolerance-us", paramLabel = "US", defaultValue = "2000",
                description = "With --target: timing tolerance added to time windows, us of case time (default "
                        + "${DEFAULT-VALUE}).")
        long toleranceUs;
        @Option(names = "--time-scale", paramLabel = "N", defaultValue = "100",
                description = "With --target: run case time N times slower than the wall clock on both sides, so that "
                        + "sub-millisecond timers survive scheduling and network jitter (default ${DEFAULT-VALUE}; "
                        + "1 = real time).")
        long timeScale;
        @Option(names = "--out", paramLabel = "DIR",
                description = "Write JUnit XML, JSON and HTML reports into DIR.")
        Path out;
        @Option(names = "--mutation", paramLabel = "NAME", defaultValue = "NONE", hidden = true,
                description = "In process only: run against a deliberately broken engine (testing the suite).")
        Mutation mutation;
        @Option(names = {"-v", "--verbose"}, description = "Print the trace of failed cases.")
        boolean verbose;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        public Run() {
        }

        @Override
        public Integer call() {
            PrintWriter o = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            List<Script> cases;
            String accounting;
            try {
                Suite suite = sel.suite();
                cases = suite.select(sel.section, sel.name, sel.strict);
                accounting = accounting(suite.cases().size(), suite.select(sel.section, sel.name, true).size(),
                        cases.size());
            } catch (IOException | ScriptException e) {
                err.println("conformance: " + e.getMessage());
                return 2;
            }
            if (cases.isEmpty()) {
                err.println("conformance: no case matches the selection");
                return 2;
            }
            try (Target t = open()) {
                o.printf(Locale.ROOT, "MetaRoCE conformance: %d cases against %s%n", cases.size(), t.description());
                o.flush();
                Runner runner = new Runner(target == null ? 0 : toleranceUs * 1000);
                SuiteRun run = SuiteRun.run(cases, t, runner, sel.strict, r -> line(o, r));
                o.println(run.summary());
                o.println(accounting);
                if (out != null) {
                    for (Path p : Reports.writeAll(run, out)) {
                        o.println("wrote " + p);
                    }
                }
                return run.passed() ? 0 : 1;
            } catch (Target.TargetException | IOException e) {
                err.println("conformance: " + e.getMessage());
                return 2;
            }
        }

        /**
         * Where every case of the suite went: {@code total} cases, {@code matching} of them in the section/name
         * selection, {@code run} of those run (the others are SHOULD cases, run only with --strict).
         */
        static String accounting(int total, int matching, int run) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "the suite has %d cases: %d run", total, run));
            if (matching > run) {
                sb.append(String.format(Locale.ROOT, ", %d SHOULD case%s not run (--strict runs them)", matching - run,
                        matching - run == 1 ? "" : "s"));
            }
            if (total > matching) {
                sb.append(String.format(Locale.ROOT, ", %d outside the selection", total - matching));
            }
            return sb.toString();
        }

        private Target open() throws Target.TargetException {
            if (target == null) {
                return new InProcessTarget(mutation, 42);
            }
            return new RemoteTarget(target, local, timeScale);
        }

        private void line(PrintWriter o, CaseResult r) {
            o.printf(Locale.ROOT, "%-5s %-52s %-6s %s%n", r.status(), r.name(), r.level(), String.join(" ", r.ids()));
            if (r.status() != CaseResult.Status.PASS) {
                o.println("      " + r.file() + ":" + r.line() + ": " + r.message());
                for (CaseResult.FieldDiff d : r.diffs()) {
                    if (!d.ok()) {
                        o.printf(Locale.ROOT, "      %-8s expected %-24s actual %s%n", d.field(), d.expected(), d.actual());
                    }
                }
                if (verbose) {
                    r.trace().forEach(x -> o.println("      " + x));
                }
            }
            o.flush();
        }
    }

    /** {@code metaroce conformance list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the cases: section, name, level, IDs.")
    public static final class ListCases implements Callable<Integer> {
        @CommandLine.Mixin
        Selection sel = new Selection();
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        public ListCases() {
        }

        @Override
        public Integer call() throws IOException {
            PrintWriter o = spec.commandLine().getOut();
            List<Script> cases = sel.suite().select(sel.section, sel.name, true);
            for (Script c : cases) {
                o.printf(Locale.ROOT, "%-6s %-52s %-6s %-28s %s%n", c.section(), c.name(), c.level(),
                        String.join(" ", c.ids()), c.title());
            }
            o.println(cases.size() + " cases");
            return 0;
        }
    }

    /** {@code metaroce conformance coverage}. */
    @Command(name = "coverage", mixinStandardHelpOptions = true,
            description = "Prints the coverage table: every spec behaviour ID and the cases that check it. Exit code 1 "
                    + "if an ID has no case.")
    public static final class Coverage implements Callable<Integer> {
        @CommandLine.Mixin
        Selection sel = new Selection();
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        public Coverage() {
        }

        @Override
        public Integer call() throws IOException {
            Suite suite = sel.suite();
            java.io.PrintWriter out = spec.commandLine().getOut();
            out.print(suite.coverageTable());
            out.flush(); // print() does not flush, and the process exits next: the table was cut at the buffer's size
            boolean all = suite.coverage().values().stream().noneMatch(List::isEmpty);
            return all && suite.unknownIds().isEmpty() ? 0 : 1;
        }
    }
}
