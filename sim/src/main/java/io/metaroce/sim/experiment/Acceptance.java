package io.metaroce.sim.experiment;

import java.util.Map;
import java.util.Objects;

/** Acceptance criteria like {@code ">= 0.86"}, {@code "< 10"}, {@code "== 0"}, {@code "true"}, and point matching. */
public final class Acceptance {
    private Acceptance() {
    }

    /** A parsed criterion. */
    public record Check(String op, double value) {
        /** Whether {@code actual} meets it; a missing or NaN value never does. */
        public boolean test(Object actual) {
            double a;
            if (actual instanceof Number n) {
                a = n.doubleValue();
            } else if (actual instanceof Boolean b) {
                a = b ? 1 : 0;
            } else {
                return false;
            }
            if (Double.isNaN(a)) {
                return false;
            }
            return switch (op) {
                case ">=" -> a >= value;
                case ">" -> a > value;
                case "<=" -> a <= value;
                case "<" -> a < value;
                case "==" -> a == value;
                case "!=" -> a != value;
                default -> throw new IllegalStateException(op);
            };
        }
    }

    /** Parses {@code require}; {@code key} names it in errors. */
    public static Check parse(String key, String require) {
        String s = require.trim();
        if (s.equals("true")) {
            return new Check("==", 1);
        }
        if (s.equals("false")) {
            return new Check("==", 0);
        }
        for (String op : new String[] {">=", "<=", "==", "!=", ">", "<"}) {
            if (s.startsWith(op)) {
                try {
                    return new Check(op, Double.parseDouble(s.substring(op.length()).trim()));
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw new SpecFields.SpecException(key, "expected a criterion like '>= 0.86', '< 10', 'true', got '"
                + require + "'");
    }

    /** Whether {@code point}'s axis values (and spec values) match every entry of {@code when}. */
    public static boolean matches(Map<String, Object> when, Map<String, Object> values) {
        for (Map.Entry<String, Object> e : when.entrySet()) {
            if (!same(e.getValue(), values.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** Equality that treats numbers by value (0 == 0.0) and everything else by string. */
    public static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return x.doubleValue() == y.doubleValue();
        }
        return Objects.equals(String.valueOf(a), String.valueOf(b));
    }
}
