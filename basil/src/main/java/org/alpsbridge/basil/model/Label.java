package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlRootElement;
import java.util.Map;
import javax.xml.namespace.QName;

/** A node {@code Label}: name, type (HARD, SOFT) and disposition (ATTRACT, REPEL). */
@XmlRootElement(name = "Label")
@XmlAccessorType(XmlAccessType.FIELD)
public final class Label {

    @XmlAttribute(name = "name")
    private String name;
    @XmlAttribute(name = "type")
    private String type;
    @XmlAttribute(name = "disposition")
    private String disposition;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    Label() {
    }

    public Label(String name, String type, String disposition) {
        this.name = name;
        this.type = type;
        this.disposition = disposition;
    }

    public String name() {
        return name;
    }

    public String type() {
        return type;
    }

    public String disposition() {
        return disposition;
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
