package io.metaroce.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/**
 * {@code metaroce completion}: prints the bash (and zsh, through bashcompinit) completion script of every
 * command and option, made by picocli's AutoComplete from the command tree that runs. Load it with
 * {@code source <(./metaroce completion)}, or install it with {@code tools/install-docs.sh}.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = "Prints the shell completion script (bash; zsh with bashcompinit) for metaroce's commands and "
                + "options. Try it: source <(./metaroce completion); install it: tools/install-docs.sh.")
public final class CompletionCommand implements Callable<Integer> {
    public CompletionCommand() {
    }

    @Override
    public Integer call() {
        System.out.print(AutoComplete.bash("metaroce", Main.commandLine()));
        System.out.flush();
        return 0;
    }
}
