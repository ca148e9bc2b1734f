package io.metaroce.core;

import io.metaroce.core.wire.GoldenVectors;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** REL-20's field: GF(2^8) with 0x11d, checked against carry-less multiplication done the slow way. */
class Gf256Test {
    /** Carry-less product reduced by 0x11d, bit by bit (the definition the tables must agree with). */
    private static int slowMul(int a, int b) {
        return GoldenVectors.gfMul(a, b);
    }

    @Test
    void multiplicationAndDivisionAgreeWithTheDefinition() {
        for (int a = 0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                int p = Gf256.mul(a, b);
                assertEquals(slowMul(a, b), p, a + " * " + b);
                if (b != 0) {
                    assertEquals(a, Gf256.div(p, b), a + " * " + b + " / " + b);
                }
            }
        }
        assertThrows(ArithmeticException.class, () -> Gf256.div(1, 0));
    }

    @Test
    void twoHasOrder255SoEverySegmentOfAGroupHasItsOwnWeight() {
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 255; i++) {
            assertTrue(seen.add(Gf256.coefficient(1, i)), "2^" + i + " repeats");
            assertEquals(Gf256.coefficient(1, i + 1 == 255 ? 0 : i + 1), Gf256.mul(Gf256.coefficient(1, i), 2));
        }
    }

    @Test
    void doublingEightBytesAtOnceIsDoublingEachByte() {
        for (int v = 0; v < 256; v++) {
            long x = 0;
            for (int k = 0; k < 8; k++) {
                x |= (long) ((v + 37 * k) & 0xff) << (8 * k);
            }
            long d = Gf256.times2(x);
            for (int k = 0; k < 8; k++) {
                int in = (int) (x >>> (8 * k)) & 0xff;
                assertEquals(Gf256.mul(in, 2), (int) (d >>> (8 * k)) & 0xff, "byte " + k + " of " + Long.toHexString(x));
            }
        }
    }

    @Test
    void mulAddWorksOnWholeArrays() {
        byte[] acc = {1, 2, 3, (byte) 0xff};
        byte[] src = {(byte) 0x80, 0, 7, 1};
        Gf256.mulAdd(acc, src, 4, 3);
        for (int k = 0; k < 4; k++) {
            assertEquals((new int[] {1, 2, 3, 0xff}[k]) ^ slowMul(src[k] & 0xff, 3), acc[k] & 0xff);
        }
    }
}
