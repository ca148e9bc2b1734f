package io.metaroce.cli;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MainTest {
    private static String capture(Runnable r) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setOut(old);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void versionNamesTheWireFormat() {
        String out = capture(() -> assertEquals(0, Main.run("--version")));
        assertTrue(out.contains("wire format v1"), out);
    }

    @Test
    void smallDemoRunsAndVerifiesData() {
        String out = capture(() -> assertEquals(0, Main.run("demo", "--size", "4MiB", "--loss", "0,1%",
                "--loopback-size", "8MiB")));
        assertTrue(out.contains("1.0%"), out);
        assertTrue(out.contains(" ok"), out);
        assertTrue(!out.contains("WRONG"), out);
        assertTrue(out.contains("data verified"), out);
    }

    @Test
    void unknownCommandFailsWithUsage() {
        assertEquals(2, Main.run("no-such-command"));
    }

    /** A command named first builds only its own subtree, which reads exactly as in the whole tree. */
    @Test
    void aNamedCommandBuildsOnlyItsSubtreeWithTheSameHelp() {
        CommandLine full = Main.commandLine();
        assertTrue(full.getSubcommands().size() > 10, full.getSubcommands().keySet().toString());
        assertEquals(full.getSubcommands().keySet(), new CommandLine(new Main()).getSubcommands().keySet());
        for (String name : full.getSubcommands().keySet()) {
            if (name.equals("help")) {
                continue;
            }
            CommandLine fast = Main.commandLineFor(name, "--help");
            assertEquals(Set.of(name), fast.getSubcommands().keySet());
            CommandLine a = full.getSubcommands().get(name);
            CommandLine b = fast.getSubcommands().get(name);
            assertEquals(a.getUsageMessage(), b.getUsageMessage(), name);
            assertEquals(a.getSubcommands().keySet(), b.getSubcommands().keySet(), name);
            assertTrue(b.isCaseInsensitiveEnumValuesAllowed(), name);
        }
        assertEquals(full.getSubcommands().keySet(), Main.commandLineFor("help", "sim").getSubcommands().keySet());
        assertEquals(full.getSubcommands().keySet(), Main.commandLineFor("--help").getSubcommands().keySet());
        assertEquals(full.getSubcommands().keySet(), Main.commandLineFor("simm").getSubcommands().keySet());
        assertTrue(Main.commandLineFor("--version").getSubcommands().isEmpty());
    }
}
