package io.metaroce.net;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Options that size the agent's buffers refuse values that cannot work, with a one-line reason. */
class DeviceOptionsTest {
    @Test
    void batchSizesOutOfRangeAreRefusedWithTheirName() {
        DeviceOptions o = new DeviceOptions();
        assertEquals(DeviceOptions.TX_BATCH, o.txBatch);
        assertEquals("txBatch must be in 1..4096, not 0",
                assertThrows(IllegalArgumentException.class, () -> o.txBatch(0)).getMessage());
        assertEquals("batch must be in 1..4096, not -3",
                assertThrows(IllegalArgumentException.class, () -> o.batch(-3)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> o.txBatch(4097));
        assertEquals(64, o.txBatch(64).txBatch);
        assertEquals(16, o.batch(16).batch);
    }
}
