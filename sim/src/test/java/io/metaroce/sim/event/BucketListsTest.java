package io.metaroce.sim.event;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BucketListsTest {
    /**
     * Buckets filled in an interleaved random order, to sizes around the chunk boundaries, give back exactly their
     * entries in append order; taken buckets are empty and can be filled again.
     */
    @Test
    void everyBucketGivesBackItsEntriesInAppendOrder() {
        int buckets = 8;
        int chunk = BucketLists.CHUNK;
        int[] sizes = {0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 2 * chunk + 1, 7 * chunk + 3};
        BucketLists lists = new BucketLists(buckets);
        SplittableRandom r = new SplittableRandom(5);
        for (int round = 0; round < 3; round++) {
            List<List<Long>> expected = new ArrayList<>();
            int[] left = new int[buckets];
            int total = 0;
            for (int b = 0; b < buckets; b++) {
                expected.add(new ArrayList<>());
                left[b] = sizes[(b + round) % sizes.length];
                total += left[b];
            }
            while (total > 0) {
                int b = r.nextInt(buckets);
                if (left[b] == 0) {
                    continue;
                }
                long e = r.nextLong();
                lists.append(b, e);
                expected.get(b).add(e);
                left[b]--;
                total--;
            }
            for (int b = 0; b < buckets; b++) {
                List<Long> want = expected.get(b);
                assertEquals(want.size(), lists.count(b), "count of bucket " + b);
                long[] out = new long[want.size()];
                assertEquals(want.size(), lists.take(b, out));
                assertArrayEquals(want.stream().mapToLong(Long::longValue).toArray(), out,
                        "bucket " + b + " round " + round);
                assertEquals(0, lists.count(b));
                assertEquals(0, lists.take(b, new long[0]));
            }
        }
    }

    /** Taken chunks are reused: a steady state of appends and takes does not grow the store. */
    @Test
    void takenChunksAreReused() {
        BucketLists lists = new BucketLists(4);
        long[] out = new long[100];
        for (int i = 0; i < 100; i++) {
            lists.append(i % 4, i);
        }
        int made = lists.chunksMade();
        for (int round = 0; round < 50; round++) {
            int b = round % 4;
            int n = lists.take(b, out);
            assertEquals(25, n);
            for (int i = 0; i < n; i++) {
                assertEquals(b, out[i] % 4, "entry of bucket " + b);
                assertTrue(i == 0 || out[i] > out[i - 1], "order");
            }
            for (int i = 0; i < 25; i++) {
                lists.append(b, 1000L * (round + 1) + 4 * i + b);
            }
        }
        assertEquals(made, lists.chunksMade(), "chunks made after 50 take/refill rounds");
    }
}
