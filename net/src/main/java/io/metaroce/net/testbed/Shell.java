package io.metaroce.net.testbed;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Runs the system tools ({@code ip}, {@code tc}, {@code nft}, {@code ethtool}); logs every command at DEBUG. */
final class Shell {
    static final Logger LOG = System.getLogger("io.metaroce.net.testbed");
    /** Setup commands finish in milliseconds; this only catches a hung tool. */
    static final Duration SETUP_TIMEOUT = Duration.ofSeconds(30);

    private static final List<String> SYSTEM_DIRS = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin",
            "/usr/local/sbin", "/usr/local/bin");
    private static final ConcurrentHashMap<String, Optional<String>> TOOLS = new ConcurrentHashMap<>();

    private Shell() {
    }

    /** The absolute path of {@code tool}, searched on PATH then in the usual sbin/bin folders. */
    static Optional<String> find(String tool) {
        return TOOLS.computeIfAbsent(tool, Shell::search);
    }

    /** The absolute path of {@code tool}, or an exception saying it is missing. */
    static String require(String tool) {
        return find(tool).orElseThrow(() -> new TestbedException("`" + tool + "` was not found on PATH or in "
                + SYSTEM_DIRS + "; install it (Debian: apt-get install " + packageOf(tool) + ")"));
    }

    static String packageOf(String tool) {
        return switch (tool) {
            case "ip", "tc" -> "iproute2";
            case "nft" -> "nftables";
            case "ping" -> "iputils-ping";
            case "sysctl" -> "procps";
            default -> tool;
        };
    }

    private static Optional<String> search(String tool) {
        Set<String> dirs = new LinkedHashSet<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                if (!d.isEmpty()) {
                    dirs.add(d);
                }
            }
        }
        dirs.addAll(SYSTEM_DIRS);
        for (String d : dirs) {
            Path p = Path.of(d, tool);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p.toString());
            }
        }
        return Optional.empty();
    }

    /** Runs {@code cmd} to completion; throws {@link TestbedException} unless it exits 0. */
    static ExecResult check(String... cmd) {
        return check(null, List.of(cmd));
    }

    /** Runs {@code cmd} with {@code stdin} fed to it; throws {@link TestbedException} unless it exits 0. */
    static ExecResult check(String stdin, List<String> cmd) {
        ExecResult r = run(SETUP_TIMEOUT, stdin, cmd);
        if (!r.ok()) {
            throw new TestbedException(cmd, r.exitCode(), r.stderr(), null, null);
        }
        return r;
    }

    /**
     * Runs {@code cmd} to completion (stdin from {@code stdin}, or empty) and returns how it ended whatever
     * the exit code. Throws {@link TestbedException} when it cannot start or outlives {@code timeout}.
     */
    static ExecResult run(Duration timeout, String stdin, List<String> cmd) {
        if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "$ " + join(cmd) + (stdin == null ? "" : " <<EOF\n" + stdin + "EOF"));
        }
        Process p;
        try {
            p = new ProcessBuilder(cmd).start();
        } catch (IOException e) {
            throw new TestbedException(cmd, -1, "", "could not start: " + e.getMessage(), e);
        }
        AtomicReference<String> err = new AtomicReference<>("");
        Thread errReader = Thread.ofVirtual().start(() -> err.set(slurp(p.getErrorStream())));
        AtomicReference<String> out = new AtomicReference<>("");
        Thread outReader = Thread.ofVirtual().start(() -> out.set(slurp(p.getInputStream())));
        try {
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                // the command exited without reading its input: its exit code and stderr tell why
            }
            if (!p.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                errReader.join(1000);
                throw new TestbedException(cmd, -1, err.get(), "timed out after " + timeout.toMillis() + " ms",
                        null);
            }
            errReader.join();
            outReader.join();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new TestbedException(cmd, -1, err.get(), "interrupted", e);
        }
        ExecResult r = new ExecResult(p.exitValue(), out.get(), err.get());
        if (!r.ok() && LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "  exit " + r.exitCode() + ": " + r.stderr().strip());
        }
        return r;
    }

    private static String slurp(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code cmd} as one shell-like line (arguments with spaces or quotes are single-quoted). */
    static String join(List<String> cmd) {
        List<String> parts = new ArrayList<>(cmd.size());
        for (String a : cmd) {
            boolean plain = !a.isEmpty() && a.chars().allMatch(c -> Character.isLetterOrDigit(c)
                    || "-_./:=,+@%".indexOf(c) >= 0);
            parts.add(plain ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return String.join(" ", parts);
    }
}
