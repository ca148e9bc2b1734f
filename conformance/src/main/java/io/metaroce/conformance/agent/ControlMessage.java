package io.metaroce.conformance.agent;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of the agent control protocol (docs/conformance/AGENT-PROTOCOL.md): {@code SEQ WORD key=value ...},
 * ASCII, one per UDP datagram. Requests carry a command word, responses {@code OK} or {@code ERR}.
 *
 * @param seq  the request's sequence number (the response echoes it)
 * @param word the command ({@code RESET}, {@code POST}, ...) or {@code OK} / {@code ERR}
 * @param args arguments in order; an {@code ERR} carries its text under {@code msg}
 */
public record ControlMessage(long seq, String word, Map<String, String> args) {

    /** Parses one line; throws IllegalArgumentException on a malformed one. */
    public static ControlMessage parse(String line) {
        String[] t = line.trim().split(" +");
        if (t.length < 2) {
            throw new IllegalArgumentException("control line needs 'SEQ WORD': " + line);
        }
        long seq;
        try {
            seq = Long.parseLong(t[0]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad sequence number: " + t[0], e);
        }
        Map<String, String> args = new LinkedHashMap<>();
        if (t[1].equals("ERR")) {
            args.put("msg", line.trim().substring(line.trim().indexOf("ERR") + 3).trim());
            return new ControlMessage(seq, "ERR", args);
        }
        for (int i = 2; i < t.length; i++) {
            int eq = t[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("argument must be key=value: " + t[i]);
            }
            args.put(t[i].substring(0, eq), t[i].substring(eq + 1));
        }
        return new ControlMessage(seq, t[1], args);
    }

    /** The line (without newline). */
    public String format() {
        StringBuilder sb = new StringBuilder().append(seq).append(' ').append(word);
        if (word.equals("ERR")) {
            return sb.append(' ').append(args.getOrDefault("msg", "")).toString();
        }
        args.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        return sb.toString();
    }

    /** A required argument. */
    public String get(String key) {
        String v = args.get(key);
        if (v == null) {
            throw new IllegalArgumentException(word + " needs " + key + "=");
        }
        return v;
    }

    /** A required integer argument (decimal, or 0x hex). */
    public long num(String key) {
        String v = get(key);
        try {
            return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a number: " + v, e);
        }
    }

    /** An optional integer argument. */
    public long num(String key, long dflt) {
        return args.containsKey(key) ? num(key) : dflt;
    }
}
