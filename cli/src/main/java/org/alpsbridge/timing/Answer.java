package org.alpsbridge.timing;

import java.io.ByteArrayInputStream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import com.ctc.wstx.stax.WstxInputFactory;

/**
 * What the replay needs from a response: did it succeed, may a retry help, and the reservation id.
 * Read by a pull pass that stops at the first element that settles it, so a 12 MB inventory is not
 * bound into objects between timed calls.
 */
record Answer(boolean success, boolean transientFailure, String reservationId, String message) {

    private static final XMLInputFactory FACTORY = createFactory();

    private static XMLInputFactory createFactory() {
        XMLInputFactory f = new WstxInputFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        return f;
    }

    static Answer of(byte[] response) {
        String status = null;
        String errorClass = null;
        StringBuilder message = new StringBuilder();
        try {
            XMLStreamReader r = FACTORY.createXMLStreamReader(new ByteArrayInputStream(response));
            try {
                while (r.hasNext()) {
                    if (r.next() != XMLStreamConstants.START_ELEMENT) {
                        continue;
                    }
                    String element = r.getLocalName();
                    if (element.equals("ResponseData")) {
                        status = r.getAttributeValue(null, "status");
                        errorClass = r.getAttributeValue(null, "error_class");
                    } else if (element.equals("Message")) {
                        message.append(r.getElementText()).append(' ');
                    } else if ("SUCCESS".equals(status)) {
                        // The first element inside a successful ResponseData is the payload: it alone settles the answer.
                        return new Answer(true, false, r.getAttributeValue(null, "reservation_id"), "");
                    }
                }
            } finally {
                r.close();
            }
        } catch (XMLStreamException e) {
            return new Answer(false, true, null, "unreadable response: " + e.getMessage());
        }
        boolean ok = "SUCCESS".equals(status);
        String text = status == null ? "no ResponseData element in the response" : message.toString().trim();
        return new Answer(ok, !ok && !"PERMANENT".equals(errorClass), null, text);
    }
}
