package io.metaroce.net.testbed;

import java.util.List;

/**
 * A test bed command failed (or the test bed cannot be built here). The message names the command, its exit
 * code and what it wrote to stderr.
 */
public final class TestbedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The command line that failed, joined with spaces; empty when no command was involved. */
    private final String command;
    /** Its exit code; -1 when it did not exit (timed out, could not start) or no command was involved. */
    private final int exitCode;
    /** What it wrote to stderr (trimmed). */
    private final String stderr;

    /** A failure that is not about one command (bad spec, unsupported machine). */
    public TestbedException(String message) {
        super(message);
        this.command = "";
        this.exitCode = -1;
        this.stderr = "";
    }

    /** A failure that is not about one command, with a cause. */
    public TestbedException(String message, Throwable cause) {
        super(message, cause);
        this.command = "";
        this.exitCode = -1;
        this.stderr = "";
    }

    /** {@code command} exited with {@code exitCode} (or -1: did not exit), writing {@code stderr}. */
    public TestbedException(List<String> command, int exitCode, String stderr, String why, Throwable cause) {
        super("test bed command failed" + (why == null || why.isEmpty() ? "" : " (" + why + ")") + ": `"
                + Shell.join(command) + "` exit code " + exitCode
                + (stderr == null || stderr.isBlank() ? "" : ", stderr: " + stderr.strip()), cause);
        this.command = Shell.join(command);
        this.exitCode = exitCode;
        this.stderr = stderr == null ? "" : stderr.strip();
    }

    /** The failing command line, joined with spaces (empty when none). */
    public String command() {
        return command;
    }

    /** Its exit code (-1 when it did not exit or none). */
    public int exitCode() {
        return exitCode;
    }

    /** Its stderr, trimmed. */
    public String stderr() {
        return stderr;
    }
}
