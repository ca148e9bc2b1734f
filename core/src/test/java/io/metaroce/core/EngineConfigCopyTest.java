package io.metaroce.core;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EngineConfig#copy()} lists the settings by hand, and an engine runs on its copy: a setting missing from the
 * list would silently fall back to its default. Every public instance field is set to a value other than its
 * default and must survive the copy.
 */
class EngineConfigCopyTest {
    @Test
    void everySettingSurvivesTheCopy() throws IllegalAccessException {
        EngineConfig defaults = new EngineConfig();
        EngineConfig changed = new EngineConfig();
        int fields = 0;
        for (Field f : EngineConfig.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            fields++;
            Class<?> t = f.getType();
            if (t == int.class) {
                f.setInt(changed, f.getInt(defaults) + 3);
            } else if (t == long.class) {
                f.setLong(changed, f.getLong(defaults) + 3);
            } else if (t == double.class) {
                f.setDouble(changed, f.getDouble(defaults) + 0.125);
            } else if (t == boolean.class) {
                f.setBoolean(changed, !f.getBoolean(defaults));
            } else if (t == CongestionControl.Factory.class) {
                CongestionControl.Factory other = EcnAimd::new;
                f.set(changed, other);
            } else if (t == ProtocolSeam.class) {
                f.set(changed, new ProtocolSeam() { });
            } else {
                throw new AssertionError("EngineConfig." + f.getName() + " has a type this test does not know: " + t
                        + " (teach it, so that copy() is checked for it too)");
            }
            assertNotEquals(f.get(defaults), f.get(changed), f.getName() + " was changed");
        }
        assertTrue(fields > 30, "the settings were found");
        EngineConfig copy = changed.copy();
        for (Field f : EngineConfig.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                assertEquals(f.get(changed), f.get(copy), "EngineConfig.copy() drops " + f.getName());
            }
        }
    }
}
