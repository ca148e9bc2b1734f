package io.metaroce.sim.experiment;

import org.yaml.snakeyaml.error.YAMLException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Everything that defines a sweep's points: the experiment file's text and the command line's {@code --set KEY=VALUE}
 * and {@code --sweep KEY=V1,V2} arguments, in order. Shards carry it in their manifest so that a merge rebuilds the
 * same {@link ExperimentFile} and can refuse shards of a different experiment ({@link #sha256()}).
 *
 * @param fileName the file's name (its stem is the experiment's default name)
 * @param text     the file's YAML text
 * @param sets     {@code KEY=VALUE} overrides
 * @param sweeps   {@code KEY=V1,V2,...} axes
 */
public record ExperimentSource(String fileName, String text, List<String> sets, List<String> sweeps) {
    /** Copies the lists. */
    public ExperimentSource {
        sets = List.copyOf(sets);
        sweeps = List.copyOf(sweeps);
    }

    /** Reads {@code file}; the overrides are checked when {@link #load() loaded}. */
    public static ExperimentSource read(Path file, List<String> sets, List<String> sweeps) throws IOException {
        return new ExperimentSource(file.getFileName().toString(), Files.readString(file), sets, sweeps);
    }

    /**
     * The experiment file with the overrides applied.
     *
     * @throws SpecFields.SpecException on a bad file, key or value (the message names the file and the key)
     */
    public ExperimentFile load() {
        ExperimentFile f;
        try {
            f = ExperimentFile.parse(fileName.replaceFirst("\\.ya?ml$", ""), text);
        } catch (SpecFields.SpecException | YAMLException e) {
            throw new SpecFields.SpecException(fileName, e.getMessage());
        }
        for (String s : sets) {
            String[] kv = keyValue(s, "--set");
            f.set(kv[0], kv[1]);
        }
        for (String s : sweeps) {
            String[] kv = keyValue(s, "--sweep");
            f.setAxis(kv[0], new ArrayList<>(Arrays.asList((Object[]) kv[1].split(","))));
        }
        return f;
    }

    /** SHA-256 (hex) of the file name, text and overrides: equal for shards of the same sweep. */
    public String sha256() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String part : parts()) {
                byte[] b = part.getBytes(StandardCharsets.UTF_8);
                md.update(new byte[] {(byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8),
                        (byte) b.length}); // a length prefix: ("ab", "c") and ("a", "bc") differ
                md.update(b);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private List<String> parts() {
        List<String> p = new ArrayList<>();
        p.add(fileName);
        p.add(text);
        p.add("sets=" + sets.size());
        p.addAll(sets);
        p.add("sweeps=" + sweeps.size());
        p.addAll(sweeps);
        return p;
    }

    private static String[] keyValue(String s, String option) {
        int eq = s.indexOf('=');
        if (eq <= 0 || eq == s.length() - 1) {
            throw new SpecFields.SpecException(option, "expects KEY=VALUE, got '" + s + "'");
        }
        return new String[] {s.substring(0, eq).trim(), s.substring(eq + 1).trim()};
    }
}
