package io.metaroce.conformance;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every behaviour ID of docs/spec has a case; the suite's ID list matches the spec; at least 150 cases. */
class CoverageTest {
    @Test
    void everySpecIdIsCovered() {
        Suite suite = Suite.builtIn();
        System.out.print(suite.coverageTable());
        List<String> uncovered = new ArrayList<>();
        suite.coverage().forEach((id, cases) -> {
            if (cases.isEmpty()) {
                uncovered.add(id);
            }
        });
        assertEquals(List.of(), uncovered, "behaviour IDs without a case");
        assertEquals(List.of(), suite.unknownIds(), "cases naming IDs the spec does not define");
        assertTrue(suite.cases().size() >= 150, "at least 150 cases, found " + suite.cases().size());
    }

    @Test
    void specIdListMatchesTheSpec() throws IOException {
        Path spec = Path.of("..", "docs", "spec");
        Map<String, String> fromDocs = new LinkedHashMap<>();
        Pattern p = Pattern.compile("^\\*\\*([A-Z]+-[0-9]+)\\*\\* \\((MUST|SHOULD)\\)", Pattern.MULTILINE);
        try (Stream<Path> files = Files.list(spec)) {
            for (Path f : files.filter(x -> x.getFileName().toString().matches("[0-9][0-9]-.*\\.md")).sorted().toList()) {
                Matcher m = p.matcher(Files.readString(f));
                while (m.find()) {
                    fromDocs.put(m.group(1), m.group(2));
                }
            }
        }
        assertTrue(fromDocs.size() >= 160, "found only " + fromDocs.size() + " IDs in docs/spec");
        assertEquals(fromDocs, Suite.loadSpecIds(),
                "conformance/src/main/resources/spec-ids.txt is out of date with docs/spec");
    }
}
