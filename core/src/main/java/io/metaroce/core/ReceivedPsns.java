package io.metaroce.core;

/**
 * The receiving direction of a {@link Path} (SACK-1..SACK-6): which PSNs arrived, as the cumulative PSN the path keeps
 * ({@code rxCum}, every PSN up to it arrived) and the 256-bit bitmap of the PSNs above it, kept in the path's
 * {@link ReceiveWindow} (made on the first packet received: a path that only sends has none).
 */
final class ReceivedPsns {
    private ReceivedPsns() {
    }

    /** SACK-6: the sender's floor closes holes it has given up on. */
    static void applyFloor(Path p, int psnFloor) {
        int target = psnFloor - 1;
        int d = target - p.rxCum;
        if (d <= 0) {
            return;
        }
        if (d >= Path.WINDOW) {
            p.clearRxBits();
            p.rxCum = target;
        } else {
            while (p.rxCum != target) {
                p.rxCum++;
                clear(p, p.rxCum);
            }
        }
        advance(p);
    }

    /** Classifies a received PSN: 0 new, 1 duplicate, 2 beyond the bitmap window. */
    static int classify(Path p, int psn) {
        int d = psn - p.rxCum;
        if (d <= 0) {
            return 1;
        }
        if (d > Path.WINDOW) {
            return 2;
        }
        return bit(p, psn) ? 1 : 0;
    }

    /** Marks an accepted PSN; returns true if it arrived out of order (a gap below it). */
    static boolean accept(Path p, int psn) {
        boolean gap = psn != p.rxCum + 1;
        p.rx().set(psn & Path.MASK);
        advance(p);
        return gap;
    }

    /** SACK word {@code w} relative to cum+1 (bit b => PSN cum+1+64w+b). */
    static long sackWord(Path p, int w) {
        ReceiveWindow rx = p.rxIfMade();
        if (rx == null) {
            return 0;
        }
        int pos = (p.rxCum + 1 + 64 * w) & Path.MASK;
        int word = pos >>> 6;
        int sh = pos & 63;
        if (sh == 0) {
            return rx.word(word);
        }
        return rx.word(word) >>> sh | rx.word(word + 1) << (64 - sh);
    }

    private static void advance(Path p) {
        while (bit(p, p.rxCum + 1)) {
            p.rxCum++;
            clear(p, p.rxCum);
        }
    }

    private static boolean bit(Path p, int psn) {
        ReceiveWindow rx = p.rxIfMade();
        return rx != null && rx.bit(psn & Path.MASK);
    }

    private static void clear(Path p, int psn) {
        ReceiveWindow rx = p.rxIfMade();
        if (rx != null) {
            rx.clear(psn & Path.MASK);
        }
    }
}
