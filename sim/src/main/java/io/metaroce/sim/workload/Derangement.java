package io.metaroce.sim.workload;

import java.util.SplittableRandom;

/**
 * Random derangements drawn by reshuffling: the permutation traffic of the simulator benchmark (every host sends
 * to another, htsim's permutation) and of the tests that compare with it. {@link Workload}'s {@code permutation}
 * workload draws its own (shuffle, then swap fixed points), so its records do not depend on this one.
 */
public final class Derangement {
    private Derangement() {
    }

    /**
     * A uniformly random permutation of {@code 0..n-1} with no fixed point (every host sends to another): Fisher-Yates
     * shuffles with {@code r} until one has none.
     *
     * @param n the number of hosts, at least 2
     * @param r the random stream the shuffles draw from
     * @return {@code p} with {@code p[i] != i} for every i: host i sends to host {@code p[i]}
     */
    public static int[] byReshuffling(int n, SplittableRandom r) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        boolean ok;
        do {
            for (int i = n - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = p[i];
                p[i] = p[j];
                p[j] = t;
            }
            ok = true;
            for (int i = 0; i < n; i++) {
                if (p[i] == i) {
                    ok = false;
                    break;
                }
            }
        } while (!ok);
        return p;
    }
}
