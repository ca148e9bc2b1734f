package io.metaroce.cli.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.metaroce.cli.perf.PerfHarness.pair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code perf --auth-key FILE [--encrypt]} over 127.0.0.1 (AUTH-9): verified data, refusals, bad key files. */
@Timeout(90)
class PerfAuthTest {
    @TempDir
    Path tmp;

    private Path key(String hex) throws Exception {
        Path p = Files.createTempFile(tmp, "psk", ".hex");
        Files.writeString(p, hex + "\n");
        return p;
    }

    @Test
    void anEncryptedWriteBwVerifiesItsDataAndRecordsTheMode() throws Exception {
        String k = key("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f").toString();
        Path rec = tmp.resolve("auth.yaml");
        PerfHarness.Run[] r = pair("write-bw", List.of("-s", "4096", "--verify", "--auth-key", k, "--encrypt",
                "--key-update", "64"), List.of("-s", "4096", "-n", "200", "--auth-key", k, "--encrypt", "--key-update",
                "64", "--record", rec.toString(), "--stats"));
        assertEquals(0, r[0].exit(), () -> "server: " + r[0] + "\nclient: " + r[1]);
        assertEquals(0, r[1].exit(), () -> "client: " + r[1] + "\nserver: " + r[0]);
        assertTrue(r[0].out().contains("data verified"), r[0].out());
        assertTrue(r[1].out().contains("Authentication  : AES-128-GCM"), r[1].out());
        assertTrue(Files.readString(rec).contains("auth: 2"), Files.readString(rec));
        assertTrue(!r[1].out().contains("DROP_AUTH"), "no authentication drop: " + r[1].out());
        assertTrue(r[1].out().contains("KEY_UPDATES_SENT"), "AUTH-18: 200 packets, an update every 64: " + r[1].out());
    }

    @Test
    void aServerWithAKeyRefusesAClientWithoutOneAndServesTheNext() throws Exception {
        String k = key("00112233445566778899aabbccddeeff").toString();
        PerfHarness.Server server = new PerfHarness.Server("write-bw", "-p", "0", "-s", "4096", "--verify",
                "--auth-key", k, "--timeout", "20", "--min-rto-us", "20000");
        String port = String.valueOf(server.port());
        PerfHarness.Run refused = PerfHarness.run("write-bw", "127.0.0.1", "-p", port, "-s", "4096", "-n", "10",
                "--timeout", "3");
        assertEquals(PerfException.CONNECT, refused.exit(), refused::toString);
        assertTrue(refused.err().contains("UNSUPPORTED"), refused.err());
        PerfHarness.Run client = PerfHarness.run("write-bw", "127.0.0.1", "-p", port, "-s", "4096", "-n", "100",
                "--auth-key", k, "--timeout", "20", "--min-rto-us", "20000");
        PerfHarness.Run srv = server.join(30_000);
        assertEquals(0, client.exit(), client::toString);
        assertEquals(0, srv.exit(), srv::toString);
        assertTrue(srv.out().contains("data verified"), srv.out());
    }

    @Test
    void aClientWithAKeySaysWhyAServerWithoutOneDidNotConnect() throws Exception {
        String k = key("00112233445566778899aabbccddeeff").toString();
        PerfHarness.Server server = new PerfHarness.Server("write-bw", "-p", "0", "-s", "4096", "--timeout", "20");
        String port = String.valueOf(server.port());
        PerfHarness.Run keyed = PerfHarness.run("write-bw", "127.0.0.1", "-p", port, "-s", "4096", "-n", "10",
                "--auth-key", k, "--timeout", "2");
        assertEquals(PerfException.CONNECT, keyed.exit(), keyed::toString);
        // AUTH-13, AUTH-14: the keyless server's unsealed CM_REPs are dropped, and the failure says so
        assertTrue(keyed.err().contains("without a valid seal") && keyed.err().contains("--auth-key"), keyed.err());
        assertEquals(1, keyed.err().strip().lines().count(), "one line: " + keyed.err());
        PerfHarness.Run client = PerfHarness.run("write-bw", "127.0.0.1", "-p", port, "-s", "4096", "-n", "10",
                "--timeout", "20");
        assertEquals(0, client.exit(), client::toString);
        assertEquals(0, server.join(30_000).exit());
    }

    @Test
    void aBadKeyFileIsOneLine() throws Exception {
        PerfHarness.Run r = PerfHarness.run("write-bw", "127.0.0.1", "--auth-key", key("0011").toString());
        assertEquals(PerfException.ERROR, r.exit(), r::toString);
        assertTrue(r.err().contains("holds 2 bytes; a pre-shared key is 16..64 bytes"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        r = PerfHarness.run("write-bw", "127.0.0.1", "--auth-key", key("not hex at all, no").toString());
        assertTrue(r.err().contains("is not hexadecimal text"), r.err());
        r = PerfHarness.run("write-bw", "127.0.0.1", "--encrypt");
        assertTrue(r.err().contains("--encrypt needs --auth-key"), r.err());
        r = PerfHarness.run("write-bw", "127.0.0.1", "--key-update", "64");
        assertTrue(r.err().contains("--key-update needs --auth-key"), r.err());
    }
}
