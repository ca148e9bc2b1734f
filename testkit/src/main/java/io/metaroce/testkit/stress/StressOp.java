package io.metaroce.testkit.stress;

/**
 * One work request of a case, posted by one end of a connection.
 *
 * @param kind     the operation
 * @param length   payload bytes (0 allowed)
 * @param imm      immediate value (used by WRITE_IMM and SEND_IMM)
 * @param signaled whether it asks for a completion on success (the last request of each end always does)
 * @param skew     0-7 bytes by which its buffers are misaligned
 */
public record StressOp(OpKind kind, int length, int imm, boolean signaled, int skew) {
}
