package io.metaroce.sim.event;

/**
 * The calendar wheel's buckets: one FIFO list of {@code long} entries per bucket, kept in chunks of
 * {@value #CHUNK} entries taken from one shared array. An append writes the next word of its bucket's last
 * chunk, and taking a bucket reads its chunks in order, so both read one chunk header per {@value #CHUNK}
 * entries instead of one list node per entry (a linked list of event nodes made an append write a random node
 * and a take follow a chain of dependent reads, one per event). Memory: the chunks the pending entries fill, plus
 * at most one partly filled chunk per bucket; used chunks are reused (most recently freed first) and the store
 * grows by doubling to the run's peak. Not thread-safe.
 */
final class BucketLists {
    /** Entries per chunk: 15 entries and the chunk's link word make 128 bytes, two cache lines. */
    static final int CHUNK = 15;
    private static final int STRIDE = CHUNK + 1;
    private static final int NIL = -1;

    /** Chunk {@code c} is {@code words[STRIDE c .. STRIDE c + CHUNK - 1]}; its last word links the next chunk. */
    private long[] words = new long[STRIDE * 64];
    private int chunksMade;
    private int freeChunk = NIL;
    private final int[] headChunk;
    private final int[] tailChunk;
    /** Entries in each bucket. */
    private final int[] counts;

    /** {@code buckets} empty lists. */
    BucketLists(int buckets) {
        headChunk = new int[buckets];
        tailChunk = new int[buckets];
        counts = new int[buckets];
        java.util.Arrays.fill(headChunk, NIL);
        java.util.Arrays.fill(tailChunk, NIL);
    }

    /** Entries in bucket {@code b}. */
    int count(int b) {
        return counts[b];
    }

    /** Appends {@code entry} to the end of bucket {@code b}'s list. */
    void append(int b, long entry) {
        int n = counts[b]++;
        int fill = n % CHUNK;
        int c;
        if (fill == 0) {
            c = newChunk();
            if (n == 0) {
                headChunk[b] = c;
            } else {
                words[STRIDE * tailChunk[b] + CHUNK] = c;
            }
            tailChunk[b] = c;
        } else {
            c = tailChunk[b];
        }
        words[STRIDE * c + fill] = entry;
    }

    /**
     * Copies bucket {@code b}'s entries in list order into {@code out} (which holds at least {@link #count}
     * entries), empties the bucket and frees its chunks; returns the count.
     */
    int take(int b, long[] out) {
        int n = counts[b];
        int c = headChunk[b];
        long[] w = words;
        for (int done = 0; done < n; done += CHUNK) {
            System.arraycopy(w, STRIDE * c, out, done, Math.min(CHUNK, n - done));
            int next = (int) w[STRIDE * c + CHUNK];
            w[STRIDE * c + CHUNK] = freeChunk;
            freeChunk = c;
            c = next;
        }
        counts[b] = 0;
        headChunk[b] = NIL;
        tailChunk[b] = NIL;
        return n;
    }

    /** Chunks ever made (the store's size, in chunks of {@value #CHUNK} entries). */
    int chunksMade() {
        return chunksMade;
    }

    private int newChunk() {
        int c = freeChunk;
        if (c != NIL) {
            freeChunk = (int) words[STRIDE * c + CHUNK];
        } else {
            if (STRIDE * (chunksMade + 1) > words.length) {
                words = java.util.Arrays.copyOf(words, 2 * words.length);
            }
            c = chunksMade++;
        }
        words[STRIDE * c + CHUNK] = NIL;
        return c;
    }
}
