package io.metaroce.core;

/**
 * REL-21: which combination of a group's parities gives each missing segment. Parity {@code k} (repair
 * {@code j_k}) minus the group's segments at hand is {@code sum_b 2^(j_k * t_b) D[t_b]} over the missing segments
 * {@code t_b}: {@code g} equations in {@code e} unknowns over GF(2^8). Gauss-Jordan elimination on the coefficients
 * augmented with the identity picks {@code e} independent equations (when there are) and yields, for each unknown,
 * its weights on the original parities. Consecutive repairs from 0 always have independent coefficients (a
 * Vandermonde matrix); others nearly always. Arrays are sized once; nothing is allocated per solve.
 */
final class ParitySolver {
    private final int[][] a;
    private final int[] pivot;
    private final boolean[] chosen;
    private int unknowns;

    /** A solver for up to {@code capacity} parities and unknowns. */
    ParitySolver(int capacity) {
        a = new int[capacity][2 * capacity];
        pivot = new int[capacity];
        chosen = new boolean[capacity];
    }

    /**
     * Solves for the {@code e} segments at places {@code missing[0, e)} of the group from the {@code g} parities of
     * repairs {@code repairs[0, g)}; false when their equations do not determine every missing segment.
     */
    boolean solve(int[] repairs, int g, int[] missing, int e) {
        int cols = e + g;
        for (int r = 0; r < g; r++) {
            int[] row = a[r];
            for (int b = 0; b < e; b++) {
                row[b] = Gf256.coefficient(repairs[r], missing[b]);
            }
            for (int k = 0; k < g; k++) {
                row[e + k] = r == k ? 1 : 0;
            }
            chosen[r] = false;
        }
        for (int b = 0; b < e; b++) {
            int p = -1;
            for (int r = 0; r < g && p < 0; r++) {
                if (!chosen[r] && a[r][b] != 0) {
                    p = r;
                }
            }
            if (p < 0) {
                return false;
            }
            chosen[p] = true;
            pivot[b] = p;
            int[] pr = a[p];
            int inv = Gf256.div(1, pr[b]);
            for (int k = 0; k < cols; k++) {
                pr[k] = Gf256.mul(pr[k], inv);
            }
            for (int r = 0; r < g; r++) {
                int f = a[r][b];
                if (r != p && f != 0) {
                    int[] row = a[r];
                    for (int k = 0; k < cols; k++) {
                        row[k] ^= Gf256.mul(f, pr[k]);
                    }
                }
            }
        }
        unknowns = e;
        return true;
    }

    /** After a solve: the weight of parity {@code k}'s residual in missing segment {@code b}. */
    int weight(int b, int k) {
        return a[pivot[b]][unknowns + k];
    }

    /** After a solve: whether parity {@code k} is one of the equations chosen (the others were not needed). */
    boolean used(int k) {
        return chosen[k];
    }
}
