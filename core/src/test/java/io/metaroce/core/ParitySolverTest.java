package io.metaroce.core;

import io.metaroce.core.wire.GoldenVectors;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REL-21's solver: the weights it gives, applied to parities computed here from the definition (repair j weights
 * segment i by 2^(j*i), multiplied bit by bit, not with core's tables), give back the missing bytes.
 */
class ParitySolverTest {
    /** 2^e in GF(2^8), by repeated doubling (the definition). */
    private static int pow2(int e) {
        int x = 1;
        for (int k = 0; k < e % 255; k++) {
            x = GoldenVectors.gfMul(x, 2);
        }
        return x;
    }

    /** Repair {@code j} of {@code data} (one byte per segment), from the definition. */
    private static int parity(int j, int[] data) {
        int s = 0;
        for (int i = 0; i < data.length; i++) {
            s ^= GoldenVectors.gfMul(pow2(j * i), data[i]);
        }
        return s;
    }

    /**
     * Solves for the segments at {@code missing} from parities {@code repairs} of {@code data}; returns the rebuilt
     * bytes, or null when the solver says the equations do not determine them.
     */
    private static int[] rebuild(int[] data, int[] missing, int[] repairs) {
        ParitySolver s = new ParitySolver(16);
        if (!s.solve(repairs, repairs.length, missing, missing.length)) {
            return null;
        }
        int[] residual = new int[repairs.length];
        for (int k = 0; k < repairs.length; k++) {
            int r = parity(repairs[k], data);
            for (int i = 0; i < data.length; i++) {
                boolean lost = false;
                for (int m : missing) {
                    lost |= m == i;
                }
                if (!lost) {
                    r ^= GoldenVectors.gfMul(pow2(repairs[k] * i), data[i]);
                }
            }
            residual[k] = r;
        }
        int[] out = new int[missing.length];
        for (int b = 0; b < missing.length; b++) {
            for (int k = 0; k < repairs.length; k++) {
                if (s.used(k)) {
                    out[b] ^= GoldenVectors.gfMul(s.weight(b, k), residual[k]);
                } else {
                    assertEquals(0, s.weight(b, k), "an equation not chosen has no weight");
                }
            }
        }
        return out;
    }

    @Test
    void consecutiveRepairsFromZeroRebuildAnyLostSegments() {
        Random rnd = new Random(7);
        for (int trial = 0; trial < 2000; trial++) {
            int n = 2 + rnd.nextInt(30);
            int e = 1 + rnd.nextInt(Math.min(n, 16));
            int[] data = rnd.ints(n, 0, 256).toArray();
            int[] missing = rnd.ints(0, n).distinct().limit(e).sorted().toArray();
            int[] repairs = new int[e];
            for (int j = 0; j < e; j++) {
                repairs[j] = j; // PARITY, PARITY_Q, PARITY_R 2, ...: a Vandermonde system, always solvable
            }
            int[] want = new int[e];
            for (int b = 0; b < e; b++) {
                want[b] = data[missing[b]];
            }
            assertArrayEquals(want, rebuild(data, missing, repairs), "n " + n + " missing " + e);
        }
    }

    @Test
    void anySetOfRepairsRebuildsWhenTheSolverSaysItCan() {
        Random rnd = new Random(11);
        int solved = 0;
        int trials = 3000;
        for (int trial = 0; trial < trials; trial++) {
            int n = 2 + rnd.nextInt(40);
            int e = 1 + rnd.nextInt(Math.min(n, 8));
            int g = e + rnd.nextInt(16 - e + 1);
            int[] data = rnd.ints(n, 0, 256).toArray();
            int[] missing = rnd.ints(0, n).distinct().limit(e).sorted().toArray();
            int[] repairs = rnd.ints(0, 16).distinct().limit(g).toArray(); // some parities lost on the way
            int[] got = rebuild(data, missing, repairs);
            if (got != null) {
                solved++;
                for (int b = 0; b < e; b++) {
                    assertEquals(data[missing[b]], got[b], "segment " + missing[b]);
                }
            }
        }
        assertTrue(solved > trials * 99 / 100, "nearly every set of as many repairs as losses is independent: "
                + solved + " of " + trials);
    }

    @Test
    void fewerIndependentEquationsThanLossesAreRefused() {
        ParitySolver s = new ParitySolver(16);
        assertFalse(s.solve(new int[] {0}, 1, new int[] {1, 4}, 2), "one parity, two unknowns");
        // repair 0 weighs every segment 1: the same parity twice says nothing new
        assertFalse(s.solve(new int[] {0, 0}, 2, new int[] {1, 4}, 2));
        assertTrue(s.solve(new int[] {0, 1}, 2, new int[] {1, 4}, 2));
    }
}
