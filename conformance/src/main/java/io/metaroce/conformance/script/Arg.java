package io.metaroce.conformance.script;

/**
 * One argument of a script line: {@code key=value} (operator {@code =}), {@code key~value} (bits present),
 * {@code key!~value} (bits absent), {@code key!=value} (differs), or a bare word ({@code key} null).
 *
 * @param key   the field name, or null for a bare word
 * @param op    "=", "~", "!~", "!=" or "" for a bare word
 * @param value the unevaluated value text (a bare word's text)
 */
public record Arg(String key, String op, String value) {
    @Override
    public String toString() {
        return key == null ? value : key + op + value;
    }
}
