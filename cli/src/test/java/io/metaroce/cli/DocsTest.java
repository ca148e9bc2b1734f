package io.metaroce.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code metaroce man} writes a page for every command with every visible option, and {@code metaroce completion}
 * is a bash script that really completes subcommands, options and option values (run in bash).
 */
class DocsTest {
    private static String capture(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            assertEquals(0, Main.run(args));
        } finally {
            System.setOut(saved);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    private static void commands(CommandLine c, String prefix, List<CommandLine> out, List<String> names) {
        out.add(c);
        names.add(prefix);
        for (CommandLine sub : c.getSubcommands().values()) {
            if (!names.contains(prefix + "-" + sub.getCommandName())) {
                commands(sub, prefix + "-" + sub.getCommandName(), out, names);
            }
        }
    }

    @Test
    void everyCommandHasAManPageWithEveryVisibleOption(@TempDir Path tmp) throws IOException {
        capture("man", "--outdir", tmp.toString());
        List<CommandLine> all = new ArrayList<>();
        List<String> names = new ArrayList<>();
        commands(Main.commandLine(), "metaroce", all, names);
        assertTrue(all.size() > 25, names.toString());
        for (int i = 0; i < all.size(); i++) {
            Path page = tmp.resolve(names.get(i) + ".adoc");
            assertTrue(Files.exists(page), "no man page " + page.getFileName());
            String text = Files.readString(page);
            for (CommandLine.Model.OptionSpec o : all.get(i).getCommandSpec().options()) {
                if (!o.hidden()) {
                    assertTrue(text.contains(o.longestName()), page.getFileName() + " lacks " + o.longestName());
                }
            }
        }
    }

    private static String complete(Path script, String line) throws IOException, InterruptedException {
        String words = line.endsWith(" ") ? line + "''" : line;
        String cmd = "source " + script + " 2>/dev/null; COMP_LINE='" + line + "'; COMP_POINT=${#COMP_LINE}; "
                + "COMP_WORDS=(" + words + "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); "
                + "_complete_metaroce metaroce \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\" "
                + "2>/dev/null; echo \"${COMPREPLY[*]}\"";
        Process p = new ProcessBuilder("bash", "-c", cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    @Test
    void theCompletionScriptCompletesCommandsOptionsAndValues(@TempDir Path tmp) throws Exception {
        Path script = tmp.resolve("metaroce.bash");
        Files.writeString(script, capture("completion"));
        assertEquals("run", complete(script, "metaroce sim r"));
        assertEquals(List.of("--progress", "--progress-interval"),
                List.of(complete(script, "metaroce sim run --prog").split(" ")));
        assertEquals(List.of("auto", "none", "json"), List.of(complete(script, "metaroce sim run --progress ").split(" ")));
        assertTrue(List.of(complete(script, "metaroce perf ").split(" ")).containsAll(
                List.of("write-bw", "read-bw", "send-bw", "write-lat", "send-lat")));
    }
}
