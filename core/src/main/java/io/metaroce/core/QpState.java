package io.metaroce.core;

/** Queue pair states (spec VERBS-*, state machine in spec section 8). */
public enum QpState {
    RESET, INIT, RTR, RTS, ERROR
}
