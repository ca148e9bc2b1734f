package io.metaroce.cli.perf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the samples of the Prometheus text exposition format (version 0.0.4), what {@code metaroce monitor}
 * needs from an endpoint: {@code name{label="value",...} value [timestamp]} lines; comments ({@code # HELP},
 * {@code # TYPE}) and blank lines skipped; label values unescaped ({@code \\}, {@code \"}, {@code \n});
 * {@code NaN}, {@code +Inf}, {@code -Inf}. A malformed line is an IllegalArgumentException naming its number.
 */
final class PromText {
    private PromText() {
    }

    static List<DeviceMetrics.Sample> parse(String text) {
        List<DeviceMetrics.Sample> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                out.add(sample(line));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("metrics line " + (n + 1) + ": " + e.getMessage() + ": " + line);
            }
        }
        return out;
    }

    private static DeviceMetrics.Sample sample(String line) {
        int i = 0;
        while (i < line.length() && (Character.isLetterOrDigit(line.charAt(i)) || line.charAt(i) == '_'
                || line.charAt(i) == ':')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("no metric name");
        }
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i = labels(line, i + 1, labels);
        }
        String[] rest = line.substring(i).strip().split("\\s+");
        if (rest.length < 1 || rest.length > 2 || rest[0].isEmpty()) {
            throw new IllegalArgumentException("expected a value and an optional timestamp");
        }
        return new DeviceMetrics.Sample(name, labels, value(rest[0]));
    }

    /** Parses labels from {@code i} (after the brace) into {@code into}; returns the index after the closing brace. */
    private static int labels(String line, int i, Map<String, String> into) {
        while (true) {
            while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == ',')) {
                i++;
            }
            if (i >= line.length()) {
                throw new IllegalArgumentException("unterminated labels");
            }
            if (line.charAt(i) == '}') {
                return i + 1;
            }
            int eq = line.indexOf('=', i);
            if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                throw new IllegalArgumentException("label without =\"value\"");
            }
            String key = line.substring(i, eq).strip();
            StringBuilder v = new StringBuilder();
            int j = eq + 2;
            for (; j < line.length() && line.charAt(j) != '"'; j++) {
                char c = line.charAt(j);
                if (c == '\\' && j + 1 < line.length()) {
                    char e = line.charAt(++j);
                    v.append(e == 'n' ? '\n' : e);
                } else {
                    v.append(c);
                }
            }
            if (j >= line.length()) {
                throw new IllegalArgumentException("unterminated label value");
            }
            into.put(key, v.toString());
            i = j + 1;
        }
    }

    private static double value(String s) {
        return switch (s) {
            case "NaN" -> Double.NaN;
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }
}
