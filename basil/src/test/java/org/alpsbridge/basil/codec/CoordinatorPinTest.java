package org.alpsbridge.basil.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import org.alpsbridge.basil.fixtures.Fixtures;
import org.alpsbridge.basil.model.Inventory;
import org.glassfish.jaxb.runtime.v2.runtime.Coordinator;
import org.junit.jupiter.api.Test;

/** The JAXB thread-local workaround leaves the thread as it found it, whether the read succeeds or fails. */
class CoordinatorPinTest {

    @Test
    void theWorkaroundRecognisesThePinnedJaxbRuntime() {
        assertTrue(CoordinatorPin.engaged(), "jaxb-runtime's Coordinator changed: re-measure the full decode (basil bench)"
                + " and adapt or delete CoordinatorPin");
    }

    @Test
    void noUnmarshallingContextStaysActiveOnTheThreadAfterAReadOrAFailedRead() throws Exception {
        Field f = Coordinator.class.getDeclaredField("activeTable");
        f.setAccessible(true);
        ThreadLocal<?> active = (ThreadLocal<?>) f.get(null);
        BasilCodec codec = BasilCodec.standard();

        var inventory = codec.readResponse(Fixtures.read("1.3/query-inventory-response.xml"))
                .responseData().content(Inventory.class).orElseThrow();
        assertEquals(4, inventory.nodes().size());
        assertNull(active.get());

        assertThrows(BasilException.class,
                () -> codec.readResponse(Fixtures.read("hostile/truncated.xml")));
        assertNull(active.get());
    }
}
