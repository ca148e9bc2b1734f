package io.metaroce.sim.experiment;

import io.metaroce.core.unit.Quantity;
import io.metaroce.sim.run.ExperimentSpec;
import io.metaroce.sim.run.FaultSpec;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Sets and reads the fields of an {@link ExperimentSpec} by dotted name ({@code fabric.linkLoss},
 * {@code workload.bytes}, {@code seed}), converting values with units by the field's name:
 * <ul>
 *   <li>names ending in {@code Ps} or {@code Ns}: times, {@code "10us"}, {@code "1.5ms"}, {@code "200ns"},
 *       {@code "2s"}, {@code "500ps"} (a bare number is taken in the field's own unit);</li>
 *   <li>names ending in {@code Bps}: rates in bits/s, {@code "100Gbps"}, {@code "400G"}, {@code "25Mbps"};</li>
 *   <li>names ending in {@code Bytes} or named {@code bytes}: sizes, {@code "4KiB"}, {@code "64MB"},
 *       {@code "178450B"};</li>
 *   <li>anything else: numbers, booleans and strings as written.</li>
 * </ul>
 * Unknown names and values that do not fit the field are errors naming the key and what was expected.
 */
public final class SpecFields {
    private SpecFields() {
    }

    /** Thrown for a bad key or value; the message names the key. */
    public static final class SpecException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** Longest message kept (a list of known names fits); a long value echoed from the file is cut. */
        static final int MAX_MESSAGE = 2000;

        /**
         * An error about {@code key}. The message is made one line (a line break and the blanks around it become
         * one space, any other control character a space) and cut to {@value #MAX_MESSAGE} characters.
         */
        public SpecException(String key, String message) {
            super(oneLine(key + ": " + message));
        }

        private static String oneLine(String text) {
            String s = text.replaceAll("\\s*\\R\\s*", " ");
            StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_MESSAGE + 3));
            for (int i = 0; i < s.length() && b.length() < MAX_MESSAGE; i++) {
                char c = s.charAt(i);
                b.append(Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? ' ' : c);
            }
            if (b.length() < s.length()) {
                b.append("...");
            }
            return b.toString();
        }
    }

    /**
     * Applies a YAML-like tree (maps of maps, lists, scalars) to {@code spec}: nested maps descend into the
     * sub-objects ({@code fabric}, {@code engine}, {@code roce}, {@code workload}), {@code faults} is a list of
     * maps, {@code watchPorts} a list of names. {@code prefix} is the dotted path of {@code tree} (empty at top).
     */
    public static void apply(ExperimentSpec spec, String prefix, Map<String, Object> tree) {
        for (Map.Entry<String, Object> e : tree.entrySet()) {
            String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            Object v = e.getValue();
            if (v instanceof Map<?, ?> m) {
                apply(spec, key, castMap(key, m));
            } else {
                set(spec, key, v);
            }
        }
    }

    /** Sets one field; {@code value} may be a string with units or a number, boolean or list. */
    public static void set(ExperimentSpec spec, String key, Object value) {
        if (key.equals("faults")) {
            setFaults(spec, key, value);
            return;
        }
        Target t = resolve(spec, key);
        Field f = t.field;
        if (Modifier.isFinal(f.getModifiers())) {
            if (List.class.isAssignableFrom(f.getType())) {
                List<String> list = stringList(key, value);
                @SuppressWarnings("unchecked")
                List<String> target = (List<String>) get(t.owner, f);
                target.clear();
                target.addAll(list);
                return;
            }
            throw new SpecException(key, "is a group, give it a map of fields");
        }
        try {
            f.set(t.owner, convert(key, f, value));
        } catch (IllegalAccessException ex) {
            throw new SpecException(key, "cannot be set: " + ex.getMessage());
        }
    }

    /** The current value of a field, for records and sweep tables. */
    public static Object get(ExperimentSpec spec, String key) {
        Target t = resolve(spec, key);
        return get(t.owner, t.field);
    }

    /**
     * {@code value} converted as field {@code key} stores it ("1%" -> 0.01, "10us" -> ps), or {@code value} itself
     * when {@code key} is not a field or the value does not fit it.
     */
    public static Object normalized(String key, Object value) {
        try {
            ExperimentSpec probe = new ExperimentSpec();
            set(probe, key, value);
            return get(probe, key);
        } catch (SpecException e) {
            return value;
        }
    }

    /** The public non-static fields of a config object and their values (for the record). */
    public static Map<String, Object> fields(Object config) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Field f : config.getClass().getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                Object v = get(config, f);
                if (v instanceof String || v instanceof Number || v instanceof Boolean || v instanceof Enum<?>) {
                    out.put(f.getName(), v instanceof Enum<?> en ? en.name() : v);
                }
            }
        }
        return out;
    }

    private record Target(Object owner, Field field) {
    }

    private static Target resolve(ExperimentSpec spec, String key) {
        String[] parts = key.split("\\.");
        Object owner = spec;
        for (int i = 0; i < parts.length; i++) {
            Field f = field(owner, parts[i], key);
            if (i == parts.length - 1) {
                return new Target(owner, f);
            }
            Object next = get(owner, f);
            if (next == null || next instanceof Number || next instanceof String || next instanceof Boolean
                    || next instanceof List<?>) {
                throw new SpecException(key, "'" + parts[i] + "' has no fields");
            }
            owner = next;
        }
        throw new SpecException(key, "empty key");
    }

    private static Field field(Object owner, String name, String key) {
        try {
            Field f = owner.getClass().getField(name);
            if (Modifier.isStatic(f.getModifiers())) {
                throw new SpecException(key, "'" + name + "' is a constant");
            }
            return f;
        } catch (NoSuchFieldException e) {
            List<String> names = new ArrayList<>();
            for (Field f : owner.getClass().getFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    names.add(f.getName());
                }
            }
            throw new SpecException(key, "unknown field '" + name + "' (known: " + String.join(", ", names) + ")");
        }
    }

    private static Object get(Object owner, Field f) {
        try {
            return f.get(owner);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void setFaults(ExperimentSpec spec, String key, Object value) {
        if (!(value instanceof List<?> list)) {
            throw new SpecException(key, "expected a list of faults, got " + value);
        }
        spec.faults.clear();
        for (int i = 0; i < list.size(); i++) {
            String k = key + "[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> m)) {
                throw new SpecException(k, "expected a map like {kind: plane-down, atPs: 200us, plane: 1}");
            }
            FaultSpec fs = new FaultSpec();
            for (Map.Entry<String, Object> e : castMap(k, m).entrySet()) {
                String fk = k + "." + e.getKey();
                Field f = field(fs, e.getKey(), fk);
                try {
                    f.set(fs, convert(fk, f, e.getValue()));
                } catch (IllegalAccessException ex) {
                    throw new SpecException(fk, ex.getMessage());
                }
            }
            spec.faults.add(fs);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(String key, Map<?, ?> m) {
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) {
                throw new SpecException(key, "keys must be names, got " + k);
            }
        }
        return (Map<String, Object>) m;
    }

    private static List<String> stringList(String key, Object value) {
        List<String> out = new ArrayList<>();
        if (value instanceof List<?> l) {
            for (Object o : l) {
                out.add(String.valueOf(o));
            }
        } else if (value instanceof String s) {
            for (String p : s.split(",")) {
                if (!p.isBlank()) {
                    out.add(p.trim());
                }
            }
        } else {
            throw new SpecException(key, "expected a list, got " + value);
        }
        return out;
    }

    static Object convert(String key, Field f, Object value) {
        Class<?> type = f.getType();
        String name = f.getName();
        if (value == null) {
            throw new SpecException(key, "missing value");
        }
        if (type == String.class) {
            return String.valueOf(value);
        }
        if (type == boolean.class || type == Boolean.class) {
            if (value instanceof Boolean b) {
                return b;
            }
            String s = String.valueOf(value).trim().toLowerCase(Locale.ROOT);
            if (s.equals("true") || s.equals("on") || s.equals("yes")) {
                return true;
            }
            if (s.equals("false") || s.equals("off") || s.equals("no")) {
                return false;
            }
            throw new SpecException(key, "expected true or false, got " + value);
        }
        if (type.isEnum()) {
            String s = String.valueOf(value).trim().toUpperCase(Locale.ROOT).replace('-', '_');
            for (Object c : type.getEnumConstants()) {
                if (((Enum<?>) c).name().equals(s)) {
                    return c;
                }
            }
            throw new SpecException(key, "expected one of " + java.util.Arrays.toString(type.getEnumConstants())
                    + ", got " + value);
        }
        double d;
        try {
            d = quantity(name, value);
        } catch (IllegalArgumentException e) {
            throw new SpecException(key, e.getMessage());
        }
        if (type == double.class || type == Double.class) {
            return d;
        }
        if (type == float.class) {
            return (float) d;
        }
        long l = Math.round(d);
        if (Math.abs(d - l) > 1e-6 * Math.max(1, Math.abs(d))) {
            throw new SpecException(key, "expected a whole number, got " + value);
        }
        if (type == long.class || type == Long.class) {
            return l;
        }
        if (type == int.class || type == Integer.class) {
            if (l > Integer.MAX_VALUE || l < Integer.MIN_VALUE) {
                throw new SpecException(key, "out of range for an int: " + value);
            }
            return (int) l;
        }
        throw new SpecException(key, "unsupported field type " + type.getSimpleName());
    }

    /**
     * Parses a number with an optional unit, interpreted by the field name's unit through the one grammar of
     * {@link Quantity} (a bare number is in the field's own unit; {@code %} divides by 100).
     */
    static double quantity(String fieldName, Object value) {
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        String s = String.valueOf(value).trim();
        if (s.endsWith("%")) {
            return plainNumber(s.substring(0, s.length() - 1).trim()) / 100;
        }
        if (fieldName.endsWith("Ps")) {
            return Quantity.picoseconds(s, 1);
        }
        if (fieldName.endsWith("Ns")) {
            return Quantity.picoseconds(s, Quantity.PS_PER_NS) / (double) Quantity.PS_PER_NS;
        }
        if (fieldName.endsWith("Bps")) {
            return Quantity.bitsPerSecond(s);
        }
        if (fieldName.endsWith("Bytes") || fieldName.equals("bytes") || fieldName.equals("mtu")) {
            return Quantity.bytes(s);
        }
        return plainNumber(s);
    }

    private static double plainNumber(String s) {
        try {
            return Double.parseDouble(s.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(s.isEmpty() || !Character.isDigit(s.charAt(0)) && s.charAt(0) != '-'
                    && s.charAt(0) != '.' ? "expected a number, got '" + s + "'"
                    : "'" + s + "' has a unit but this field takes a plain number");
        }
    }
}
