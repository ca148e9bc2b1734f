package io.metaroce.cli.perf;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Runs perf sides in this JVM: the server on its own thread, the client on the caller's. */
final class PerfHarness {
    private PerfHarness() {
    }

    /** What a side printed and returned. */
    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out:\n" + out + "--- err:\n" + err;
        }
    }

    /** A writer that others can wait on for a line matching a pattern (no sleeping). */
    static final class Capture extends Writer {
        private final StringBuilder b = new StringBuilder();

        @Override
        public synchronized void write(char[] cbuf, int off, int len) {
            b.append(cbuf, off, len);
            notifyAll();
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        synchronized String text() {
            return b.toString();
        }

        synchronized Matcher await(Pattern p, long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (true) {
                Matcher m = p.matcher(b);
                if (m.find()) {
                    return m;
                }
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return null;
                }
                wait(left);
            }
        }
    }

    static Run run(String... args) {
        Capture out = new Capture();
        Capture err = new Capture();
        CommandLine cl = new CommandLine(new PerfCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.text(), err.text());
    }

    static final Pattern LISTENING = Pattern.compile("listening on ([0-9.]+):(\\d+)");

    /** A server running on a thread of this JVM. */
    static final class Server {
        final Capture out = new Capture();
        final Capture err = new Capture();
        private final Thread thread;
        private volatile int exit = Integer.MIN_VALUE;

        Server(String... args) {
            thread = new Thread(() -> {
                CommandLine cl = new CommandLine(new PerfCommand());
                cl.setOut(new PrintWriter(out, true));
                cl.setErr(new PrintWriter(err, true));
                exit = cl.execute(args);
            }, "perf-test-server");
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits for the "listening on ADDR:PORT" line; returns the port. */
        int port() throws InterruptedException {
            Matcher m = out.await(LISTENING, 15_000);
            if (m == null) {
                fail("server did not print its listening line:\n" + out.text() + err.text());
            }
            return Integer.parseInt(m.group(2));
        }

        Run join(long timeoutMs) throws InterruptedException {
            thread.join(timeoutMs);
            assertTrue(!thread.isAlive(), () -> "server still running:\n" + out.text() + err.text());
            return new Run(exit, out.text(), err.text());
        }
    }

    /**
     * Flags both test sides take: a minimum RTO far above this shared 2-core machine's scheduling stalls (the
     * engine's 200 us default times out spuriously here, and a path that RTT keeps above the probe interval
     * is never re-admitted), and a bounded wait.
     */
    static final List<String> COMMON = List.of("--timeout", "20", "--min-rto-us", "20000");

    /** Runs a server with {@code serverArgs} (plus -p 0) and a client with {@code clientArgs} (plus HOST and -p). */
    static Run[] pair(String test, List<String> serverArgs, List<String> clientArgs) throws InterruptedException {
        List<String> s = new ArrayList<>(List.of(test, "-p", "0"));
        s.addAll(COMMON);
        s.addAll(serverArgs);
        Server server = new Server(s.toArray(String[]::new));
        int port = server.port();
        List<String> c = new ArrayList<>(List.of(test, "127.0.0.1", "-p", String.valueOf(port)));
        c.addAll(COMMON);
        c.addAll(clientArgs);
        Run client = run(c.toArray(String[]::new));
        Run srv = server.join(30_000);
        return new Run[] {srv, client};
    }

    /** The numbers of the row under the table header that starts with {@code headerStart}. */
    static double[] row(String output, String headerStart) {
        String[] lines = output.split("\\R");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].startsWith(headerStart)) {
                return Arrays.stream(lines[i + 1].trim().split("\\s+")).mapToDouble(Double::parseDouble).toArray();
            }
        }
        fail("no table starting with '" + headerStart + "' in:\n" + output);
        return new double[0];
    }
}
