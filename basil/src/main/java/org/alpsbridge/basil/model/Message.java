package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlValue;

/** A {@code Message} of a response: severity {@code ERROR}, {@code WARNING} or {@code DEBUG}, and text. */
@XmlRootElement(name = "Message")
@XmlAccessorType(XmlAccessType.FIELD)
public final class Message {

    @XmlAttribute(name = "severity")
    private String severity;

    @XmlValue
    private String text;

    Message() {
    }

    public Message(String severity, String text) {
        this.severity = severity;
        this.text = text;
    }

    public String severity() {
        return severity;
    }

    /** The text as sent, surrounding white space included. */
    public String text() {
        return text == null ? "" : text;
    }
}
