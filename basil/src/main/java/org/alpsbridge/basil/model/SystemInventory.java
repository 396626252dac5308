package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/**
 * The {@code System} content of a 1.7 QUERY(SYSTEM) response: groups of identical nodes ({@link NodeGroup},
 * element {@code Nodes}) with the KNL attributes. Named {@code SystemInventory} so as not to shadow
 * {@code java.lang.System}.
 */
@XmlRootElement(name = "System")
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"groups", "other"})
public final class SystemInventory {

    @XmlAttribute(name = "mpp_host")
    private String mppHost;
    @XmlAttribute(name = "timestamp")
    private Long timestamp;
    @XmlAttribute(name = "cpcu")
    private Long cpcu;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "Nodes")
    private List<NodeGroup> groups;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    SystemInventory() {
    }

    public SystemInventory(String mppHost, Long timestamp, Long cpcu, List<NodeGroup> groups) {
        this.mppHost = mppHost;
        this.timestamp = timestamp;
        this.cpcu = cpcu;
        this.groups = groups;
    }

    public Optional<String> mppHost() {
        return Optional.ofNullable(mppHost);
    }

    public Optional<Long> timestamp() {
        return Optional.ofNullable(timestamp);
    }

    public Optional<Long> cpcu() {
        return Optional.ofNullable(cpcu);
    }

    public List<NodeGroup> groups() {
        return Lists.view(groups);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
