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
 * inside it, which is kept (not rejected, not lost) so the document survives a read-write cycle.
 */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlSeeAlso(Label.class)
final class LabelArray {

    @XmlMixed
    @XmlAnyElement(lax = true)
    private List<Object> content;

    LabelArray() {
    }

    LabelArray(List<Label> labels) {
        this.content = new ArrayList<>(labels);
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
