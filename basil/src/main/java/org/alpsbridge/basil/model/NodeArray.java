package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/**
 * {@code NodeArray}: the nodes, with {@code changecount} (1.2+, counts changes to node data other than
 * allocations) and {@code schedchangecount} (1.3+, never above changecount).
 */
@XmlAccessorType(XmlAccessType.FIELD)
public final class NodeArray {

    @XmlAttribute(name = "changecount")
    private Long changecount;
    @XmlAttribute(name = "schedchangecount")
    private Long schedchangecount;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "Node")
    private List<Node> nodes;

    NodeArray() {
    }

    public NodeArray(Long changecount, Long schedchangecount, List<Node> nodes) {
        this.changecount = changecount;
        this.schedchangecount = schedchangecount;
        this.nodes = nodes;
    }

    public Optional<Long> changecount() {
        return Optional.ofNullable(changecount);
    }

    public Optional<Long> schedchangecount() {
        return Optional.ofNullable(schedchangecount);
    }

    public List<Node> nodes() {
        return Lists.view(nodes);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
