package io.metaroce.net.testbed;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Rates and sizes as people (and {@code tc}) write them.
 *
 * <ul>
 *   <li>Rates are bits per second, decimal prefixes: {@code 1000000}, {@code 500mbit}, {@code 10gbit},
 *       {@code 2.5gbit}, {@code 100kbit}, {@code 1tbit}; also {@code 10g}/{@code 500m}/{@code 100k} and
 *       {@code 0}/{@code off}/{@code unlimited} (= 0). Byte-per-second spellings ({@code bps}, {@code mbps}...)
 *       are refused because {@code tc} reads them as bytes and people as bits.</li>
 *   <li>Sizes are bytes, binary prefixes as in {@code tc}: {@code 1500}, {@code 1500b}, {@code 64kb} = {@code 64k}
 *       = {@code 64kib} = 65536, {@code 1mb} = 1048576, {@code 1gb}.</li>
 * </ul>
 */
public final class Units {
    private Units() {
    }

    /** Parses a rate in bits per second (see the class comment); never negative. */
    public static long parseRate(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        if (s.equals("off") || s.equals("unlimited") || s.equals("none")) {
            return 0;
        }
        if (s.endsWith("bps") || s.endsWith("b/s")) {
            throw new IllegalArgumentException("ambiguous rate '" + text + "': write bits per second as "
                    + "e.g. 10gbit, 500mbit or 1000000");
        }
        int split = numberEnd(s);
        String unit = s.substring(split).strip();
        long mult = switch (unit) {
            case "", "bit" -> 1L;
            case "k", "kbit" -> 1_000L;
            case "m", "mbit" -> 1_000_000L;
            case "g", "gbit" -> 1_000_000_000L;
            case "t", "tbit" -> 1_000_000_000_000L;
            default -> throw new IllegalArgumentException("unknown rate unit '" + unit + "' in '" + text
                    + "' (use bit, kbit, mbit, gbit or tbit)");
        };
        return scale(text, s.substring(0, split), mult);
    }

    /** Parses a size in bytes (see the class comment); never negative. */
    public static long parseSize(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        int split = numberEnd(s);
        String unit = s.substring(split).strip();
        long mult = switch (unit) {
            case "", "b" -> 1L;
            case "k", "kb", "kib" -> 1L << 10;
            case "m", "mb", "mib" -> 1L << 20;
            case "g", "gb", "gib" -> 1L << 30;
            default -> throw new IllegalArgumentException("unknown size unit '" + unit + "' in '" + text
                    + "' (use b, kb, mb or gb; binary multiples as in tc)");
        };
        return scale(text, s.substring(0, split), mult);
    }

    /**
     * Parses a loss rate: a fraction ({@code 0.01}) or a percentage ({@code 1%}); must lie in [0, 1].
     */
    public static double parseFraction(String text) {
        String s = text.strip();
        double v;
        try {
            v = s.endsWith("%") ? Double.parseDouble(s.substring(0, s.length() - 1).strip()) / 100
                    : Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a fraction or percentage: '" + text + "'", e);
        }
        if (!(v >= 0 && v <= 1)) {
            throw new IllegalArgumentException("loss rate must lie in [0, 1] (or 0%..100%): '" + text + "'");
        }
        return v;
    }

    /** A rate for people: {@code 10 Gbit/s}, {@code 2.5 Gbit/s}, {@code 500 Mbit/s}, {@code unlimited} for 0. */
    public static String formatRate(long bitsPerSecond) {
        if (bitsPerSecond == 0) {
            return "unlimited";
        }
        String[] units = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
        return format(bitsPerSecond, 1000, units);
    }

    /** A size for people, exact: {@code 1 MiB}, {@code 64 KiB}, {@code 1500 B}, {@code 1536 KiB}. */
    public static String formatSize(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int i = 0;
        long v = bytes;
        while (i < units.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            i++;
        }
        return v + " " + units[i];
    }

    private static String format(long v, long base, String[] units) {
        int i = 0;
        double d = v;
        while (i < units.length - 1 && d >= base) {
            d /= base;
            i++;
        }
        String num = BigDecimal.valueOf(Math.round(d * 1000) / 1000.0).stripTrailingZeros().toPlainString();
        return num + " " + units[i];
    }

    private static int numberEnd(String s) {
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.' || s.charAt(i) == '_')) {
            i++;
        }
        return i;
    }

    private static long scale(String original, String number, long mult) {
        if (number.isEmpty()) {
            throw new IllegalArgumentException("no number in '" + original + "'");
        }
        try {
            BigDecimal v = new BigDecimal(number.replace("_", "")).multiply(BigDecimal.valueOf(mult));
            return v.setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("bad number in '" + original + "'", e);
        }
    }
}
