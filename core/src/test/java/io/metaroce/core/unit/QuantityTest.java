package io.metaroce.core.unit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QuantityTest {
    @Test
    void sizesDecimalAndBinary() {
        assertEquals(4096, Quantity.bytes("4KiB"));
        assertEquals(64_000_000, Quantity.bytes("64MB"));
        assertEquals(64_000_000, Quantity.bytes("64mb"));
        assertEquals(1 << 20, Quantity.bytes("1MiB"));
        assertEquals(1 << 20, Quantity.bytes("1 mib"));
        assertEquals(1500, Quantity.bytes("1500"));
        assertEquals(1500, Quantity.bytes("1500B"));
        assertEquals(178_450, Quantity.bytes("178450B"));
        assertEquals(1536, Quantity.bytes("1.5KiB"));
        assertEquals(400_000, Quantity.bytes("400KB"));
        assertEquals(2L << 40, Quantity.bytes("2TiB"));
        assertEquals(1_000_000, Quantity.bytes("1_000_000"));
        assertEquals(0, Quantity.bytes("0"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"64k", "1.5B", "-1KiB", "", "  ", "KiB", "4 parsecs", "1e30B", "4KiBB", "0x10"})
    void badSizesAreOneLineErrorsThatQuoteTheText(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantity.bytes(text));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains(text.strip()) || text.isBlank(), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e1000000400", "1e-999999999s", "9e41ps", "1e999999999Gbps"})
    void hugeExponentsAreRefusedAtOnce(String text) {
        // scaling such a number to a whole count first would overflow BigInteger or take minutes
        assertThrows(IllegalArgumentException.class, () -> Quantity.picoseconds(text, 1));
        assertThrows(IllegalArgumentException.class, () -> Quantity.bitsPerSecond(text));
        assertThrows(IllegalArgumentException.class, () -> Quantity.bytes(text));
    }

    @Test
    void aZeroWithAHugeExponentIsZero() {
        assertEquals(0, Quantity.picoseconds("0e999999999s", 1));
        assertEquals(0, Quantity.bytes("0e-999999999"));
    }

    @Test
    void aBarePrefixSizeSaysWhatToWrite() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantity.bytes("64k"));
        assertEquals("ambiguous size '64k': write 64KB (10^3 steps) or 64KiB (2^10 steps)", e.getMessage());
    }

    @Test
    void ratesInBitsPerSecond() {
        assertEquals(100_000_000_000L, Quantity.bitsPerSecond("100Gbps"));
        assertEquals(10_000_000_000L, Quantity.bitsPerSecond("10gbit"));
        assertEquals(400_000_000_000L, Quantity.bitsPerSecond("400G"));
        assertEquals(25_000_000L, Quantity.bitsPerSecond("25 Mbit/s"));
        assertEquals(2_500_000_000L, Quantity.bitsPerSecond("2.5GBit"));
        assertEquals(100_000L, Quantity.bitsPerSecond("100k"));
        assertEquals(1_000_000L, Quantity.bitsPerSecond("1000000"));
        assertEquals(1_000_000_000_000L, Quantity.bitsPerSecond("1Tbps"));
        assertEquals(50_000_000L, Quantity.bitsPerSecond("50mb/s"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"10GBps", "10GB/s", "fast", "10 furlongs", "-1G", "10Gibps"})
    void badRates(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantity.bitsPerSecond(text));
        assertTrue(e.getMessage().contains(text), e.getMessage());
    }

    @Test
    void timesAndTheirBareUnit() {
        assertEquals(5_000_000, Quantity.picoseconds("5us", 1));
        assertEquals(5_000_000, Quantity.picoseconds("5µs", 1));
        assertEquals(2 * Quantity.PS_PER_MS, Quantity.picoseconds("2ms", 1));
        assertEquals(1_500 * Quantity.PS_PER_MS, Quantity.picoseconds("1.5s", 1));
        assertEquals(500, Quantity.picoseconds("500ps", Quantity.PS_PER_S));
        assertEquals(7 * Quantity.PS_PER_US, Quantity.picoseconds("7", Quantity.PS_PER_US));
        assertEquals(50_000, Quantity.nanoseconds("50us", 1));
        assertEquals(200, Quantity.nanoseconds("200", 1));
        assertEquals(2, Quantity.nanoseconds("1500ps", 1)); // rounded to the nearest ns
        assertEquals(5.0, Quantity.seconds("5"), 0);
        assertEquals(0.002, Quantity.seconds("2ms"), 1e-15);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantity.seconds("5 min"));
        assertEquals("unknown unit in time '5 min' (use ps, ns, us, ms, s)", e.getMessage());
    }

    @Test
    void fractions() {
        assertEquals(0.01, Quantity.fraction("0.01"), 1e-15);
        assertEquals(0.05, Quantity.fraction("5%"), 1e-15);
        assertEquals(1.0, Quantity.fraction("100%"), 0);
        assertThrows(IllegalArgumentException.class, () -> Quantity.fraction("1.5"));
        assertThrows(IllegalArgumentException.class, () -> Quantity.fraction("-0.1"));
        assertThrows(IllegalArgumentException.class, () -> Quantity.fraction("lots"));
        assertThrows(IllegalArgumentException.class, () -> Quantity.fraction("NaN"));
    }

    @Test
    void formatsRoundTrip() {
        assertEquals("1 MiB", Quantity.formatBytes(1 << 20));
        assertEquals("1500 B", Quantity.formatBytes(1500));
        assertEquals("1536 KiB", Quantity.formatBytes(1536 << 10));
        assertEquals("10 Gbit/s", Quantity.formatBitsPerSecond(10_000_000_000L));
        assertEquals("2.5 Gbit/s", Quantity.formatBitsPerSecond(2_500_000_000L));
        for (long b : new long[] {0, 1, 1500, 4096, 1 << 20, 3L << 30}) {
            assertEquals(b, Quantity.bytes(Quantity.formatBytes(b)));
        }
        for (long r : new long[] {1, 999, 1000, 2_500_000_000L, 100_000_000_000L}) {
            assertEquals(r, Quantity.bitsPerSecond(Quantity.formatBitsPerSecond(r).replace("/s", "")));
        }
    }
}
