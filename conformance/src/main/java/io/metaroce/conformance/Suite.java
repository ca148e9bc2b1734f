package io.metaroce.conformance;

import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptParser;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The suite: every case script under {@code cases/} (on the class path, or a directory given by the user),
 * the spec's behaviour IDs, and the coverage of the one by the other.
 */
public final class Suite {
    private final List<Script> cases;
    private final Map<String, String> specIds;

    private Suite(List<Script> cases, Map<String, String> specIds) {
        this.cases = List.copyOf(cases);
        this.specIds = specIds;
    }

    /** The built-in suite (the {@code cases/} resources of this module). */
    public static Suite builtIn() {
        try {
            URI uri = Suite.class.getResource("/cases").toURI();
            if (uri.getScheme().equals("jar")) {
                try (FileSystem fs = FileSystems.newFileSystem(uri, Map.of())) {
                    return fromDirectory(fs.getPath("/cases"));
                }
            }
            return fromDirectory(Path.of(uri));
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot list the built-in cases", e);
        }
    }

    /** Every {@code *.mrt} file under {@code dir}; the section of a case is its file's directory. */
    public static Suite fromDirectory(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> p.toString().endsWith(".mrt")).sorted(Comparator.comparing(Path::toString)).toList();
        }
        List<Script> cases = new ArrayList<>();
        for (Path f : files) {
            Path rel = dir.relativize(f);
            String section = rel.getNameCount() > 1 ? rel.getName(0).toString() : "misc";
            cases.addAll(ScriptParser.parse(rel.toString().replace('\\', '/'), section,
                    Files.readString(f, StandardCharsets.UTF_8)));
        }
        Map<String, Script> byName = new LinkedHashMap<>();
        for (Script c : cases) {
            Script prev = byName.put(c.name(), c);
            if (prev != null) {
                throw new IllegalStateException("case name " + c.name() + " used by " + prev.file() + " and "
                        + c.file());
            }
        }
        return new Suite(cases, loadSpecIds());
    }

    /** The spec's behaviour IDs with their strength (MUST or SHOULD), in spec order. */
    public static Map<String, String> loadSpecIds() {
        Map<String, String> ids = new LinkedHashMap<>();
        try (InputStream in = Suite.class.getResourceAsStream("/spec-ids.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.trim().split("\\s+");
                ids.put(f[0], f[1]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ids;
    }

    /** Every case, sorted by file. */
    public List<Script> cases() {
        return cases;
    }

    /** Spec IDs and their strength. */
    public Map<String, String> specIds() {
        return specIds;
    }

    /** The cases selected by a section or ID prefix, a case name, and strictness (SHOULD cases). */
    public List<Script> select(String sectionOrIdPrefix, String name, boolean strict) {
        List<Script> out = new ArrayList<>();
        for (Script c : cases) {
            if (!strict && c.isShould()) {
                continue;
            }
            if (name != null && !c.name().equals(name)) {
                continue;
            }
            if (sectionOrIdPrefix != null && !c.section().equals(sectionOrIdPrefix)
                    && c.ids().stream().noneMatch(id -> id.startsWith(sectionOrIdPrefix))) {
                continue;
            }
            out.add(c);
        }
        return out;
    }

    /** Spec ID to the names of the cases that check it (every spec ID present, possibly with none). */
    public Map<String, List<String>> coverage() {
        Map<String, List<String>> cov = new LinkedHashMap<>();
        for (String id : specIds.keySet()) {
            cov.put(id, new ArrayList<>());
        }
        for (Script c : cases) {
            for (String id : c.ids()) {
                cov.computeIfAbsent(id, k -> new ArrayList<>()).add(c.name());
            }
        }
        return cov;
    }

    /** IDs named by cases but not defined by the spec (typos). */
    public List<String> unknownIds() {
        List<String> out = new ArrayList<>();
        for (Script c : cases) {
            for (String id : c.ids()) {
                if (!specIds.containsKey(id)) {
                    out.add(c.file() + ": " + id);
                }
            }
        }
        return out;
    }

    /** The coverage table as text: one line per ID with its strength and cases. */
    public String coverageTable() {
        StringBuilder sb = new StringBuilder();
        int covered = 0;
        for (Map.Entry<String, List<String>> e : coverage().entrySet()) {
            List<String> names = e.getValue();
            covered += names.isEmpty() ? 0 : 1;
            sb.append(String.format("%-9s %-6s %3d  %s%n", e.getKey(), specIds.getOrDefault(e.getKey(), "?"),
                    names.size(), names.isEmpty() ? "** UNCOVERED **" : summarize(names)));
        }
        sb.append(String.format("%d of %d behaviour IDs covered by %d cases%n", covered, specIds.size(),
                cases.size()));
        return sb.toString();
    }

    private static String summarize(List<String> names) {
        if (names.size() <= 4) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, 4)) + ", ... (+" + (names.size() - 4) + ")";
    }

    /** Cases grouped by section, sections sorted. */
    public Map<String, List<Script>> bySection() {
        Map<String, List<Script>> m = new TreeMap<>();
        for (Script c : cases) {
            m.computeIfAbsent(c.section(), k -> new ArrayList<>()).add(c);
        }
        return m;
    }
}
