package io.metaroce.cli.perf;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server in its own JVM, the client in this one: every test kind between two processes, with the data
 * checked (--verify: write-bw and send-bw on the server, read-bw on the client), both exit 0.
 */
@Timeout(300)
@Tag("slow")
class PerfTwoProcessTest {
    @ParameterizedTest
    @ValueSource(strings = {"write-bw", "send-bw", "read-bw", "write-lat", "send-lat"})
    void everyKindBetweenTwoProcesses(String kind) throws Exception {
        boolean bw = kind.endsWith("-bw");
        String size = bw ? "16384" : "8";
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Xmx256m", "-cp", cp, PerfCommand.class.getName(),
                kind, "-p", "0", "-s", size, "--verify", "--timeout", "30", "--min-rto-us", "20000"));
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
            PerfHarness.Run client = PerfHarness.run(kind, "127.0.0.1", "-p", String.valueOf(port),
                    "-s", size, "-n", "300", "--timeout", "30", "--min-rto-us", "20000", "--verify");
            assertEquals(0, client.exit(), client::toString);
            if (kind.equals("read-bw")) {
                assertTrue(client.toString().contains("data verified"), client::toString);
            }
            while ((line = r.readLine()) != null) {
                serverOut.append(line).append('\n');
            }
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server process did not exit");
            assertEquals(0, server.exitValue(), serverOut::toString);
            if (kind.equals("write-bw") || kind.equals("send-bw")) {
                assertTrue(serverOut.toString().contains("data verified"), serverOut::toString);
            }
            if (bw) {
                double[] row = PerfHarness.row(serverOut.toString(), " #bytes     #iterations    BW peak");
                assertEquals(16384, row[0]);
            }
        } finally {
            server.destroyForcibly();
        }
    }
}
