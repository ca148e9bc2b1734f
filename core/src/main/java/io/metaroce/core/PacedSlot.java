package io.metaroce.core;

/**
 * A pacing slot the engine times in its pacing heap and fires when due: a route's (PATH-18, {@link PacingQueue}) or
 * a peer's grant (HINT-3, {@link GrantClock}). Either wakes one waiting QP per slot, not all of them.
 */
abstract class PacedSlot extends Timed {
    /** The slot came (the engine took it out of its heap). */
    abstract void fire();
}
