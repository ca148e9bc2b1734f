package io.metaroce.conformance;

import io.metaroce.conformance.script.Arg;
import io.metaroce.conformance.script.Step;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The byte patterns ({@code pat=}, {@code fill=}) and SACK bit lists ({@code sack=}) that steps describe. */
final class Payloads {
    private Payloads() {
    }

    /** Pattern byte {@code i} of pattern {@code n}: distinct per pattern and position, never constant. */
    static byte pattern(long n, long i) {
        return (byte) (i * 7 + (i >>> 8) * 3 + n * 101 + 1);
    }

    /**
     * The bytes a {@code pat=}/{@code fill=} argument of {@code st} describes, for message offsets
     * [from, from + len); without either, pattern {@code msn + 1}.
     */
    static byte[] content(CaseState ctx, Step st, long from, int len) {
        byte[] b = new byte[Math.max(0, len)];
        Arg fill = st.arg("fill");
        if (fill != null) {
            Arrays.fill(b, (byte) ctx.eval(fill.value(), "fill"));
        } else {
            long n = ctx.num(st, "pat", ctx.num(st, "msn", 0) + 1);
            for (int i = 0; i < b.length; i++) {
                b[i] = pattern(n, from + i);
            }
        }
        return b;
    }

    /**
     * The payload of a PARITY (REL-18) over segments {@code [off / mtu, off / mtu + count)} of a message of
     * {@code msgLen} bytes whose content {@code st}'s {@code pat=}/{@code fill=} describes: their XOR, each segment
     * padded with zeros, cut or zero-padded to {@code plen} bytes.
     */
    static byte[] parity(CaseState ctx, Step st, long msgLen, long off, long count, int plen) {
        byte[] x = new byte[Math.max(0, plen)];
        for (long k = 0; k < count; k++) {
            long at = off + k * ctx.mtu;
            int n = (int) Math.max(0, Math.min(Math.min(ctx.mtu, msgLen - at), x.length));
            byte[] segment = content(ctx, st, at, n);
            for (int i = 0; i < n; i++) {
                x[i] ^= segment[i];
            }
        }
        return x;
    }

    /**
     * REL-20: a PARITY_Q's payload, computed here from the definition and independently of the engine: the sum in
     * GF(2^8) (polynomial 0x11d) of the group's segments, segment k of the group multiplied by 2^k, each padded with
     * zeros to {@code plen} bytes.
     */
    static byte[] parityQ(CaseState ctx, Step st, long msgLen, long off, long count, int plen) {
        byte[] x = new byte[Math.max(0, plen)];
        int weight = 1;
        for (long k = 0; k < count; k++) {
            long at = off + k * ctx.mtu;
            int n = (int) Math.max(0, Math.min(Math.min(ctx.mtu, msgLen - at), x.length));
            byte[] segment = content(ctx, st, at, n);
            for (int i = 0; i < n; i++) {
                x[i] ^= (byte) gfMul(weight, segment[i] & 0xff);
            }
            weight = gfMul(weight, 2);
        }
        return x;
    }

    /**
     * REL-21: repair {@code j} of a group, computed here from the definition and independently of the engine: the sum
     * in GF(2^8) (polynomial 0x11d) of the group's segments, segment k of the group multiplied by 2^(j*k) (2 multiplied
     * in j*k times, bit by bit), each padded with zeros to {@code plen} bytes. Repair 0 is the PARITY's XOR
     * ({@link #parity}), repair 1 the PARITY_Q's Q syndrome ({@link #parityQ}), 2 and up a PARITY_R's payload.
     */
    static byte[] parityR(int j, CaseState ctx, Step st, long msgLen, long off, long count, int plen) {
        byte[] x = new byte[Math.max(0, plen)];
        for (long k = 0; k < count; k++) {
            int weight = 1;
            for (long t = 0; t < (long) j * k; t++) {
                weight = gfMul(weight, 2);
            }
            long at = off + k * ctx.mtu;
            int n = (int) Math.max(0, Math.min(Math.min(ctx.mtu, msgLen - at), x.length));
            byte[] segment = content(ctx, st, at, n);
            for (int i = 0; i < n; i++) {
                x[i] ^= (byte) gfMul(weight, segment[i] & 0xff);
            }
        }
        return x;
    }

    /** The product in GF(2^8) with the polynomial 0x11d: carry-less multiplication, then reduction, bit by bit. */
    static int gfMul(int a, int b) {
        int r = 0;
        for (int i = 0; i < 8; i++) {
            if ((b & 1 << i) != 0) {
                r ^= a << i;
            }
        }
        for (int bit = 14; bit >= 8; bit--) {
            if ((r & 1 << bit) != 0) {
                r ^= 0x11d << (bit - 8);
            }
        }
        return r;
    }

    /** The SACK bits of a {@code sack=} value ({@code none}, or {@code A,B..C,...}), in the order written. */
    static List<Integer> sackBits(CaseState ctx, String value) {
        List<Integer> bits = new ArrayList<>();
        if (value.equals("none")) {
            return bits;
        }
        for (String part : value.split(",")) {
            String[] r = part.split("\\.\\.");
            long lo = ctx.eval(r[0], "sack");
            long hi = r.length > 1 ? ctx.eval(r[1], "sack") : lo;
            for (long bit = lo; bit <= hi; bit++) {
                if (bit < 0 || bit > 255) {
                    throw ctx.err("SACK bit " + bit + " outside 0..255");
                }
                bits.add((int) bit);
            }
        }
        return bits;
    }
}
