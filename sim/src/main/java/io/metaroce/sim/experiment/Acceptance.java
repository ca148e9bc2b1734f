package io.metaroce.sim.experiment;

import java.util.Map;
import java.util.Objects;

/** Acceptance criteria like {@code ">= 0.86"}, {@code "< 10"}, {@code "== 0"}, {@code "true"}, and point matching. */
public final class Acceptance {
    private Acceptance() {
    }

    /**
     * A parsed criterion: {@code actual op value}, or {@code actual op value * metrics[ref]} when {@code ref} is
     * set (e.g. {@code ">= 0.9 * goodput_before_gbps"}).
     */
    public record Check(String op, double value, String ref) {
        /** Whether {@code actual} meets it, with {@code metrics} for a referenced metric; missing or NaN never does. */
        public boolean test(Object actual, Map<String, Object> metrics) {
            double bound = value;
            if (ref != null) {
                if (!(metrics.get(ref) instanceof Number n) || Double.isNaN(n.doubleValue())) {
                    return false;
                }
                bound = value * n.doubleValue();
            }
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
                case ">=" -> a >= bound;
                case ">" -> a > bound;
                case "<=" -> a <= bound;
                case "<" -> a < bound;
                case "==" -> a == bound;
                case "!=" -> a != bound;
                default -> throw new IllegalStateException(op);
            };
        }
    }

    /** Parses {@code require}; {@code key} names it in errors. */
    public static Check parse(String key, String require) {
        String s = require.trim();
        if (s.equals("true")) {
            return new Check("==", 1, null);
        }
        if (s.equals("false")) {
            return new Check("==", 0, null);
        }
        for (String op : new String[] {">=", "<=", "==", "!=", ">", "<"}) {
            if (s.startsWith(op)) {
                String rest = s.substring(op.length()).trim();
                String ref = null;
                int star = rest.indexOf('*');
                if (star > 0) {
                    ref = rest.substring(star + 1).trim();
                    rest = rest.substring(0, star).trim();
                    if (!ref.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                        break;
                    }
                }
                try {
                    return new Check(op, Double.parseDouble(rest), ref);
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        throw new SpecFields.SpecException(key, "expected a criterion like '>= 0.86', '< 10', 'true' or "
                + "'>= 0.9 * other_metric', got '" + require + "'");
    }

    /** Equality that treats numbers by value (0 == 0.0) and everything else by string. */
    public static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return x.doubleValue() == y.doubleValue();
        }
        return Objects.equals(String.valueOf(a), String.valueOf(b));
    }
}
