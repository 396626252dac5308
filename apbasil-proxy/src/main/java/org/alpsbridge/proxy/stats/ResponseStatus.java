package org.alpsbridge.proxy.stats;

import java.io.ByteArrayInputStream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Whether a response document reports SUCCESS, read from the {@code ResponseData} start tag only: the
 * reader stops there, so a 200 MB inventory costs a few hundred bytes of parsing.
 */
final class ResponseStatus {

    private static final XMLInputFactory FACTORY = XMLInputFactory.newFactory();

    static {
        FACTORY.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        FACTORY.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    }

    private ResponseStatus() {
    }

    /** True only for a well-formed start up to {@code <ResponseData status="SUCCESS">}; anything else is a failure. */
    static boolean succeeded(byte[] response) {
        try {
            XMLStreamReader r = FACTORY.createXMLStreamReader(new ByteArrayInputStream(response));
            try {
                while (r.hasNext()) {
                    if (r.next() == XMLStreamConstants.START_ELEMENT && "ResponseData".equals(r.getLocalName())) {
                        return "SUCCESS".equals(r.getAttributeValue(null, "status"));
                    }
                }
                return false;
            } finally {
                r.close();
            }
        } catch (XMLStreamException | RuntimeException e) {
            return false;
        }
    }
}
