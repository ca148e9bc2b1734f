package io.metaroce.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Report files of a run: JUnit XML (for CI systems), a JSON result file and a self-contained HTML report
 * (cases grouped by spec section; failures with the expected and the actual packet field by field).
 */
public final class Reports {
    /** File names written by {@link #writeAll}. */
    public static final String JUNIT = "conformance-junit.xml";
    /** JSON result file name. */
    public static final String JSON = "conformance-results.json";
    /** HTML report file name. */
    public static final String HTML = "conformance-report.html";

    private Reports() {
    }

    /** Writes the three reports into {@code dir} (created if needed); returns their paths. */
    public static List<Path> writeAll(SuiteRun run, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path j = dir.resolve(JUNIT);
        Path s = dir.resolve(JSON);
        Path h = dir.resolve(HTML);
        Files.writeString(j, junitXml(run), StandardCharsets.UTF_8);
        Files.writeString(s, json(run), StandardCharsets.UTF_8);
        Files.writeString(h, html(run), StandardCharsets.UTF_8);
        return List.of(j, s, h);
    }

    // ------------------------------------------------------------------------------------------- JUnit

    /** JUnit XML: one testsuite per section, one testcase per case. */
    public static String junitXml(SuiteRun run) {
        StringBuilder sb = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append(String.format(Locale.ROOT, "<testsuites name=\"MetaRoCE conformance\" tests=\"%d\" failures=\"%d\" "
                        + "errors=\"%d\" skipped=\"%d\" time=\"%.3f\">%n", run.results().size(),
                run.count(CaseResult.Status.FAIL), run.count(CaseResult.Status.ERROR),
                run.count(CaseResult.Status.SKIP), run.millis() / 1000.0));
        for (Map.Entry<String, List<CaseResult>> e : bySection(run).entrySet()) {
            List<CaseResult> rs = e.getValue();
            sb.append(String.format(Locale.ROOT, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
                            + "skipped=\"%d\">%n", xml(e.getKey()), rs.size(),
                    rs.stream().filter(r -> r.status() == CaseResult.Status.FAIL).count(),
                    rs.stream().filter(r -> r.status() == CaseResult.Status.ERROR).count(),
                    rs.stream().filter(r -> r.status() == CaseResult.Status.SKIP).count()));
            for (CaseResult r : rs) {
                sb.append(String.format(Locale.ROOT, "    <testcase classname=\"conformance.%s\" name=\"%s\" time=\"%.3f\">",
                        xml(r.section()), xml(r.name() + " [" + String.join(" ", r.ids()) + "]"), r.millis() / 1000.0));
                switch (r.status()) {
                    case FAIL -> sb.append("<failure message=\"").append(xml(r.message())).append("\">")
                            .append(xml(detail(r))).append("</failure>");
                    case ERROR -> sb.append("<error message=\"").append(xml(r.message())).append("\">")
                            .append(xml(detail(r))).append("</error>");
                    case SKIP -> sb.append("<skipped message=\"").append(xml(r.message())).append("\"/>");
                    default -> { }
                }
                sb.append("</testcase>\n");
            }
            sb.append("  </testsuite>\n");
        }
        return sb.append("</testsuites>\n").toString();
    }

    private static String detail(CaseResult r) {
        StringBuilder sb = new StringBuilder(r.file() + ":" + r.line() + ": " + r.message() + "\n");
        for (CaseResult.FieldDiff d : r.diffs()) {
            sb.append(String.format("  %-8s expected %-20s actual %-20s %s%n", d.field(), d.expected(), d.actual(),
                    d.ok() ? "ok" : "MISMATCH"));
        }
        r.trace().forEach(t -> sb.append(t).append('\n'));
        return sb.toString();
    }

    // ------------------------------------------------------------------------------------------- JSON

    /** The results as JSON. */
    public static String json(SuiteRun run) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"suite\": \"MetaRoCE-J conformance\",\n");
        sb.append("  \"scriptFormat\": ").append(SuiteVersion.SCRIPT_FORMAT).append(",\n");
        sb.append("  \"target\": ").append(str(run.target())).append(",\n");
        sb.append("  \"strict\": ").append(run.strict()).append(",\n");
        sb.append("  \"startedAt\": ").append(str(run.startedAt())).append(",\n");
        sb.append("  \"millis\": ").append(run.millis()).append(",\n");
        sb.append("  \"passed\": ").append(run.passed()).append(",\n");
        sb.append("  \"counts\": {");
        CaseResult.Status[] all = CaseResult.Status.values();
        for (int i = 0; i < all.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(str(all[i].name())).append(": ").append(run.count(all[i]));
        }
        sb.append("},\n  \"cases\": [\n");
        for (int i = 0; i < run.results().size(); i++) {
            CaseResult r = run.results().get(i);
            sb.append("    {\"name\": ").append(str(r.name())).append(", \"file\": ").append(str(r.file()))
                    .append(", \"section\": ").append(str(r.section())).append(", \"level\": ").append(str(r.level()))
                    .append(", \"ids\": [");
            for (int k = 0; k < r.ids().size(); k++) {
                sb.append(k == 0 ? "" : ", ").append(str(r.ids().get(k)));
            }
            sb.append("], \"status\": ").append(str(r.status().name())).append(", \"millis\": ").append(r.millis());
            if (r.status() != CaseResult.Status.PASS) {
                sb.append(", \"line\": ").append(r.line()).append(", \"message\": ").append(str(r.message()));
                sb.append(", \"diffs\": [");
                for (int k = 0; k < r.diffs().size(); k++) {
                    CaseResult.FieldDiff d = r.diffs().get(k);
                    sb.append(k == 0 ? "" : ", ").append("{\"field\": ").append(str(d.field()))
                            .append(", \"expected\": ").append(str(d.expected())).append(", \"actual\": ")
                            .append(str(d.actual())).append(", \"ok\": ").append(d.ok()).append('}');
                }
                sb.append("], \"actual\": {");
                int k = 0;
                for (Map.Entry<String, String> e : r.actual().entrySet()) {
                    sb.append(k++ == 0 ? "" : ", ").append(str(e.getKey())).append(": ").append(str(e.getValue()));
                }
                sb.append('}');
            }
            sb.append(i + 1 < run.results().size() ? "},\n" : "}\n");
        }
        return sb.append("  ]\n}\n").toString();
    }

    private static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    // ------------------------------------------------------------------------------------------- HTML

    /** A self-contained HTML page (no external resources). */
    public static String html(SuiteRun run) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>MetaRoCE conformance report</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222}")
                .append("h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}")
                .append("table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:2px 8px;")
                .append("text-align:left;font-size:.9em}th{background:#f4f4f4}.PASS{color:#070}.FAIL{color:#b00;")
                .append("font-weight:bold}.ERROR{color:#a50;font-weight:bold}.SKIP{color:#777}.bad{background:#fdd}")
                .append("pre{background:#f8f8f8;padding:.5em;font-size:.8em;overflow-x:auto}")
                .append(".verdict{font-size:1.2em;font-weight:bold}</style></head><body>\n");
        sb.append("<h1>MetaRoCE wire format v1 &mdash; conformance report</h1>\n");
        sb.append("<p>Target: <b>").append(esc(run.target())).append("</b><br>Started ").append(esc(run.startedAt()))
                .append(", ").append(String.format(Locale.ROOT, "%.1f s", run.millis() / 1000.0))
                .append(run.strict() ? ", strict (MUST and SHOULD)" : ", MUST cases only").append("</p>\n");
        sb.append("<p class=\"verdict ").append(run.passed() ? "PASS" : "FAIL").append("\">")
                .append(esc(run.summary())).append("</p>\n");
        sb.append("<table><tr><th>section</th><th>cases</th><th>passed</th><th>failed</th><th>errors</th>")
                .append("<th>skipped</th></tr>\n");
        Map<String, List<CaseResult>> sections = bySection(run);
        for (Map.Entry<String, List<CaseResult>> e : sections.entrySet()) {
            List<CaseResult> rs = e.getValue();
            sb.append("<tr><td><a href=\"#s-").append(esc(e.getKey())).append("\">").append(esc(e.getKey()))
                    .append("</a></td><td>").append(rs.size()).append("</td>");
            for (CaseResult.Status st : CaseResult.Status.values()) {
                long n = rs.stream().filter(r -> r.status() == st).count();
                sb.append("<td class=\"").append(n > 0 ? st.name() : "").append("\">").append(n).append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</table>\n");
        for (Map.Entry<String, List<CaseResult>> e : sections.entrySet()) {
            sb.append("<h2 id=\"s-").append(esc(e.getKey())).append("\">").append(esc(e.getKey())).append("</h2>\n");
            sb.append("<table><tr><th>case</th><th>IDs</th><th>level</th><th>result</th><th>title</th></tr>\n");
            List<CaseResult> failed = new ArrayList<>();
            for (CaseResult r : e.getValue()) {
                sb.append("<tr><td>").append(r.failed() ? "<a href=\"#c-" + esc(r.name()) + "\">" : "")
                        .append(esc(r.name())).append(r.failed() ? "</a>" : "").append("</td><td>")
                        .append(esc(String.join(" ", r.ids()))).append("</td><td>").append(esc(r.level()))
                        .append("</td><td class=\"").append(r.status()).append("\">").append(r.status())
                        .append("</td><td>").append(esc(r.title())).append("</td></tr>\n");
                if (r.failed() || r.status() == CaseResult.Status.SKIP) {
                    failed.add(r);
                }
            }
            sb.append("</table>\n");
            for (CaseResult r : failed) {
                sb.append("<h3 id=\"c-").append(esc(r.name())).append("\" class=\"").append(r.status()).append("\">")
                        .append(esc(r.name())).append(" &mdash; ").append(r.status()).append("</h3>\n<p>")
                        .append(esc(r.file())).append(':').append(r.line()).append(": ").append(esc(r.message()))
                        .append("</p>\n");
                if (!r.diffs().isEmpty()) {
                    sb.append("<table><tr><th>field</th><th>expected</th><th>actual</th></tr>\n");
                    for (CaseResult.FieldDiff d : r.diffs()) {
                        sb.append("<tr class=\"").append(d.ok() ? "" : "bad").append("\"><td>").append(esc(d.field()))
                                .append("</td><td>").append(esc(d.expected())).append("</td><td>")
                                .append(esc(d.actual())).append("</td></tr>\n");
                    }
                    sb.append("</table>\n");
                }
                if (!r.actual().isEmpty()) {
                    sb.append("<p>Actual packet, decoded:</p><table><tr>");
                    r.actual().keySet().forEach(k -> sb.append("<th>").append(esc(k)).append("</th>"));
                    sb.append("</tr><tr>");
                    r.actual().values().forEach(v -> sb.append("<td>").append(esc(v)).append("</td>"));
                    sb.append("</tr></table>\n");
                }
                if (!r.trace().isEmpty()) {
                    sb.append("<details><summary>trace (&gt; tester to IUT, &lt; IUT to tester)</summary><pre>");
                    r.trace().forEach(t -> sb.append(esc(t)).append('\n'));
                    sb.append("</pre></details>\n");
                }
            }
        }
        return sb.append("</body></html>\n").toString();
    }

    private static Map<String, List<CaseResult>> bySection(SuiteRun run) {
        Map<String, List<CaseResult>> m = new TreeMap<>();
        for (CaseResult r : run.results()) {
            m.computeIfAbsent(r.section(), k -> new ArrayList<>()).add(r);
        }
        return m;
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String xml(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : esc(s).toCharArray()) {
            if (c >= 0x20 || c == '\n' || c == '\t') {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
