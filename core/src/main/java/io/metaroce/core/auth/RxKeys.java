package io.metaroce.core.auth;

import io.metaroce.core.wire.BaseHeader;

import java.util.Arrays;

import javax.crypto.spec.SecretKeySpec;

/**
 * AUTH-19: the keys a receiver keeps for its peer's packets, and which one a packet is tried with. It holds the
 * previous, current and next generation of the peer's key; the packet's {@code KEY_PHASE} bit and its sequence
 * number on its path choose among them. A sender's numbers on a path keep counting across its key updates, so
 * on every path the numbers sealed under one generation lie above all numbers of the generations before it; the
 * receiver keeps two bounds per path that tell the generations apart:
 * <ul>
 *   <li>{@code currentLow[path]}: the lowest number accepted under the current key (-1 before one is);</li>
 *   <li>{@code retiredHigh[path]}: the highest number accepted on the path when the current key became current
 *       (-1: none); a packet at or below it with the current phase bit is two or more generations old.</li>
 * </ul>
 * No allocation except when the keys move on (once per key update).
 */
final class RxKeys {
    /** {@link #select}: no key is worth trying; the packet is under a retired key. */
    static final int RETIRED = -1;
    /** {@link #select}: no key can open it (a phase the receiver has no key for). */
    static final int NONE = 0;
    /** {@link #select}: try {@link #first()} only. */
    static final int ONE = 1;
    /** {@link #select}: try {@link #first()}, then {@link #second()}. */
    static final int TWO = 2;

    private final KeyRatchet ratchet;
    private SecretKeySpec previous;
    private SecretKeySpec current;
    private SecretKeySpec next;
    /** The phase bit ({@code 0} or {@code FLAG_KEY_PHASE}) of the current key. */
    private int phase;
    private final long[] currentLow;
    private final long[] retiredHigh;
    private SecretKeySpec first;
    private SecretKeySpec second;

    /** Keys at generation 0: {@code key0}, and the next one derived from update secret {@code s0} (or none). */
    RxKeys(byte[] key0, byte[] s0, int paths) {
        current = new SecretKeySpec(key0, "AES");
        ratchet = new KeyRatchet(s0);
        next = ratchet.canStep() ? ratchet.step() : null;
        currentLow = new long[paths];
        retiredHigh = new long[paths];
        Arrays.fill(currentLow, -1);
        Arrays.fill(retiredHigh, -1);
    }

    /**
     * Chooses the keys to try for a fresh packet (AUTH-7 passed) with phase bit {@code phaseBit} and number
     * {@code seq} on {@code path}, where {@code highest} is the highest number accepted on the path so far (-1:
     * none): {@link #RETIRED}, {@link #NONE}, {@link #ONE} or {@link #TWO}.
     */
    int select(int phaseBit, int path, long seq, long highest) {
        second = null;
        if (phaseBit == phase) {
            if (seq <= retiredHigh[path]) {
                return RETIRED;
            }
            first = current;
            return ONE;
        }
        long low = currentLow[path];
        if (low >= 0) {
            first = seq < low ? previous : next; // below the current key's numbers: earlier; above: later
        } else if (seq <= highest) {
            first = previous; // below a number accepted under an earlier key
        } else {
            first = previous; // no current-key packet on this path yet: a late one of the previous key, or the next
            second = next;
        }
        if (first == null) {
            first = second;
            second = null;
        }
        return first == null ? NONE : second == null ? ONE : TWO;
    }

    /** The key to try first after {@link #select}. */
    SecretKeySpec first() {
        return first;
    }

    /** The key to try second after {@link #select} returned {@link #TWO}. */
    SecretKeySpec second() {
        return second;
    }

    /**
     * Records that the packet numbered {@code seq} on {@code path} verified under {@code key}, before the replay
     * window (whose highest numbers are in {@code window}) accepts it. Returns true when {@code key} was the
     * next one: the keys moved on (previous = current, current = next, next derived).
     */
    boolean verified(SecretKeySpec key, int path, long seq, ReplayWindow window) {
        boolean rotated = false;
        if (key == next) {
            for (int p = 0; p < retiredHigh.length; p++) {
                retiredHigh[p] = window.highest(p); // everything accepted so far is of an earlier key
            }
            Arrays.fill(currentLow, -1);
            previous = current;
            current = next;
            next = ratchet.step();
            phase ^= BaseHeader.FLAG_KEY_PHASE;
            rotated = true;
        }
        if (key == current && (currentLow[path] < 0 || seq < currentLow[path])) {
            currentLow[path] = seq;
        }
        return rotated;
    }

    /** The generation of the current key (the number of key updates followed). */
    long generation() {
        return ratchet.generation() - (next == null ? 0 : 1);
    }
}
