package io.metaroce.cli.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server in its own JVM, the client in this one: write-bw with --verify, both exit 0. */
@Timeout(120)
class PerfTwoProcessTest {
    @Test
    void writeBwBetweenTwoProcesses() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Xmx256m", "-cp", cp, PerfCommand.class.getName(),
                "write-bw", "-p", "0", "-s", "16384", "--verify", "--timeout", "30", "--min-rto-us", "20000"));
        pb.redirectErrorStream(true);
        Process server = pb.start();
        StringBuilder serverOut = new StringBuilder();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            int port = -1;
            String line;
            while ((line = r.readLine()) != null) { // blocks until the server prints (or exits)
                serverOut.append(line).append('\n');
                Matcher m = PerfHarness.LISTENING.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(2));
                    break;
                }
            }
            assertTrue(port > 0, () -> "no listening line from the server process:\n" + serverOut);
            PerfHarness.Run client = PerfHarness.run("write-bw", "127.0.0.1", "-p", String.valueOf(port),
                    "-s", "16384", "-n", "300", "--timeout", "30", "--min-rto-us", "20000");
            assertEquals(0, client.exit(), client::toString);
            while ((line = r.readLine()) != null) {
                serverOut.append(line).append('\n');
            }
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server process did not exit");
            assertEquals(0, server.exitValue(), serverOut::toString);
            assertTrue(serverOut.toString().contains("data verified"), serverOut::toString);
            double[] row = PerfHarness.row(serverOut.toString(), " #bytes     #iterations    BW peak");
            assertEquals(16384, row[0]);
            assertEquals(300, row[1]);
        } finally {
            server.destroyForcibly();
        }
    }
}
