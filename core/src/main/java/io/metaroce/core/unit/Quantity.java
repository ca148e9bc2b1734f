package io.metaroce.core.unit;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one grammar for quantities people type, in every command's options and every experiment file: a
 * non-negative number ({@code 64}, {@code 2.5}, {@code 1_000}, {@code 1e3}), optional blanks, then a unit.
 *
 * <ul>
 *   <li><b>Sizes</b> (bytes): {@code B}; decimal {@code KB MB GB TB} (10^3, 10^6, 10^9, 10^12); binary
 *       {@code KiB MiB GiB TiB} (2^10 ...). Case does not matter ({@code 64mb} is {@code 64MB} = 64,000,000).
 *       A bare prefix ({@code 64k}) is refused: it would be 10^3 to some readers and 2^10 to others.
 *       The result must be a whole number of bytes.</li>
 *   <li><b>Rates</b> (bits per second, decimal prefixes): {@code bps}, {@code bit}, {@code bit/s}, {@code b/s}
 *       with {@code k M G T} in front, or the prefix alone: {@code 100Gbps} = {@code 100gbit} = {@code 100G}
 *       = 10^11. Bytes per second ({@code GBps}, {@code GB/s}, capital B) are refused: write bits.</li>
 *   <li><b>Times</b>: {@code ps ns us µs ms s}: {@code 5us}, {@code 2ms}, {@code 1.5s}.</li>
 *   <li><b>Fractions</b>: {@code 0.01} or {@code 1%}, in [0, 1].</li>
 * </ul>
 * A bare number takes the unit the caller names (bytes for sizes, bits/s for rates, the field's unit for
 * times). Every error is an {@link IllegalArgumentException} whose message quotes the text and says what is
 * accepted, fit to show a user as one line.
 */
public final class Quantity {
    /** Picoseconds per nanosecond, microsecond, millisecond and second. */
    public static final long PS_PER_NS = 1_000L;
    /** Picoseconds per microsecond. */
    public static final long PS_PER_US = 1_000_000L;
    /** Picoseconds per millisecond. */
    public static final long PS_PER_MS = 1_000_000_000L;
    /** Picoseconds per second. */
    public static final long PS_PER_S = 1_000_000_000_000L;

    private static final Pattern SHAPE = Pattern.compile("([0-9][0-9_]*(?:\\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?)\\s*(.*)");
    private static final String SIZE_UNITS = "B, KB, MB, GB, TB (10^3 steps) or KiB, MiB, GiB, TiB (2^10 steps)";
    private static final String RATE_UNITS = "bps, Kbps, Mbps, Gbps, Tbps (or bit, gbit, G ...: bits per second)";
    private static final String TIME_UNITS = "ps, ns, us, ms, s";

    private Quantity() {
    }

    /**
     * A size in bytes.
     *
     * @param text e.g. {@code 4KiB}, {@code 64MB}, {@code 1500}, {@code 1.5 MiB}
     * @return bytes, at least 0
     * @throws IllegalArgumentException if {@code text} is not a size (see the class comment)
     */
    public static long bytes(String text) {
        Parts p = split(text, "size", SIZE_UNITS);
        String u = p.unit.toLowerCase(Locale.ROOT);
        BigDecimal mult = switch (u) {
            case "", "b" -> BigDecimal.ONE;
            case "kb" -> BigDecimal.TEN.pow(3);
            case "mb" -> BigDecimal.TEN.pow(6);
            case "gb" -> BigDecimal.TEN.pow(9);
            case "tb" -> BigDecimal.TEN.pow(12);
            case "kib" -> BigDecimal.valueOf(1L << 10);
            case "mib" -> BigDecimal.valueOf(1L << 20);
            case "gib" -> BigDecimal.valueOf(1L << 30);
            case "tib" -> BigDecimal.valueOf(1L << 40);
            case "k", "m", "g", "t" -> throw new IllegalArgumentException("ambiguous size '" + text + "': write "
                    + p.number + u.toUpperCase(Locale.ROOT) + "B (10^3 steps) or " + p.number
                    + u.toUpperCase(Locale.ROOT) + "iB (2^10 steps)");
            default -> throw unknown(text, "size", SIZE_UNITS);
        };
        BigDecimal v = p.value.multiply(mult);
        if (v.stripTrailingZeros().scale() > 0) {
            throw new IllegalArgumentException("size '" + text + "' is not a whole number of bytes");
        }
        return exact(text, v);
    }

    /**
     * A rate in bits per second.
     *
     * @param text e.g. {@code 100Gbps}, {@code 10gbit}, {@code 400G}, {@code 25 Mbit/s}, {@code 1000000}
     * @return bits per second, at least 0 (rounded to the nearest bit/s)
     * @throws IllegalArgumentException if {@code text} is not a rate (see the class comment)
     */
    public static long bitsPerSecond(String text) {
        Parts p = split(text, "rate", RATE_UNITS);
        if (p.unit.endsWith("Bps") || p.unit.endsWith("B/s")) {
            throw new IllegalArgumentException("rate '" + text + "' is in bytes per second: write bits per second, "
                    + "e.g. 100Gbps or 10gbit");
        }
        String u = p.unit.toLowerCase(Locale.ROOT);
        for (String suffix : new String[] {"bit/s", "b/s", "bps", "bit"}) {
            if (u.endsWith(suffix)) {
                u = u.substring(0, u.length() - suffix.length());
                break;
            }
        }
        long mult = switch (u) {
            case "" -> 1L;
            case "k" -> 1_000L;
            case "m" -> 1_000_000L;
            case "g" -> 1_000_000_000L;
            case "t" -> 1_000_000_000_000L;
            default -> throw unknown(text, "rate", RATE_UNITS);
        };
        return exact(text, p.value.multiply(BigDecimal.valueOf(mult)).setScale(0, RoundingMode.HALF_UP));
    }

    /**
     * A time in picoseconds.
     *
     * @param text       e.g. {@code 5us}, {@code 2ms}, {@code 1.5s}, {@code 500ps}, or a bare number
     * @param bareUnitPs picoseconds per unit of a bare number (e.g. {@link #PS_PER_S} for seconds)
     * @return picoseconds, at least 0 (rounded to the nearest picosecond)
     * @throws IllegalArgumentException if {@code text} is not a time (see the class comment)
     */
    public static long picoseconds(String text, long bareUnitPs) {
        Parts p = split(text, "time", TIME_UNITS);
        long mult = switch (p.unit) {
            case "" -> bareUnitPs;
            case "ps" -> 1L;
            case "ns" -> PS_PER_NS;
            case "us", "µs", "μs" -> PS_PER_US;
            case "ms" -> PS_PER_MS;
            case "s" -> PS_PER_S;
            default -> throw unknown(text, "time", TIME_UNITS);
        };
        return exact(text, p.value.multiply(BigDecimal.valueOf(mult)).setScale(0, RoundingMode.HALF_UP));
    }

    /**
     * A time in nanoseconds (rounded to the nearest nanosecond).
     *
     * @param text       as for {@link #picoseconds}
     * @param bareUnitNs nanoseconds per unit of a bare number
     * @return nanoseconds, at least 0
     * @throws IllegalArgumentException if {@code text} is not a time
     */
    public static long nanoseconds(String text, long bareUnitNs) {
        long ps = picoseconds(text, Math.multiplyExact(bareUnitNs, PS_PER_NS));
        return (ps + PS_PER_NS / 2) / PS_PER_NS;
    }

    /**
     * A time in seconds.
     *
     * @param text as for {@link #picoseconds}; a bare number is seconds
     * @return seconds, at least 0
     * @throws IllegalArgumentException if {@code text} is not a time
     */
    public static double seconds(String text) {
        return picoseconds(text, PS_PER_S) / (double) PS_PER_S;
    }

    /**
     * A fraction: {@code 0.01} or {@code 1%}.
     *
     * @param text the fraction or percentage
     * @return a value in [0, 1]
     * @throws IllegalArgumentException if {@code text} is not a number in [0, 1] or a percentage in [0%, 100%]
     */
    public static double fraction(String text) {
        String s = text == null ? "" : text.strip();
        boolean percent = s.endsWith("%");
        double v;
        try {
            v = Double.parseDouble(percent ? s.substring(0, s.length() - 1).strip() : s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a fraction (0.01) or a percentage (1%)", e);
        }
        v = percent ? v / 100 : v;
        if (!(v >= 0 && v <= 1)) {
            throw new IllegalArgumentException("'" + text + "' must lie in [0, 1] (or 0%..100%)");
        }
        return v;
    }

    /**
     * A size for people, exact, in binary steps: {@code 1 MiB}, {@code 64 KiB}, {@code 1500 B}.
     *
     * @param bytes a size in bytes
     * @return the size with the largest binary unit that divides it
     */
    public static String formatBytes(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int i = 0;
        long v = bytes;
        while (i < units.length - 1 && v != 0 && v % 1024 == 0) {
            v /= 1024;
            i++;
        }
        return v + " " + units[i];
    }

    /**
     * A rate for people: {@code 10 Gbit/s}, {@code 2.5 Gbit/s}, {@code 500 Mbit/s} (at most three decimals).
     *
     * @param bitsPerSecond a rate
     * @return the rate with the largest decimal unit not above it
     */
    public static String formatBitsPerSecond(long bitsPerSecond) {
        String[] units = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
        int i = 0;
        double d = bitsPerSecond;
        while (i < units.length - 1 && d >= 1000) {
            d /= 1000;
            i++;
        }
        return BigDecimal.valueOf(Math.round(d * 1000) / 1000.0).stripTrailingZeros().toPlainString() + " " + units[i];
    }

    private record Parts(BigDecimal value, String number, String unit) {
    }

    private static Parts split(String text, String what, String units) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty " + what + ": write a number and a unit (" + units + ")");
        }
        String s = text.strip();
        if (s.startsWith("-")) {
            throw new IllegalArgumentException(what + " '" + text + "' must not be negative");
        }
        Matcher m = SHAPE.matcher(s);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a " + what + ": write a number and a unit ("
                    + units + ")");
        }
        String number = m.group(1);
        BigDecimal v;
        try {
            v = new BigDecimal(number.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad number in " + what + " '" + text + "'", e);
        }
        if (v.signum() == 0) {
            v = BigDecimal.ZERO; // 0e999999999 would otherwise scale a zero by a billion digits
        } else {
            // the leading digit's power of ten; outside +-MAX_EXPONENT no unit brings it into a long (or above 0)
            int exponent = v.precision() - v.scale() - 1;
            if (exponent > MAX_EXPONENT || exponent < -MAX_EXPONENT) {
                throw new IllegalArgumentException(what + " '" + text + "' is out of range");
            }
        }
        return new Parts(v, number, m.group(2).strip());
    }

    /** Largest power of ten a number may have before its unit: beyond it, scaling alone would be costly. */
    private static final int MAX_EXPONENT = 40;

    private static IllegalArgumentException unknown(String text, String what, String units) {
        return new IllegalArgumentException("unknown unit in " + what + " '" + text + "' (use " + units + ")");
    }

    private static long exact(String text, BigDecimal v) {
        try {
            return v.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is too large", e);
        }
    }
}
