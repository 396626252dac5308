package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.W3CDomHandler;
import javax.xml.transform.dom.DOMResult;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * How elements this model does not know are kept (every {@code @XmlAnyElement}): as DOM, so a document a real
 * ALPS wrote survives a read-write cycle, but without the indentation between their child elements. That
 * indentation is layout, not content, and the writer indents anew: kept, it grew by one level on every
 * cycle (found by BasilCodecFuzzTest: write(read(write(x))) != write(x) for a request with an unknown element).
 * Between child elements, text that is more than white space is kept without the white space around it (which
 * the writer's indentation would otherwise join, and grow); an element's whole text is kept as it is.
 */
final class KeptElements extends W3CDomHandler {

    @Override
    public Element getElement(DOMResult r) {
        Element e = super.getElement(r);
        stripIndentation(e);
        return e;
    }

    private static void stripIndentation(Element e) {
        boolean hasElementChild = false;
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c.getNodeType() == Node.ELEMENT_NODE) {
                hasElementChild = true;
                stripIndentation((Element) c);
            }
        }
        if (!hasElementChild) {
            return;
        }
        for (Node c = e.getFirstChild(); c != null; ) {
            Node next = c.getNextSibling();
            if (c.getNodeType() == Node.TEXT_NODE) {
                String text = c.getNodeValue().strip();
                if (text.isEmpty()) {
                    e.removeChild(c);
                } else {
                    c.setNodeValue(text);
                }
            }
            c = next;
        }
    }
}
