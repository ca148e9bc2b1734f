package io.metaroce.conformance.script;

import io.metaroce.core.Access;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Parses conformance scripts (format in docs/conformance/SCRIPT-FORMAT.md). A file holds one case, or a family
 * of cases when it has {@code param} lines: every {@code {expr}} in the file is replaced by the expression's
 * value for each parameter value in turn. Every error names the file and line.
 */
public final class ScriptParser {
    /** Fields a {@code send} line may set. */
    public static final Set<String> SEND_KEYS = Set.of("path", "psn", "floor", "flags", "ts", "dqpn", "sqpn",
            "ver", "msn", "len", "off", "seg", "plen", "rkey", "va", "rsn", "imm", "sink", "pat", "fill", "cum",
            "sack", "ce", "echo", "grant", "rxmsn", "code", "nakpsn", "id", "cid", "pqpn", "ipsn", "mtu", "paths",
            "caps", "port", "planes", "reason", "family", "resv", "ecn", "dglen", "cut", "setb", "crc", "repeat", "from",
            "auth", "aseq", "kgen", "epaths", "trimmed", "mop", "count", "repair");
    /** Fields an {@code expect} line may match. */
    public static final Set<String> EXPECT_KEYS = Set.of("path", "psn", "floor", "flags", "ts", "dqpn", "sqpn",
            "ver", "msn", "len", "off", "plen", "rkey", "va", "rsn", "imm", "sink", "pat", "fill", "cum", "sack",
            "ce", "echo", "grant", "rxmsn", "code", "nakpsn", "id", "resv", "t", "n", "plane", "dglen", "ecn", "cid", "cqpn", "pqpn", "ipsn", "mtu", "paths", "caps", "port", "planes",
            "reason", "auth", "aseq", "kgen", "entries", "epaths", "hold", "holdmax", "mop", "count", "repair");
    private static final Map<String, Set<String>> KEYS = Map.ofEntries(
            Map.entry("send", SEND_KEYS),
            Map.entry("expect", EXPECT_KEYS),
            Map.entry("post", Set.of("wr", "mr", "off", "len", "va", "rkey", "imm", "rc")),
            Map.entry("recv", Set.of("wr", "mr", "off", "len", "rc")),
            Map.entry("modify", Set.of("rc")),
            Map.entry("dereg", Set.of()),
            Map.entry("fill", Set.of("off", "len", "pat", "fill", "moff")),
            Map.entry("check", Set.of("wr", "status", "op", "len", "imm", "qpn", "off", "pat", "fill", "moff", "state",
                    "cwnd", "inflight", "srtt", "rto", "timeouts", "failures", "readmissions", "retransmits")),
            Map.entry("drain", Set.of()),
            Map.entry("wait", Set.of()));
    private static final Set<String> HEADER = Set.of("case", "ids", "level", "title", "param", "config", "psn",
            "mr", "qp", "requires", "rerun");

    private ScriptParser() {
    }

    /** Parses {@code text} (the content of {@code file}, in section {@code section}) into its cases. */
    public static List<Script> parse(String file, String section, String text) {
        String[] lines = text.split("\r?\n", -1);
        List<String> paramNames = new ArrayList<>();
        List<List<String>> paramValues = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            List<String> toks = tokens(lines[i]);
            if (!toks.isEmpty() && toks.get(0).equals("param")) {
                if (toks.size() < 3) {
                    throw new ScriptException(file, i + 1, "param needs a name and at least one value");
                }
                if (!toks.get(1).matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw new ScriptException(file, i + 1, "bad parameter name '" + toks.get(1) + "'");
                }
                paramNames.add(toks.get(1));
                paramValues.add(toks.subList(2, toks.size()));
                if (paramValues.get(0).size() != paramValues.getLast().size()) {
                    throw new ScriptException(file, i + 1, "param " + toks.get(1) + " has "
                            + paramValues.getLast().size() + " values, the first param has "
                            + paramValues.get(0).size());
                }
            }
        }
        int n = paramNames.isEmpty() ? 1 : paramValues.get(0).size();
        List<Script> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Map<String, String> vars = new LinkedHashMap<>();
            for (int p = 0; p < paramNames.size(); p++) {
                vars.put(paramNames.get(p), paramValues.get(p).get(k));
            }
            out.add(parseOne(file, section, lines, vars));
        }
        return out;
    }

    private static Script parseOne(String file, String section, String[] lines, Map<String, String> vars) {
        String name = null;
        String title = "";
        String level = null;
        int caseLine = 0;
        List<String> ids = new ArrayList<>();
        List<String> requires = new ArrayList<>();
        Map<String, String> config = new LinkedHashMap<>();
        long iutPsn = 0x1000;
        long testerPsn = 0x5000;
        String qpState = "RTS";
        boolean rerun = false;
        List<Script.Region> regions = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            int ln = i + 1;
            String text = substitute(file, ln, lines[i], vars);
            List<String> toks = tokens(text);
            if (toks.isEmpty()) {
                continue;
            }
            String first = toks.get(0);
            if (HEADER.contains(first)) {
                if (!steps.isEmpty() && !first.equals("param")) {
                    throw new ScriptException(file, ln, "'" + first + "' must come before the first step");
                }
                switch (first) {
                    case "case" -> {
                        need(file, ln, toks, 2, "case NAME");
                        if (name != null) {
                            throw new ScriptException(file, ln, "second 'case' line (one case per file)");
                        }
                        name = toks.get(1).toLowerCase(Locale.ROOT).replace('_', '-');
                        caseLine = ln;
                        if (!name.matches("[a-z0-9][a-z0-9._-]*")) {
                            throw new ScriptException(file, ln, "case name must be lower-case [a-z0-9._-]: " + name);
                        }
                    }
                    case "ids" -> {
                        need(file, ln, toks, 2, "ids ID...");
                        for (String id : toks.subList(1, toks.size())) {
                            if (!id.matches("[A-Z]+-[0-9]+")) {
                                throw new ScriptException(file, ln, "bad spec ID '" + id + "' (like SACK-3)");
                            }
                            ids.add(id);
                        }
                    }
                    case "level" -> {
                        need(file, ln, toks, 2, "level MUST|SHOULD");
                        level = toks.get(1);
                        if (!level.equals("MUST") && !level.equals("SHOULD")) {
                            throw new ScriptException(file, ln, "level must be MUST or SHOULD, not " + level);
                        }
                    }
                    case "title" -> title = text.trim().substring(5).trim();
                    case "param" -> { }
                    case "rerun" -> rerun = true;
                    case "requires" -> requires.addAll(toks.subList(1, toks.size()));
                    case "config" -> {
                        for (String t : toks.subList(1, toks.size())) {
                            int eq = t.indexOf('=');
                            if (eq <= 0) {
                                throw new ScriptException(file, ln, "config wants knob=value, got '" + t + "'");
                            }
                            String v = t.substring(eq + 1);
                            if (v.matches("[0-9.]+(ns|us|ms|s)") || v.startsWith("0x")) {
                                v = Long.toString(Values.parseNumber(file, ln, v)); // times in ns
                            }
                            config.put(t.substring(0, eq), v);
                        }
                    }
                    case "psn" -> {
                        for (String t : toks.subList(1, toks.size())) {
                            int eq = t.indexOf('=');
                            String k = eq < 0 ? t : t.substring(0, eq);
                            long v = eq < 0 ? 0 : Values.parseNumber(file, ln, t.substring(eq + 1)) & 0xFFFF_FFFFL;
                            switch (k) {
                                case "iut" -> iutPsn = v;
                                case "tester" -> testerPsn = v;
                                default -> throw new ScriptException(file, ln, "psn wants iut=N tester=N, got " + t);
                            }
                        }
                    }
                    case "qp" -> {
                        need(file, ln, toks, 2, "qp RESET|INIT|RTR|RTS|LISTEN|CONNECT");
                        qpState = toks.get(1).toUpperCase(Locale.ROOT);
                        if (!Set.of("RESET", "INIT", "RTR", "RTS", "LISTEN", "CONNECT").contains(qpState)) {
                            throw new ScriptException(file, ln, "qp state must be RESET, INIT, RTR, RTS, LISTEN or "
                                    + "CONNECT");
                        }
                    }
                    case "mr" -> regions.add(region(file, ln, toks));
                    default -> throw new IllegalStateException(first);
                }
                continue;
            }
            steps.add(step(file, ln, text, toks));
        }
        if (name == null) {
            throw new ScriptException(file, 0, "no 'case NAME' line");
        }
        if (ids.isEmpty()) {
            throw new ScriptException(file, caseLine, "case " + name + " names no spec ID ('ids' line)");
        }
        if (level == null) {
            throw new ScriptException(file, caseLine, "case " + name + " has no 'level MUST|SHOULD' line");
        }
        if (steps.isEmpty()) {
            throw new ScriptException(file, caseLine, "case " + name + " has no steps");
        }
        return new Script(name, file, section, title, List.copyOf(ids), level, List.copyOf(requires),
                Map.copyOf(config), iutPsn, testerPsn, qpState, List.copyOf(regions), List.copyOf(steps), caseLine, rerun);
    }

    private static Script.Region region(String file, int ln, List<String> toks) {
        need(file, ln, toks, 2, "mr NAME size=N access=FLAGS");
        String name = toks.get(1);
        if (!name.matches("[A-Z][A-Z0-9]*")) {
            throw new ScriptException(file, ln, "region names are upper case (A, SRC, B2): " + name);
        }
        int size = 4096;
        int access = Access.ALL;
        boolean other = false;
        for (String t : toks.subList(2, toks.size())) {
            int eq = t.indexOf('=');
            String k = eq < 0 ? t : t.substring(0, eq);
            String v = eq < 0 ? "" : t.substring(eq + 1);
            switch (k) {
                case "size" -> size = (int) Values.parseNumber(file, ln, v);
                case "access" -> {
                    access = 0;
                    if (!v.equals("none")) {
                        for (String f : v.split("[,|]")) {
                            access |= switch (f) {
                                case "LOCAL_WRITE", "lw" -> Access.LOCAL_WRITE;
                                case "REMOTE_WRITE", "rw" -> Access.REMOTE_WRITE;
                                case "REMOTE_READ", "rr" -> Access.REMOTE_READ;
                                default -> throw new ScriptException(file, ln, "unknown access flag " + f);
                            };
                        }
                    }
                }
                case "pd" -> other = v.equals("other");
                default -> throw new ScriptException(file, ln, "unknown mr attribute " + k);
            }
        }
        return new Script.Region(name, size, access, other);
    }

    private static Step step(String file, int ln, String text, List<String> toks) {
        int i = 0;
        String time = null;
        if (toks.get(0).startsWith("@") || toks.get(0).startsWith("+")) {
            time = toks.get(0);
            Values.parseNumber(file, ln, time.substring(1)); // validates the time literal
            i = 1;
        }
        if (i >= toks.size()) {
            throw new ScriptException(file, ln, "a time needs a command (use 'wait' to just let time pass)");
        }
        String cmd = toks.get(i++);
        Set<String> keys = KEYS.get(cmd);
        if (keys == null) {
            throw new ScriptException(file, ln, "unknown command '" + cmd + "' (expected one of " + KEYS.keySet()
                    + " or a header line)");
        }
        List<String> words = new ArrayList<>();
        List<Arg> args = new ArrayList<>();
        for (; i < toks.size(); i++) {
            String t = toks.get(i);
            Arg a = arg(t);
            if (a.key() == null) {
                if (!args.isEmpty() && !cmd.equals("send") && !cmd.equals("post")) {
                    throw new ScriptException(file, ln, "bare word '" + t + "' after key=value arguments");
                }
                words.add(t);
                continue;
            }
            boolean sent = cmd.equals("check") && !words.isEmpty() && words.get(0).equals("sent");
            if (!keys.contains(a.key()) && !(cmd.equals("check") && a.key().matches("[A-Z_]+"))
                    && !(sent && (EXPECT_KEYS.contains(a.key()) || a.key().equals("total")))) {
                throw new ScriptException(file, ln, "'" + cmd + "' has no field '" + a.key() + "'");
            }
            if (cmd.equals("send") && args.stream().anyMatch(x -> a.key().equals(x.key()))) {
                throw new ScriptException(file, ln, "field '" + a.key() + "' set twice");
            }
            if (a.value().isEmpty()) {
                throw new ScriptException(file, ln, "empty value for '" + a.key() + "'");
            }
            if (!a.value().startsWith("?") && !a.key().equals("setb") && !a.key().equals("crc") && !a.key().equals("from")
                    && !a.key().equals("rc")) {
                Values.checkSyntax(file, ln, a.value());
            }
            args.add(a);
        }
        validateWords(file, ln, cmd, words);
        return new Step(ln, time, cmd, List.copyOf(words), List.copyOf(args), text.trim());
    }

    private static void validateWords(String file, int ln, String cmd, List<String> words) {
        switch (cmd) {
            case "send" -> {
                if (words.isEmpty()) {
                    throw new ScriptException(file, ln, "send needs an opcode (WRITE, ACK, 0x7f ...)");
                }
                Values.opcode(file, ln, words.get(0));
            }
            case "expect" -> {
                if (words.isEmpty()) {
                    throw new ScriptException(file, ln, "expect needs an opcode or 'none'");
                }
                for (String w : words) {
                    if (!w.equals("none") && !w.equals("data")) {
                        Values.opcode(file, ln, w);
                    }
                }
            }
            case "post" -> {
                if (words.isEmpty() || !Set.of("write", "writeimm", "send", "sendimm", "read").contains(words.get(0))) {
                    throw new ScriptException(file, ln, "post needs write|writeimm|send|sendimm|read");
                }
                for (String w : words.subList(1, words.size())) {
                    if (!w.equals("unsignaled")) {
                        throw new ScriptException(file, ln, "unknown post flag '" + w + "'");
                    }
                }
            }
            case "modify" -> {
                if (words.size() != 1 || !Set.of("INIT", "RTR", "RTS", "ERROR", "RESET").contains(words.get(0))) {
                    throw new ScriptException(file, ln, "modify needs one of INIT RTR RTS ERROR RESET");
                }
            }
            case "dereg", "fill" -> {
                if (words.size() != 1) {
                    throw new ScriptException(file, ln, cmd + " needs a region name");
                }
            }
            case "check" -> {
                String what = words.isEmpty() ? "" : words.get(0);
                boolean ok = switch (what) {
                    case "mem" -> words.size() == 2;
                    case "cq" -> (words.size() == 2 || words.size() == 3 && words.get(2).equals("empty"))
                            && (words.get(1).equals("send") || words.get(1).equals("recv"));
                    case "counter" -> words.size() == 1;
                    case "state" -> words.size() == 2;
                    case "path" -> words.size() == 2;
                    case "sent" -> words.size() >= 2;
                    default -> false;
                };
                if (!ok) {
                    throw new ScriptException(file, ln, "check needs: mem NAME | cq send|recv [empty] | counter "
                            + "NAME=V... | state STATE | sent OP... total=N | path N field=V...");
                }
            }
            default -> {
                if (!words.isEmpty()) {
                    throw new ScriptException(file, ln, cmd + " takes no bare words");
                }
            }
        }
    }

    private static Arg arg(String t) {
        for (String op : new String[] {"!~", "!=", "~", "="}) {
            int at = t.indexOf(op);
            if (at > 0 && t.substring(0, at).matches("[A-Za-z_][A-Za-z0-9_]*")) {
                // the earliest operator wins: "a=b~c" is key a
                int eq = t.indexOf('=');
                int ti = t.indexOf('~');
                int bang = t.indexOf('!');
                int first = Math.min(eq < 0 ? 1 << 30 : eq, Math.min(ti < 0 ? 1 << 30 : ti, bang < 0 ? 1 << 30 : bang));
                if (first != at) {
                    continue;
                }
                return new Arg(t.substring(0, at), op, t.substring(at + op.length()));
            }
        }
        return new Arg(null, "", t);
    }

    private static void need(String file, int ln, List<String> toks, int n, String usage) {
        if (toks.size() < n) {
            throw new ScriptException(file, ln, "usage: " + usage);
        }
    }

    /** Splits a line into tokens, dropping a comment (a token starting with '#'). */
    static List<String> tokens(String line) {
        List<String> out = new ArrayList<>();
        for (String t : line.trim().split("\\s+")) {
            if (t.startsWith("#")) {
                break;
            }
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
        return out;
    }

    private static String substitute(String file, int ln, String line, Map<String, String> vars) {
        if (line.indexOf('{') < 0) {
            return line;
        }
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                sb.append(line, i, line.length());
                break;
            }
            if (c != '{') {
                sb.append(c);
                i++;
                continue;
            }
            int end = line.indexOf('}', i);
            if (end < 0) {
                throw new ScriptException(file, ln, "unclosed '{'");
            }
            String expr = line.substring(i + 1, end).trim();
            if (vars.containsKey(expr)) {
                sb.append(vars.get(expr));
            } else {
                sb.append(Values.evalParam(file, ln, expr, vars));
            }
            i = end + 1;
        }
        return sb.toString();
    }
}
