package io.metaroce.net.testbed;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnitsTest {
    @Test
    void rates() {
        assertEquals(10_000_000_000L, Units.parseRate("10gbit"));
        assertEquals(500_000_000L, Units.parseRate("500mbit"));
        assertEquals(1_000_000L, Units.parseRate("1000000"));
        assertEquals(2_500_000_000L, Units.parseRate("2.5GBit"));
        assertEquals(100_000L, Units.parseRate("100k"));
        assertEquals(0, Units.parseRate("unlimited"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseRate("10gbps"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseRate("fast"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseRate("10 furlongs"));
        assertEquals("10 Gbit/s", Units.formatRate(10_000_000_000L));
        assertEquals("2.5 Gbit/s", Units.formatRate(2_500_000_000L));
        assertEquals("unlimited", Units.formatRate(0));
    }

    @Test
    void sizes() {
        assertEquals(1 << 20, Units.parseSize("1mb"));
        assertEquals(64 << 10, Units.parseSize("64kb"));
        assertEquals(64 << 10, Units.parseSize("64K"));
        assertEquals(1500, Units.parseSize("1500"));
        assertEquals(1500, Units.parseSize("1500b"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseSize("1 parsec"));
        assertEquals("1 MiB", Units.formatSize(1 << 20));
        assertEquals("1500 B", Units.formatSize(1500));
    }

    @Test
    void fractions() {
        assertEquals(0.01, Units.parseFraction("0.01"), 1e-12);
        assertEquals(0.05, Units.parseFraction("5%"), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> Units.parseFraction("1.5"));
        assertThrows(IllegalArgumentException.class, () -> Units.parseFraction("-0.1"));
    }

    @Test
    void rulesetAndSpec() {
        TestbedSpec spec = new TestbedSpec("tb", 2, 4, 9000, 10_000_000_000L, 1 << 20, 0.01, 9_000_000_000L, true);
        String rules = Testbed.ruleset(spec);
        assertTrue(rules.contains("numgen random mod 1000000 < 10000 counter name \"lost\" drop"), rules);
        assertTrue(rules.contains("oifname \"h1\" ether type ip limit rate over 1125000000 bytes/second burst "
                + "56250 bytes ip ecn { ect0, ect1 } counter name \"marked\" ip ecn set ce"), rules);
        assertEquals("", Testbed.lossRule(0));
        assertEquals(250_000, spec.htbBurstBytes());
        assertThrows(IllegalArgumentException.class, () -> TestbedSpec.of("a name with spaces", 1, 1));
        assertThrows(IllegalArgumentException.class, () -> TestbedSpec.of("tb", 0, 1));
        assertThrows(IllegalArgumentException.class, () -> TestbedSpec.of("tb", 1, 57));
        assertEquals("10.255.0.254", Testbed.addressOf(253, 55).getHostAddress());
        assertThrows(IllegalArgumentException.class, () -> Testbed.addressOf(254, 0));
    }
}
