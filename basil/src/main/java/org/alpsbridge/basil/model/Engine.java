package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlRootElement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/** The answer to QUERY(ENGINE): {@code name="ALPS"}, the engine version and, from 1.1+, {@code basil_support}. */
@XmlRootElement(name = "Engine")
@XmlAccessorType(XmlAccessType.FIELD)
public final class Engine {

    @XmlAttribute(name = "name")
    private String name;
    @XmlAttribute(name = "version")
    private String version;
    @XmlAttribute(name = "basil_support")
    private String basilSupport;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    Engine() {
    }

    /** The engine as ALPS writes it for a request in {@code protocol}: 1.0 has no {@code basil_support}. */
    public static Engine of(String protocol, String version, List<String> supported) {
        Engine e = new Engine();
        e.name = "ALPS";
        e.version = version;
        if (Protocols.atLeast(protocol, "1.1")) {
            e.basilSupport = String.join(",", supported);
        }
        return e;
    }

    public String name() {
        return name;
    }

    public String version() {
        return version;
    }

    /** The raw comma-separated {@code basil_support}, or null. */
    public String basilSupport() {
        return basilSupport;
    }

    /** The supported protocol versions, empty when the engine did not say. */
    public List<String> supportedProtocols() {
        return basilSupport == null || basilSupport.isBlank() ? List.of()
                : Arrays.stream(basilSupport.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }
}
