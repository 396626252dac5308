package org.alpsbridge.basil.codec;

import java.io.ByteArrayInputStream;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * What a document is, read from its first element or two without binding it: request or response,
 * protocol, method, QUERY type and (for responses) status. Costs microseconds even on a 200 MB
 * inventory, so the proxy can route and time a call before anyone parses it.
 *
 * @param request true for {@code BasilRequest}, false for {@code BasilResponse}
 * @param protocol the root's {@code protocol}, or null
 * @param method the method (request root or ResponseData), or null
 * @param type the QUERY type (request root, or the 1.7 ResponseData {@code type}), or null
 * @param status a response's {@code status}, or null
 */
public record Probe(boolean request, String protocol, String method, String type, String status) {

    private static final XmlInput INPUT = new XmlInput(Limits.DEFAULT);

    /** Sniffs {@code document}; fails when it is not XML, not well-formed up to its root, or not BASIL. */
    public static Probe of(byte[] document) throws BasilException {
        XMLStreamReader r = null;
        try {
            r = INPUT.open(new ByteArrayInputStream(document));
            nextElement(r);
            String root = r.getLocalName();
            String protocol = r.getAttributeValue(null, "protocol");
            if ("BasilRequest".equals(root)) {
                return new Probe(true, protocol, r.getAttributeValue(null, "method"), r.getAttributeValue(null, "type"), null);
            }
            if (!"BasilResponse".equals(root)) {
                throw new BasilException("not a BASIL document: the root element is <" + root + ">",
                        r.getLocation().getLineNumber(), r.getLocation().getColumnNumber(), null);
            }
            if (nextElement(r) && "ResponseData".equals(r.getLocalName())) {
                return new Probe(false, protocol, r.getAttributeValue(null, "method"), r.getAttributeValue(null, "type"),
                        r.getAttributeValue(null, "status"));
            }
            return new Probe(false, protocol, null, null, null);
        } catch (BasilException e) {
            throw e;
        } catch (Exception e) {
            throw XmlInput.failure("not a BASIL document", e, r);
        } finally {
            if (r != null) {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // sniffing is done; the rest of the document is not our concern here
                }
            }
        }
    }

    /** {@code QUERY/INVENTORY}, {@code RESERVE}, ...: the key operators see. */
    public String methodKey() {
        return "QUERY".equals(method) && type != null ? method + "/" + type : method;
    }

    private static boolean nextElement(XMLStreamReader r) throws XMLStreamException {
        while (r.hasNext()) {
            if (r.next() == XMLStreamConstants.START_ELEMENT) {
                return true;
            }
        }
        return false;
    }
}
