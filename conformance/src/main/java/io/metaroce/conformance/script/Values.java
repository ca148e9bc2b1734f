package io.metaroce.conformance.script;

import io.metaroce.core.unit.Quantity;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;

import java.util.Map;
import java.util.function.Function;

/**
 * Values of script fields: integers (decimal, {@code 0x} hex, with a time unit {@code ns us ms s} giving
 * nanoseconds), symbols (opcodes, flags, NAK codes, CM reasons), region names and {@code $variables}, combined
 * with {@code * + - | ^} ({@code *} binds tighter; the others left to right). Ranges ({@code lo..hi}) and lists ({@code a,b,c}) are split by the runner.
 */
public final class Values {
    private static final Map<String, Long> SYMBOLS = Map.ofEntries(
            Map.entry("FIRST", (long) BaseHeader.FLAG_FIRST), Map.entry("LAST", (long) BaseHeader.FLAG_LAST),
            Map.entry("RETRANSMIT", (long) BaseHeader.FLAG_RETRANSMIT),
            Map.entry("ACK_REQ", (long) BaseHeader.FLAG_ACK_REQ),
            Map.entry("AUTH", (long) BaseHeader.FLAG_AUTH), Map.entry("ENCRYPTED", (long) BaseHeader.FLAG_ENCRYPTED),
            Map.entry("KEY_PHASE", (long) BaseHeader.FLAG_KEY_PHASE),
            Map.entry("ACK_HOLD", (long) BaseHeader.FLAG_ACK_HOLD),
            Map.entry("RNR", (long) NakHeader.CODE_RNR), Map.entry("BAD_RKEY", (long) NakHeader.CODE_BAD_RKEY),
            Map.entry("OUT_OF_BOUNDS", (long) NakHeader.CODE_OUT_OF_BOUNDS),
            Map.entry("NO_PERMISSION", (long) NakHeader.CODE_NO_PERMISSION),
            Map.entry("INVALID_REQUEST", (long) NakHeader.CODE_INVALID_REQUEST),
            Map.entry("BUSY", (long) NakHeader.CODE_BUSY),
            Map.entry("MISSING", (long) NakHeader.CODE_MISSING),
            Map.entry("TRIMMED", (long) NakHeader.CODE_TRIMMED),
            Map.entry("NO_RESOURCES", 1L), Map.entry("INVALID_PARAMS", 2L), Map.entry("UNSUPPORTED", 3L),
            Map.entry("CONSUMER", 4L), Map.entry("STALE", 5L), Map.entry("CAP_AUTH", 1L), Map.entry("CAP_ENCRYPT", 2L), Map.entry("CAP_MISSING_NAK", 4L), Map.entry("CE", 3L),
            Map.entry("ECT0", 2L), Map.entry("ECT1", 1L), Map.entry("NOT_ECT", 0L));

    private Values() {
    }

    /** The opcode named by {@code w} (a name like {@code WRITE} or a number like {@code 0x7f}). */
    public static int opcode(String file, int ln, String w) {
        for (int op = 0; op < 256; op++) {
            if (Opcode.extensionLength(op) >= 0 && Opcode.name(op).equals(w)) {
                return op;
            }
        }
        if (w.matches("0x[0-9a-fA-F]+|[0-9]+")) {
            long v = parseNumber(file, ln, w);
            if (v >= 0 && v < 256) {
                return (int) v;
            }
        }
        throw new ScriptException(file, ln, "unknown opcode '" + w + "'");
    }

    /** Parses one literal: an integer, hex, or a time with unit (ns). */
    public static long parseNumber(String file, int ln, String s) {
        Long v = literal(s);
        if (v == null) {
            throw new ScriptException(file, ln, "not a number or time: '" + s + "'");
        }
        return v;
    }

    private static Long literal(String s) {
        try {
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return Long.parseUnsignedLong(s.substring(2), 16);
            }
            if (!s.isEmpty() && s.chars().allMatch(Character::isDigit)) {
                return Long.parseLong(s);
            }
            return Quantity.nanoseconds(s, 1); // a time in the one unit grammar: 10us, 2ms, 1.5s; bare = ns
        } catch (IllegalArgumentException e) { // NumberFormatException included
            return null;
        }
    }

    /** Checks that every part of a value (list items, range ends) is a well-formed expression. */
    public static void checkSyntax(String file, int ln, String value) {
        for (String part : value.split(",")) {
            if (part.equals("none") || part.equals("*")) {
                continue;
            }
            String[] r = part.split("\\.\\.", -1);
            if (r.length > 2) {
                throw new ScriptException(file, ln, "bad range '" + part + "'");
            }
            for (String e : r) {
                eval(file, ln, e, id -> 0L);
            }
        }
    }

    /** Evaluates a {@code {expr}} of a family template over its integer parameters. */
    static String evalParam(String file, int ln, String expr, Map<String, String> vars) {
        return Long.toString(eval(file, ln, expr, id -> {
            String v = vars.get(id);
            if (v == null) {
                return null;
            }
            Long n = literal(v);
            return n != null ? n : v.startsWith("-") ? -literal(v.substring(1)) : null;
        }));
    }

    /**
     * Evaluates an expression; {@code resolver} maps identifiers (region names, {@code $vars}) to values and
     * returns null for unknown ones. Symbols (opcodes, flags, codes) are resolved first.
     */
    public static long eval(String file, int ln, String expr, Function<String, Long> resolver) {
        if (expr.isEmpty()) {
            throw new ScriptException(file, ln, "empty expression");
        }
        long acc = 0;
        char op = '+';
        int i = 0;
        boolean first = true;
        while (i < expr.length()) {
            boolean neg = false;
            if (first && expr.charAt(i) == '-') {
                neg = true;
                i++;
            }
            int j = i;
            while (j < expr.length() && "+-|^".indexOf(expr.charAt(j)) < 0) {
                j++;
            }
            String atom = expr.substring(i, j);
            long v = atom(file, ln, atom, resolver);
            if (neg) {
                v = -v;
            }
            acc = switch (op) {
                case '+' -> acc + v;
                case '-' -> acc - v;
                case '|' -> acc | v;
                default -> acc ^ v;
            };
            first = false;
            if (j < expr.length()) {
                op = expr.charAt(j);
                i = j + 1;
                if (i >= expr.length()) {
                    throw new ScriptException(file, ln, "expression ends with an operator: '" + expr + "'");
                }
            } else {
                i = j;
            }
        }
        return acc;
    }

    private static long atom(String file, int ln, String atom, Function<String, Long> resolver) {
        if (atom.isEmpty()) {
            throw new ScriptException(file, ln, "missing operand");
        }
        int star = atom.indexOf('*');
        if (star >= 0) {
            return atom(file, ln, atom.substring(0, star), resolver)
                    * atom(file, ln, atom.substring(star + 1), resolver);
        }
        Long lit = literal(atom);
        if (lit != null) {
            return lit;
        }
        Long sym = SYMBOLS.get(atom);
        if (sym != null) {
            return sym;
        }
        for (int op = 0; op < 256; op++) {
            if (Opcode.extensionLength(op) >= 0 && Opcode.name(op).equals(atom)) {
                return op;
            }
        }
        if (!atom.matches("\\$?[A-Za-z_][A-Za-z0-9_]*")) {
            throw new ScriptException(file, ln, "bad value '" + atom + "'");
        }
        Long r = resolver.apply(atom);
        if (r == null) {
            throw new ScriptException(file, ln, "unknown name '" + atom + "'");
        }
        return r;
    }
}
