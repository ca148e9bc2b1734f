/**
 * picocli, compiled from its sources for this JDK (see this module's pom.xml); the same descriptor as the binary
 * jar's: the {@code picocli} package, and {@code java.sql} only when a command uses its types.
 */
module info.picocli {
    requires static java.sql;
    exports picocli;
}
