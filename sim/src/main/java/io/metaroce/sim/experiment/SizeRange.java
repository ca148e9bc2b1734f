package io.metaroce.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * nccl-tests' size sweep ({@code -b 1M -e 1G -f 4}) as one sweep value of a size field: {@code FROM..TO xF}, e.g.
 * {@code workload.bytes: "1MiB..1GiB x4"} or {@code --sweep workload.bytes=1MiB..1GiBx4}, expands to FROM, FROM x F,
 * ... up to TO (F an integer &gt;= 2). Other values pass through.
 */
final class SizeRange {
    private static final Pattern RANGE = Pattern.compile("(.+?)\\s*\\.\\.\\s*(.+?)\\s*[x*]\\s*([0-9]+)");
    /** At most this many sizes from one range. */
    static final int MAX_SIZES = 64;

    private SizeRange() {
    }

    /** {@code values} of axis {@code key} with every size range expanded (in order). */
    static List<Object> expand(String key, List<Object> values) {
        List<Object> out = new ArrayList<>();
        for (Object v : values) {
            Matcher m = v instanceof String s ? RANGE.matcher(s.trim()) : null;
            if (m == null || !m.matches()) {
                out.add(v);
                continue;
            }
            String field = key.substring(key.lastIndexOf('.') + 1);
            if (!(field.endsWith("Bytes") || field.equals("bytes"))) {
                throw new SpecFields.SpecException(key, "a range FROM..TO xF takes sizes, not " + key);
            }
            long from = (long) SpecFields.quantity(field, m.group(1));
            long to = (long) SpecFields.quantity(field, m.group(2));
            long factor = Long.parseLong(m.group(3));
            if (from <= 0 || to < from || factor < 2) {
                throw new SpecFields.SpecException(key, "range '" + v + "' needs 0 < FROM <= TO and a factor >= 2");
            }
            int n = 0;
            for (long b = from; b <= to; b = Math.multiplyExact(b, factor)) {
                if (++n > MAX_SIZES) {
                    throw new SpecFields.SpecException(key, "range '" + v + "' has more than " + MAX_SIZES + " sizes");
                }
                out.add(label(b));
                if (b > Long.MAX_VALUE / factor) {
                    break;
                }
            }
        }
        return out;
    }

    /** {@code bytes} in the largest binary unit that divides it ("64MiB", "1GiB", "1536"). */
    static String label(long bytes) {
        String[] units = {"GiB", "MiB", "KiB"};
        for (int i = 0; i < units.length; i++) {
            long u = 1L << (30 - 10 * i);
            if (bytes % u == 0) {
                return bytes / u + units[i];
            }
        }
        return Long.toString(bytes);
    }
}
