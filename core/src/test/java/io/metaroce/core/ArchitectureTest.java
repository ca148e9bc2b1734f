package io.metaroce.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.MemberRefEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ARCHITECTURE.md's rule, enforced on the compiled classes of {@code core}: no sockets, no threads, no clock,
 * no randomness it was not handed, no dependency on the other modules. Reads every class's constant pool with
 * the JDK's class-file API.
 */
class ArchitectureTest {
    private static final List<String> FORBIDDEN_CLASS_PREFIXES = List.of(
            "java/net/", "java/nio/channels/", "java/lang/Thread", "java/util/concurrent/",
            "java/util/Random", "java/util/SplittableRandom", "java/util/concurrent/ThreadLocalRandom", "java/security/SecureRandom",
            "java/time/Clock", "java/time/Instant", "java/lang/ProcessBuilder", "java/lang/Runtime",
            "java/io/File", "java/nio/file/", "io/metaroce/net/", "io/metaroce/sim/", "io/metaroce/cli/",
            "io/metaroce/conformance/", "io/metaroce/testkit/");
    private static final List<String> FORBIDDEN_MEMBERS = List.of(
            "java/lang/System.nanoTime", "java/lang/System.currentTimeMillis", "java/lang/Math.random",
            "java/lang/Object.wait", "java/lang/Object.notify", "java/lang/System.exit");

    @Test
    void coreHasNoSocketsThreadsClocksOrHiddenRandomness() throws IOException {
        Path classes = Path.of("target/classes");
        assertTrue(Files.isDirectory(classes), "run from the core module after compilation");
        List<String> violations = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                ClassModel cm = ClassFile.of().parse(Files.readAllBytes(f));
                checked++;
                for (PoolEntry e : cm.constantPool()) {
                    if (e instanceof ClassEntry c) {
                        String n = c.asInternalName();
                        for (String bad : FORBIDDEN_CLASS_PREFIXES) {
                            String name = n.startsWith("[") ? n.substring(n.indexOf('L') + 1) : n;
                            boolean hit = bad.endsWith("/") ? name.startsWith(bad)
                                    : name.equals(bad) || name.startsWith(bad + "$") || name.equals(bad + ";");
                            if (hit) {
                                violations.add(cm.thisClass().asInternalName() + " uses " + n);
                            }
                        }
                    } else if (e instanceof MemberRefEntry m) {
                        String n = m.owner().asInternalName() + "." + m.name().stringValue();
                        if (FORBIDDEN_MEMBERS.contains(n)) {
                            violations.add(cm.thisClass().asInternalName() + " calls " + n);
                        }
                    }
                }
            }
        }
        assertTrue(checked > 20, "found the compiled core classes (" + checked + ")");
        assertEquals(List.of(), violations);
    }

    @Test
    void theRuleCatchesAViolation() throws IOException {
        // The checker itself must be able to fail: this test class reads files, which core may not.
        ClassModel cm = ClassFile.of().parse(Files.readAllBytes(
                Path.of("target/test-classes/io/metaroce/core/ArchitectureTest.class")));
        boolean sawNioFile = false;
        for (PoolEntry e : cm.constantPool()) {
            if (e instanceof ClassEntry c && c.asInternalName().startsWith("java/nio/file/")) {
                sawNioFile = true;
            }
        }
        assertTrue(sawNioFile);
    }
}
