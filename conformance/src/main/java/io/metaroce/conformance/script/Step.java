package io.metaroce.conformance.script;

import java.util.List;

/**
 * One timed line of a script: an optional time, a command and its arguments.
 *
 * @param line     1-based line number in the script file
 * @param time     "@T" (absolute), "+T" (relative to the previous timed line) or null (same time)
 * @param command  the command word ({@code send}, {@code expect}, {@code post}, ...)
 * @param words    bare words after the command, in order (e.g. the opcode of {@code send WRITE})
 * @param args     {@code key op value} arguments, in order
 * @param text     the line as written, for reports
 */
public record Step(int line, String time, String command, List<String> words, List<Arg> args, String text) {
    /** The first argument named {@code key}, or null. */
    public Arg arg(String key) {
        for (Arg a : args) {
            if (key.equals(a.key())) {
                return a;
            }
        }
        return null;
    }

    /** The value of argument {@code key}, or {@code dflt}. */
    public String value(String key, String dflt) {
        Arg a = arg(key);
        return a == null ? dflt : a.value();
    }

    /** The {@code i}-th bare word, or {@code dflt}. */
    public String word(int i, String dflt) {
        return i < words.size() ? words.get(i) : dflt;
    }
}
