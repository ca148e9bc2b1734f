package io.metaroce.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.codegen.docgen.manpage.ManPageGenerator;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code metaroce man}: writes one man page per command ({@code metaroce.adoc}, {@code metaroce-sim-run.adoc},
 * ...) in AsciiDoc, made by picocli-codegen's ManPageGenerator from the same command tree that runs, so the pages
 * never drift from {@code --help}. {@code tools/install-docs.sh} turns them into troff with asciidoctor and
 * installs them with the shell completion.
 */
@Command(name = "man", mixinStandardHelpOptions = true,
        description = "Writes the man pages of metaroce and every subcommand as AsciiDoc (metaroce-sim-run.adoc, ...) "
                + "into a directory; tools/install-docs.sh converts them with asciidoctor and installs them.")
public final class ManCommand implements Callable<Integer> {
    @Option(names = {"-d", "--outdir"}, paramLabel = "DIR", defaultValue = "target/man/adoc",
            description = "where to write the .adoc files (created; default ${DEFAULT-VALUE})")
    Path outdir;

    public ManCommand() {
    }

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(outdir);
        CommandLine root = Main.commandLine();
        int rc = ManPageGenerator.generateManPage(outdir.toFile(), (File) null, new boolean[0], true,
                root.getCommandSpec());
        if (rc != 0) {
            System.err.println("metaroce man: the man page generator failed (exit code " + rc + ")");
            return 1;
        }
        try (var files = Files.list(outdir)) {
            System.out.println("wrote " + files.filter(f -> f.toString().endsWith(".adoc")).count()
                    + " man pages (AsciiDoc) to " + outdir.toAbsolutePath());
        }
        return 0;
    }
}
