package io.metaroce.core.wire;

/** Thrown by the parsers of variable-length control structures; the engine catches it and counts a drop. */
public final class MalformedPacketException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedPacketException(String message) {
        super(message, null, false, false);
    }
}
