package io.metaroce.core;

/**
 * Arithmetic in GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d) and generator 2, as RAID-6 uses it:
 * the field of the second tail parity (REL-20, PARITY_Q). Addition is XOR; {@link #times2(long)} doubles eight
 * bytes at once for the sender's Horner sum; multiplication and division by tables serve the receiver's rebuild,
 * which is rare. 2 has order 255, so 2^0 .. 2^254 are distinct and a group of up to 255 segments has a distinct
 * coefficient per segment.
 */
final class Gf256 {
    private static final int POLY = 0x11d;
    private static final int[] EXP = new int[510];
    private static final int[] LOG = new int[256];

    static {
        int x = 1;
        for (int i = 0; i < 255; i++) {
            EXP[i] = x;
            EXP[i + 255] = x;
            LOG[x] = i;
            x <<= 1;
            if ((x & 0x100) != 0) {
                x ^= POLY;
            }
        }
    }

    private Gf256() {
    }

    /** Each of the eight bytes of {@code x} times 2 in the field (the byte order does not matter). */
    static long times2(long x) {
        long high = x & 0x8080808080808080L;
        return ((x & 0x7f7f7f7f7f7f7f7fL) << 1) ^ ((high >>> 7) * 0x1d);
    }

    /** {@code a * b}. */
    static int mul(int a, int b) {
        if (a == 0 || b == 0) {
            return 0;
        }
        return EXP[LOG[a] + LOG[b]];
    }

    /** {@code a / b}, {@code b} not 0. */
    static int div(int a, int b) {
        if (b == 0) {
            throw new ArithmeticException("division by 0 in GF(256)");
        }
        if (a == 0) {
            return 0;
        }
        return EXP[LOG[a] + 255 - LOG[b]];
    }

    /**
     * REL-21: segment {@code i}'s coefficient in repair {@code j} of a group, {@code 2^(j*i)} (repair 0, the PARITY:
     * 1; repair 1, the PARITY_Q: 2^i).
     */
    static int coefficient(int j, int i) {
        return EXP[(int) ((long) j * i % 255)];
    }

    /** {@code acc[k] ^= c * src[k]} for {@code k < len}. */
    static void mulAdd(byte[] acc, byte[] src, int len, int c) {
        if (c == 0) {
            return;
        }
        int lc = LOG[c];
        for (int k = 0; k < len; k++) {
            int s = src[k] & 0xff;
            if (s != 0) {
                acc[k] ^= (byte) EXP[LOG[s] + lc];
            }
        }
    }
}
