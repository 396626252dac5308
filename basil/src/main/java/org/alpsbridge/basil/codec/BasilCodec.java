package org.alpsbridge.basil.codec;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Marshaller;
import jakarta.xml.bind.Unmarshaller;
import jakarta.xml.bind.ValidationEvent;
import jakarta.xml.bind.ValidationEventLocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import javax.xml.stream.XMLStreamReader;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Confirmed;
import org.alpsbridge.basil.model.Engine;
import org.alpsbridge.basil.model.ApplicationStates;
import org.alpsbridge.basil.model.Inventory;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.model.SystemInventory;
import org.alpsbridge.basil.model.Topology;
import org.alpsbridge.basil.model.Message;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReservationStates;
import org.alpsbridge.basil.model.Reserved;

/**
 * Reads and writes BASIL documents: one cached {@link JAXBContext} over hardened Woodstox readers.
 *
 * <p>Thread-safe; share one instance. Every failure to read is a {@link BasilException} naming the problem
 * and its line:column — never an unchecked exception. Writing is deterministic (same model, same bytes):
 * an XML declaration without encoding, as ALPS writes it, then US-ASCII with anything else escaped as
 * character references, because Slurm's expat parser reads BASIL as US-ASCII.
 */
public final class BasilCodec {

    /** Every root-capable class of the model; the inventory side adds its content classes here. */
    private static final List<Class<?>> MODEL = List.of(
            BasilRequest.class, BasilResponse.class, Message.class,
            Engine.class, Reserved.class, Confirmed.class, Released.class, ReservationStates.class,
            Inventory.class, Summary.class, SystemInventory.class, Topology.class, ApplicationStates.class);

    private static final byte[] DECLARATION = "<?xml version=\"1.0\"?>\n".getBytes(StandardCharsets.US_ASCII);

    private static final class Standard {
        static final BasilCodec INSTANCE = new BasilCodec(Limits.DEFAULT);
    }

    private static volatile JAXBContext context;

    private final XmlInput input;

    private BasilCodec(Limits limits) {
        this.input = new XmlInput(limits);
    }

    /** The codec with {@link Limits#DEFAULT}. */
    public static BasilCodec standard() {
        return Standard.INSTANCE;
    }

    /** A codec with other limits, e.g. a small maximum document size for a front end. */
    public static BasilCodec withLimits(Limits limits) {
        return new BasilCodec(Objects.requireNonNull(limits, "limits"));
    }

    public Limits limits() {
        return input.limits();
    }

    public BasilRequest readRequest(byte[] document) throws BasilException {
        return read(new ByteArrayInputStream(document), BasilRequest.class);
    }

    public BasilRequest readRequest(InputStream in) throws BasilException {
        return read(in, BasilRequest.class);
    }

    public BasilResponse readResponse(byte[] document) throws BasilException {
        return read(new ByteArrayInputStream(document), BasilResponse.class);
    }

    public BasilResponse readResponse(InputStream in) throws BasilException {
        return read(in, BasilResponse.class);
    }

    /** Reads either kind of document: a {@link BasilRequest} or a {@link BasilResponse}. */
    public Object readDocument(InputStream in) throws BasilException {
        return read(in, Object.class);
    }

    /**
     * A hardened StAX reader over {@code in} with this codec's limits (DOCTYPE and entity references refused),
     * for streaming readers that must not build the whole tree, such as the inventory reader. The caller
     * closes it; closing does not close {@code in}.
     */
    public XMLStreamReader openStream(InputStream in) throws BasilException {
        try {
            return input.open(in);
        } catch (Exception e) {
            throw XmlInput.failure("invalid BASIL document", e);
        }
    }

    /** The {@link BasilException} for what a streaming reader met, with the parser's line:column when known. */
    public static BasilException streamFailure(String what, Throwable t) {
        return XmlInput.failure(what, t);
    }

    /** As {@link #streamFailure(String, Throwable)}, with the reader's place when the exception has none. */
    public static BasilException streamFailure(String what, Throwable t, XMLStreamReader reader) {
        return XmlInput.failure(what, t, reader);
    }

    public byte[] write(BasilRequest request) throws BasilException {
        return toBytes(request);
    }

    public byte[] write(BasilResponse response) throws BasilException {
        return toBytes(response);
    }

    public void write(BasilRequest request, OutputStream out) throws BasilException {
        marshal(request, out);
    }

    public void write(BasilResponse response, OutputStream out) throws BasilException {
        marshal(response, out);
    }

    private byte[] toBytes(Object root) throws BasilException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        marshal(root, out);
        return out.toByteArray();
    }

    private static void marshal(Object root, OutputStream out) throws BasilException {
        try {
            Marshaller m = context().createMarshaller();
            m.setProperty(Marshaller.JAXB_FRAGMENT, true);
            m.setProperty(Marshaller.JAXB_FORMATTED_OUTPUT, true);
            m.setProperty(Marshaller.JAXB_ENCODING, "US-ASCII");
            out.write(DECLARATION);
            m.marshal(root, out);
            out.write('\n');
        } catch (JAXBException | IOException | RuntimeException e) {
            throw new BasilException("cannot write " + root.getClass().getSimpleName() + ": " + describe(e), -1, -1, e);
        }
    }

    private <T> T read(InputStream in, Class<T> expected) throws BasilException {
        String what = expected == Object.class ? "BASIL document" : expected.getSimpleName();
        XMLStreamReader reader = null;
        FirstError firstError = new FirstError();
        try {
            reader = input.open(in);
            firstError.reader = reader;
            Unmarshaller u = context().createUnmarshaller();
            u.setEventHandler(firstError);
            Object root = CoordinatorPin.unmarshal(u, reader);
            if (firstError.event != null) {
                throw firstError.asException(what);
            }
            if (root instanceof jakarta.xml.bind.JAXBElement<?> e) {
                root = e.getValue();
            }
            if (!expected.isInstance(root) || !(root instanceof BasilRequest || root instanceof BasilResponse)) {
                throw new BasilException("not a " + what + ": the root element is <" + rootName(root) + ">", 1, 1, null);
            }
            return expected.cast(root);
        } catch (BasilException e) {
            throw e;
        } catch (Exception | StackOverflowError e) {
            if (firstError.event != null) {
                throw firstError.asException(what);
            }
            BasilException failure = XmlInput.failure("invalid " + what, e);
            if (failure.line() > 0 || reader == null) {
                throw failure;
            }
            // The binder threw without an event (e.g. a bad number): the reader still knows where it stood.
            javax.xml.stream.Location at = reader.getLocation();
            // Some number parsers throw without a message (found by BasilCodecFuzzTest: a NullPointerException here).
            String problem = e instanceof NumberFormatException
                    ? "invalid " + what + ": not a number"
                            + (e.getMessage() == null ? "" : ": " + e.getMessage().replace("For input string: ", ""))
                    : failure.getMessage();
            throw new BasilException(problem, at == null ? -1 : at.getLineNumber(), at == null ? -1 : at.getColumnNumber(), e);
        } finally {
            if (reader != null) {
                try {
                    reader.close();
                } catch (Exception ignored) {
                    // the document has already failed or been read; nothing more to report
                }
            }
        }
    }

    private static String rootName(Object root) {
        if (root instanceof org.w3c.dom.Element e) {
            return e.getTagName();
        }
        jakarta.xml.bind.annotation.XmlRootElement r = root == null ? null
                : root.getClass().getAnnotation(jakarta.xml.bind.annotation.XmlRootElement.class);
        return r != null ? r.name() : String.valueOf(root);
    }

    private static String describe(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c.getMessage() != null) {
                return c.getMessage();
            }
        }
        return e.getClass().getSimpleName();
    }

    static JAXBContext context() throws JAXBException {
        JAXBContext c = context;
        if (c == null) {
            synchronized (BasilCodec.class) {
                c = context;
                if (c == null) {
                    c = JAXBContext.newInstance(MODEL.toArray(new Class<?>[0]));
                    context = c;
                }
            }
        }
        return c;
    }

    /**
     * Keeps the first binding error (a number that is not a number, say) and stops there, so a bad value is
     * reported with its place instead of silently becoming null.
     */
    private static final class FirstError implements jakarta.xml.bind.ValidationEventHandler {
        ValidationEvent event;
        XMLStreamReader reader;
        int line = -1;
        int column = -1;

        @Override
        public boolean handleEvent(ValidationEvent e) {
            if (e.getSeverity() == ValidationEvent.WARNING) {
                return true;
            }
            if (event == null) {
                event = e;
                ValidationEventLocator l = e.getLocator();
                if (l != null && l.getLineNumber() > 0) {
                    line = l.getLineNumber();
                    column = l.getColumnNumber();
                } else if (reader != null && reader.getLocation() != null) {
                    line = reader.getLocation().getLineNumber();
                    column = reader.getLocation().getColumnNumber();
                }
            }
            return false;
        }

        BasilException asException(String what) {
            String msg = event.getMessage();
            if (msg == null && event.getLinkedException() != null) {
                msg = describe(event.getLinkedException());
            }
            Throwable linked = event.getLinkedException();
            if (linked != null) {
                BasilException fromParser = XmlInput.failure("invalid " + what, linked);
                if (fromParser.line() > 0 && line <= 0) {
                    return fromParser;
                }
                if (msg == null || msg.isBlank()) {
                    msg = fromParser.getMessage();
                }
            }
            if (linked instanceof NumberFormatException || (msg != null && msg.startsWith("For input string: "))) {
                msg = "not a number: " + msg.replace("For input string: ", "");
            }
            return new BasilException("invalid " + what + ": " + msg, line, column, linked);
        }
    }
}
