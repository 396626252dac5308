package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlMixed;
import jakarta.xml.bind.annotation.XmlSeeAlso;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code LabelArray}. Mixed content on purpose: a Cray sample carries junk text such as {@code (Anker: )}
 * inside it, which is kept (not rejected, not lost) so the document survives a read-write cycle. The
 * indentation around the labels is not content: it is dropped on reading (and junk text stripped of it),
 * or every read-write cycle would add the writer's indentation to the document's own (found by
 * BasilCodecFuzzTest: write(read(write(x))) grew by the indentation of each LabelArray).
 */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlSeeAlso(Label.class)
final class LabelArray {

    @XmlMixed
    @XmlAnyElement(lax = true, value = KeptElements.class)
    private List<Object> content;

    LabelArray() {
    }

    LabelArray(List<Label> labels) {
        this.content = new ArrayList<>(labels);
    }

    /** JAXB's callback once the element is read. */
    @SuppressWarnings("unused")
    private void afterUnmarshal(jakarta.xml.bind.Unmarshaller unmarshaller, Object parent) {
        if (content == null) {
            return;
        }
        List<Object> kept = new ArrayList<>(content.size());
        for (Object o : content) {
            if (o instanceof String text) {
                if (!text.isBlank()) {
                    kept.add(text.strip());
                }
            } else {
                kept.add(o);
            }
        }
        content = kept;
    }

    List<Label> labels() {
        if (content == null) {
            return List.of();
        }
        List<Label> labels = new ArrayList<>();
        for (Object o : content) {
            if (o instanceof Label label) {
                labels.add(label);
            }
        }
        return labels;
    }
}
