package io.metaroce.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Link rates from a sysfs-like tree: physical interfaces only, unknown is 0 (off). */
class LinkRateTest {
    @TempDir
    Path sys;

    private void iface(String name, String speed, boolean physical) throws Exception {
        Path d = Files.createDirectories(sys.resolve(name));
        if (speed != null) {
            Files.writeString(d.resolve("speed"), speed + "\n");
        }
        if (physical) {
            Files.createDirectories(d.resolve("device"));
        }
    }

    @Test
    void physicalSpeedIsReadVirtualOrUnknownIsZero() throws Exception {
        iface("eth0", "25000", true);
        iface("veth0", "10000", false);    // veth makes up 10000
        iface("eth1", "-1", true);         // link down
        iface("eth2", null, true);         // no speed file
        iface("eth3", "fast", true);
        LinkRate r = new LinkRate(sys);
        assertEquals(25_000_000_000L, r.ofInterface("eth0"));
        assertEquals(0, r.ofInterface("veth0"));
        assertEquals(0, r.ofInterface("eth1"));
        assertEquals(0, r.ofInterface("eth2"));
        assertEquals(0, r.ofInterface("eth3"));
        assertEquals(0, r.ofInterface("missing"));
    }

    @Test
    void loopbackHasNoRate() throws Exception {
        assertEquals(0, LinkRate.system().ofPlanes(java.util.List.of(java.net.InetAddress.getByName("127.0.0.1"))));
    }
}
