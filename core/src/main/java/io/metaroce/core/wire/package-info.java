/**
 * Wire format version 1 ({@code docs/spec/01-wire.md}): one view class per header over a {@code MemorySegment},
 * big-endian, with a length check before any read of untrusted bytes, and CRC32C.
 */
package io.metaroce.core.wire;
