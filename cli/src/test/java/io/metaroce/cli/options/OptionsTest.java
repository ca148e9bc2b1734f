package io.metaroce.cli.options;

import io.metaroce.cli.Main;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OptionsTest {
    @Test
    void hostPortTakesIpv4NamesAndBracketedIpv6() {
        InetSocketAddress a = HostPort.parse("127.0.0.1:7000");
        assertEquals(7000, a.getPort());
        assertEquals("127.0.0.1", a.getAddress().getHostAddress());
        InetSocketAddress b = HostPort.parse("[::1]:7001");
        assertEquals(7001, b.getPort());
        assertTrue(b.getAddress() instanceof java.net.Inet6Address, b.toString());
        assertEquals(0, HostPort.parse("localhost:0").getPort());
    }

    @Test
    void badHostPortsAreOneLineErrors() {
        for (String bad : new String[] {"7000", "host:", ":7000", "::1:7000", "[::1]7000", "[::1:7000", "h:port",
                "h:70000", "h:-1", "[]:1", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse(bad), bad);
            assertTrue(!e.getMessage().contains("\n") && !e.getMessage().isBlank(), e.getMessage());
        }
    }

    @Test
    void aBadUnitIsAOneLineUsageErrorWithExitCode2() {
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        int rc;
        try {
            rc = Main.run("demo", "--size", "64k", "--loopback-size", "0", "--sim-hosts", "0");
        } finally {
            System.setErr(old);
        }
        String err = buf.toString(StandardCharsets.UTF_8);
        assertEquals(2, rc, err);
        assertTrue(err.startsWith("Invalid value for option '--size': ambiguous size '64k': write 64KB (10^3 steps) "
                + "or 64KiB (2^10 steps)"), err);
        assertTrue(!err.contains("Exception"), err);
    }

    @Test
    void convertersUseTheOneGrammar() {
        assertEquals(64_000_000L, new Converters.Size().convert("64MB"));
        assertEquals(1 << 20, new Converters.IntSize().convert("1MiB"));
        assertEquals(10_000_000_000L, new Converters.Rate().convert("10gbit"));
        assertEquals(0L, new Converters.Rate().convert("unlimited"));
        assertEquals(0.002, new Converters.Seconds().convert("2ms"), 1e-15);
        assertEquals(5.0, new Converters.Seconds().convert("5"), 0);
        assertEquals(20_000L, new Converters.Micros().convert("20ms"));
        assertEquals(0.01, new Converters.Fraction().convert("1%"), 1e-15);
        assertThrows(picocli.CommandLine.TypeConversionException.class, () -> new Converters.IntSize().convert("4GiB"));
    }
}
