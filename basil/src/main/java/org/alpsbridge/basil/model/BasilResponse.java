package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import javax.xml.namespace.QName;

/** A BASIL response document: {@code BasilResponse protocol} holding exactly one {@link ResponseData}. */
@XmlRootElement(name = "BasilResponse")
@XmlAccessorType(XmlAccessType.FIELD)
public final class BasilResponse {

    @XmlAttribute(name = "protocol")
    private String protocol;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "ResponseData")
    private ResponseData responseData;

    BasilResponse() {
    }

    public BasilResponse(String protocol, ResponseData responseData) {
        this.protocol = protocol;
        this.responseData = Objects.requireNonNull(responseData, "responseData");
    }

    /** A SUCCESS response of {@code method} carrying {@code content} (e.g. an {@link Engine}). */
    public static BasilResponse success(String protocol, Method method, Object content) {
        return new BasilResponse(protocol, ResponseData.success(method, content));
    }

    /** The echoed protocol; ALPS may send an empty string on failure. */
    public String protocol() {
        return protocol;
    }

    /** Null only for a document without a ResponseData (which {@code basil check} reports). */
    public ResponseData responseData() {
        return responseData;
    }

    public Map<QName, String> otherAttributes() {
        return otherAttributes == null ? Map.of() : Collections.unmodifiableMap(otherAttributes);
    }
}
