package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlAttribute;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/**
 * {@code ResponseData}: status, method, error class and source, and its children in document order —
 * {@link Message}s (which may come before the payload) and the method's content ({@link Engine},
 * {@link Reserved}, {@code Inventory}, ...). Children this model does not know are kept as DOM elements.
 */
@XmlAccessorType(XmlAccessType.FIELD)
public final class ResponseData {

    @XmlAttribute(name = "status")
    private String status;
    @XmlAttribute(name = "method")
    private String method;
    @XmlAttribute(name = "type")
    private String type;
    @XmlAttribute(name = "error_class")
    private String errorClass;
    @XmlAttribute(name = "error_source")
    private String errorSource;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlAnyElement(lax = true, value = KeptElements.class)
    private List<Object> children;

    ResponseData() {
    }

    /** A SUCCESS with one content element. */
    public static ResponseData success(Method method, Object content) {
        ResponseData d = new ResponseData();
        d.status = Status.SUCCESS.name();
        d.method = method.name();
        d.children = new ArrayList<>(1);
        if (content != null) {
            d.children.add(content);
        }
        return d;
    }

    /** A FAILURE with one ERROR message. */
    public static ResponseData failure(Method method, ErrorClass errorClass, String errorSource, String message) {
        ResponseData d = new ResponseData();
        d.status = Status.FAILURE.name();
        d.method = method.name();
        d.errorClass = errorClass.name();
        d.errorSource = errorSource;
        d.children = new ArrayList<>(List.of(new Message("ERROR", message)));
        return d;
    }

    /** Returns a copy with the 1.7 {@code type} attribute set (the echoed QUERY type). */
    public ResponseData withType(String queryType) {
        ResponseData d = copy();
        d.type = queryType;
        return d;
    }

    /** Returns a copy with {@code message} added before the content, as ALPS puts DEBUG messages. */
    public ResponseData withMessageFirst(Message message) {
        ResponseData d = copy();
        d.children = new ArrayList<>(children());
        d.children.add(0, message);
        return d;
    }

    private ResponseData copy() {
        ResponseData d = new ResponseData();
        d.status = status;
        d.method = method;
        d.type = type;
        d.errorClass = errorClass;
        d.errorSource = errorSource;
        d.otherAttributes = otherAttributes;
        d.children = children;
        return d;
    }

    /** The status, or null when the attribute is missing or not SUCCESS/FAILURE. */
    public Status status() {
        for (Status s : Status.values()) {
            if (s.name().equals(status)) {
                return s;
            }
        }
        return null;
    }

    public boolean isSuccess() {
        return Status.SUCCESS.name().equals(status);
    }

    /** The echoed method; ALPS sends {@code UNDEFINED} on some failures. */
    public Method method() {
        return Method.parse(method);
    }

    /** The 1.7 {@code type}, or null. */
    public String type() {
        return type;
    }

    /** The error class, or null (absent, as in some hand-made FAILURE fixtures, or unknown). */
    public ErrorClass errorClass() {
        for (ErrorClass c : ErrorClass.values()) {
            if (c.name().equals(errorClass)) {
                return c;
            }
        }
        return null;
    }

    /** {@code INTERNAL}, {@code SYSTEM}, {@code PARSER}, {@code SYNTAX}, {@code BACKEND}, or null. */
    public String errorSource() {
        return errorSource;
    }

    public List<Message> messages() {
        List<Message> out = new ArrayList<>();
        for (Object c : children()) {
            if (c instanceof Message m) {
                out.add(m);
            }
        }
        return out;
    }

    /** The messages' texts, trimmed, joined with "; " — what a log line shows. */
    public String messageText() {
        StringBuilder sb = new StringBuilder();
        for (Message m : messages()) {
            if (sb.length() > 0) {
                sb.append("; ");
            }
            sb.append(m.text().strip());
        }
        return sb.toString();
    }

    /** The first child of the given model type. */
    public <T> Optional<T> content(Class<T> type) {
        for (Object c : children()) {
            if (type.isInstance(c)) {
                return Optional.of(type.cast(c));
            }
        }
        return Optional.empty();
    }

    /** The children other than messages: model objects, or DOM elements for what the model does not know. */
    public List<Object> contents() {
        List<Object> out = new ArrayList<>();
        for (Object c : children()) {
            if (!(c instanceof Message)) {
                out.add(c);
            }
        }
        return out;
    }

    /** All children in document order. */
    public List<Object> children() {
        return children == null ? List.of() : Collections.unmodifiableList(children);
    }

    public Map<QName, String> otherAttributes() {
        return otherAttributes == null ? Map.of() : Collections.unmodifiableMap(otherAttributes);
    }
}
