package io.metaroce.net.testbed;

import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/** A test bed's network namespaces: listing them by name and removing them (with what still runs inside). */
final class Namespaces {
    private Namespaces() {
    }

    /**
     * Removes every namespace of the bed {@code name} ({@code <name>-h<N>}, {@code <name>-sw<N>}), first killing
     * the processes still running inside them. Idempotent; also cleans up after a crashed run. Returns how many
     * namespaces it removed.
     */
    static int down(String name) {
        namespacePattern(name); // validates the name
        if (Shell.find("ip").isEmpty()) {
            return 0;
        }
        String ip = Shell.require("ip");
        List<String> found = namespaces(name);
        List<ProcessHandle> killed = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        for (String ns : found) {
            ExecResult pids = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(ip, "netns", "pids", ns));
            for (String line : pids.stdout().split("\\s+")) {
                if (line.matches("\\d+") && Long.parseLong(line) != self) {
                    ProcessHandle.of(Long.parseLong(line)).ifPresent(ph -> {
                        Shell.LOG.log(Level.DEBUG, "killing pid " + ph.pid() + " in " + ns);
                        ph.destroyForcibly();
                        killed.add(ph);
                    });
                }
            }
        }
        for (ProcessHandle ph : killed) {
            try {
                ph.onExit().get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                Shell.LOG.log(Level.DEBUG, "pid " + ph.pid() + " has not exited yet: " + e);
            }
        }
        TestbedException first = null;
        for (String ns : found) {
            ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(ip, "netns", "del", ns));
            if (!r.ok() && Files.exists(Path.of("/run/netns", ns))) {
                TestbedException e = new TestbedException(List.of(ip, "netns", "del", ns), r.exitCode(),
                        r.stderr(), null, null);
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
        return found.size();
    }

    /** The namespaces of bed {@code name} that exist now, sorted. */
    static List<String> namespaces(String name) {
        Pattern p = namespacePattern(name);
        Optional<String> ip = Shell.find("ip");
        if (ip.isEmpty()) {
            return List.of();
        }
        ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(ip.get(), "netns", "list"));
        if (!r.ok()) {
            throw new TestbedException(List.of(ip.get(), "netns", "list"), r.exitCode(), r.stderr(), null, null);
        }
        TreeSet<String> out = new TreeSet<>();
        for (String line : r.stdout().split("\n")) {
            String ns = line.strip().split("\\s+")[0];
            if (p.matcher(ns).matches()) {
                out.add(ns);
            }
        }
        return List.copyOf(out);
    }

    static Pattern namespacePattern(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,11}")) {
            throw new IllegalArgumentException("test bed name must be 1-12 characters of [A-Za-z0-9_-] starting "
                    + "with a letter or digit: " + name);
        }
        return Pattern.compile(Pattern.quote(name) + "-(h|sw)(\\d+)");
    }
}
