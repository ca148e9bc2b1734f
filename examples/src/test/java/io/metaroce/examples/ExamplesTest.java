package io.metaroce.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each example as two processes over loopback, as a user runs them: both exit 0 and report verified data. */
@Timeout(120)
class ExamplesTest {
    private static final Pattern LISTENING = Pattern.compile("^listening on (\\S+):(\\d+)$");

    @Test
    void writePingPongBetweenTwoProcesses() throws Exception {
        Outcome o = runPair(WritePingPong.class, List.of("8192", "200"), List.of("8192", "200"));
        assertTrue(o.client.contains("200 ping-pongs of 8192 bytes") && o.client.contains("data verified"), o::toString);
        assertTrue(o.server.contains("served 200 ping-pongs of 8192 bytes; data verified"), o::toString);
    }

    @Test
    void remoteReadBetweenTwoProcesses() throws Exception {
        Outcome o = runPair(RemoteRead.class, List.of(String.valueOf(3 << 20 | 123)), List.of());
        assertTrue(o.client.contains("read " + (3 << 20 | 123) + " bytes") && o.client.contains("data verified"),
                o::toString);
        assertTrue(o.server.contains("the client read them"), o::toString);
    }

    @Test
    void badArgumentsAreOneLineAndExitCode2() throws Exception {
        Process p = start(WritePingPong.class, List.of("client", "127.0.0.1", "127.0.0.1:99999"));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue(), out);
        assertTrue(out.startsWith("error: expected HOST:PORT, got 127.0.0.1:99999"), out);
        assertTrue(!out.contains("Exception"), out);
    }

    private record Outcome(String server, String client) {
    }

    private static Outcome runPair(Class<?> main, List<String> serverArgs, List<String> clientArgs) throws Exception {
        List<String> s = new ArrayList<>(List.of("server", "127.0.0.1:0"));
        s.addAll(serverArgs);
        Process server = start(main, s);
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder serverOut = new StringBuilder();
            int port = -1;
            String line;
            while ((line = r.readLine()) != null) {
                serverOut.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(2));
                    break;
                }
            }
            assertTrue(port > 0, () -> "no listening line from the server:\n" + serverOut);
            List<String> c = new ArrayList<>(List.of("client", "127.0.0.1", "127.0.0.1:" + port));
            c.addAll(clientArgs);
            Process client = start(main, c);
            String clientOut = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "client did not exit");
            while ((line = r.readLine()) != null) {
                serverOut.append(line).append('\n');
            }
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "server did not exit");
            Outcome o = new Outcome(serverOut.toString(), clientOut);
            assertEquals(0, client.exitValue(), o::toString);
            assertEquals(0, server.exitValue(), o::toString);
            return o;
        } finally {
            server.destroyForcibly();
        }
    }

    private static Process start(Class<?> main, List<String> args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Xmx256m", "-cp", cp, main.getName()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }
}
