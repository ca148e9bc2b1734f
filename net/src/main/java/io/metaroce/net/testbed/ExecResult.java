package io.metaroce.net.testbed;

/**
 * How a command run to completion ended.
 *
 * @param exitCode its exit code
 * @param stdout   everything it wrote to stdout
 * @param stderr   everything it wrote to stderr
 */
public record ExecResult(int exitCode, String stdout, String stderr) {
    /** True when the exit code is 0. */
    public boolean ok() {
        return exitCode == 0;
    }
}
