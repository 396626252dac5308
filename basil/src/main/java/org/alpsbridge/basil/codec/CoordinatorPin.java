package org.alpsbridge.basil.codec;

import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Unmarshaller;
import java.lang.reflect.Field;
import javax.xml.stream.XMLStreamReader;
import org.glassfish.jaxb.runtime.v2.runtime.Coordinator;
import org.glassfish.jaxb.runtime.v2.runtime.unmarshaller.UnmarshallerImpl;

/**
 * Works around a cost in the JAXB reference runtime: for every start and end tag it pushes its unmarshalling
 * context into a static {@code ThreadLocal} and pops it again, and when no context was active before, the pop
 * is a {@code ThreadLocal.remove()}, so the next push inserts a fresh map entry and scans for stale ones
 * (eclipse-ee4j/jaxb-ri issue 1086, open since 2015). On a large inventory that is 10–20 % of the decode.
 * Keeping the context itself active for the whole call turns each push and pop into a cheap value swap; the
 * runtime sees exactly the context it would see anyway.
 *
 * <p>If the runtime's internals are not as expected (another JAXB version, a module system that refuses the
 * reflection), or a context is already active on this thread (an unmarshal nested in another), the plain call
 * is made.
 */
final class CoordinatorPin {

    private static final ThreadLocal<Object> ACTIVE = activeTable();

    private CoordinatorPin() {
    }

    /** Whether this JAXB runtime is one the workaround understands (false: every read takes the plain call). */
    static boolean engaged() {
        return ACTIVE != null;
    }

    static Object unmarshal(Unmarshaller u, XMLStreamReader reader) throws JAXBException {
        if (ACTIVE == null || !(u instanceof UnmarshallerImpl impl) || ACTIVE.get() != null) {
            return u.unmarshal(reader);
        }
        ACTIVE.set(impl.getContext());
        try {
            return u.unmarshal(reader);
        } finally {
            ACTIVE.remove();
        }
    }

    @SuppressWarnings("unchecked")
    private static ThreadLocal<Object> activeTable() {
        try {
            Field f = Coordinator.class.getDeclaredField("activeTable");
            f.setAccessible(true);
            return f.get(null) instanceof ThreadLocal<?> t ? (ThreadLocal<Object>) t : null;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }
}
