package io.metaroce.conformance.script;

/** A script that cannot be parsed or run as written, with the file and line it was found at. */
public final class ScriptException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final int line;

    /** An error at {@code file:line} (line 0 when it concerns the whole file). */
    public ScriptException(String file, int line, String message) {
        super(file + ":" + line + ": " + message);
        this.file = file;
        this.line = line;
    }

    /** The script file's name. */
    public String file() {
        return file;
    }

    /** The 1-based line number, or 0. */
    public int line() {
        return line;
    }
}
