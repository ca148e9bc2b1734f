package io.metaroce.core;

/** A protection domain: a QP accepts remote access only to regions of its own domain (spec VERBS-2). */
public final class ProtectionDomain {
    private final Engine owner;
    private final int id;

    ProtectionDomain(Engine owner, int id) {
        this.owner = owner;
        this.id = id;
    }

    /** The engine (device context) this domain belongs to. */
    public Engine engine() {
        return owner;
    }

    public int id() {
        return id;
    }

    @Override
    public String toString() {
        return "PD#" + id;
    }
}
