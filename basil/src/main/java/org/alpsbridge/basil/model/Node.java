package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/**
 * An inventory {@code Node} in whichever shape the document used. Every level is optional, because real and
 * fixture documents mix them:
 * <ul>
 *   <li>1.0: {@code ProcessorArray}, {@code MemoryArray}, {@code LabelArray} directly on the node;</li>
 *   <li>1.1/1.2: {@code SegmentArray} (NUMA nodes), and from 1.2 {@code AcceleratorArray};</li>
 *   <li>1.3+: {@code SocketArray} → Segment → ComputeUnit → Processor; on CLE 5.2 before UP03 the
 *       {@code MemoryArray} sits on the node beside the {@code SocketArray}.</li>
 * </ul>
 * The version-neutral view ({@code org.alpsbridge.basil.inventory.NodeView}) flattens these differences.
 */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"sockets", "segments", "processors", "memory", "labels", "accelerators", "other"})
public final class Node {

    @XmlAttribute(name = "node_id")
    private Long nodeId;
    @XmlAttribute(name = "name")
    private String name;
    @XmlAttribute(name = "architecture")
    private String architecture;
    @XmlAttribute(name = "role")
    private String role;
    @XmlAttribute(name = "state")
    private String state;
    @XmlAttribute(name = "router_id")
    private Long routerId;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    @XmlElementWrapper(name = "SocketArray")
    @XmlElement(name = "Socket")
    private List<Socket> sockets;
    @XmlElementWrapper(name = "SegmentArray")
    @XmlElement(name = "Segment")
    private List<Segment> segments;
    @XmlElementWrapper(name = "ProcessorArray")
    @XmlElement(name = "Processor")
    private List<Processor> processors;
    @XmlElementWrapper(name = "MemoryArray")
    @XmlElement(name = "Memory")
    private List<Memory> memory;
    @XmlElement(name = "LabelArray")
    private LabelArray labels;
    @XmlElementWrapper(name = "AcceleratorArray")
    @XmlElement(name = "Accelerator")
    private List<Accelerator> accelerators;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    Node() {
    }

    /** A node with its identity; add its parts with the {@code with…} methods. */
    public Node(long nodeId, String name, String architecture, String role, String state, Long routerId) {
        this.nodeId = nodeId;
        this.name = name;
        this.architecture = architecture;
        this.role = role;
        this.state = state;
        this.routerId = routerId;
    }

    public Node withSockets(List<Socket> value) {
        this.sockets = value;
        return this;
    }

    public Node withSegments(List<Segment> value) {
        this.segments = value;
        return this;
    }

    public Node withProcessors(List<Processor> value) {
        this.processors = value;
        return this;
    }

    public Node withMemory(List<Memory> value) {
        this.memory = value;
        return this;
    }

    public Node withLabels(List<Label> value) {
        this.labels = value == null ? null : new LabelArray(value);
        return this;
    }

    public Node withAccelerators(List<Accelerator> value) {
        this.accelerators = value;
        return this;
    }

    /** {@code node_id}, the NID (unsigned 32-bit); {@code -1} when the document left it out. */
    public long nodeId() {
        return nodeId == null ? -1 : nodeId;
    }

    /** The cname, e.g. {@code c0-0c1s0n1}. */
    public String name() {
        return name;
    }

    /** {@code XT} or {@code X2}; XE and XC systems report {@code XT}. */
    public String architecture() {
        return architecture;
    }

    /** {@code BATCH} or {@code INTERACTIVE} (others kept as sent). */
    public String role() {
        return role;
    }

    /** {@code UP}, {@code DOWN}, {@code UNAVAILABLE}, {@code ROUTING}, {@code SUSPECT}, {@code ADMIN} or {@code UNKNOWN}. */
    public String state() {
        return state;
    }

    /** {@code router_id}: present on Gemini (XE) nodes in "1.1+" and 1.2. */
    public Optional<Long> routerId() {
        return Optional.ofNullable(routerId);
    }

    /** 1.3+ sockets; empty for older shapes. */
    public List<Socket> sockets() {
        return Lists.view(sockets);
    }

    /** 1.1/1.2 segments directly on the node; empty for 1.0 and 1.3 shapes. */
    public List<Segment> segments() {
        return Lists.view(segments);
    }

    /** 1.0 processors directly on the node. */
    public List<Processor> processors() {
        return Lists.view(processors);
    }

    /** Memory directly on the node (1.0, and 1.3 on CLE 5.2 before UP03). */
    public List<Memory> memory() {
        return Lists.view(memory);
    }

    /** Labels directly on the node (1.0, and hybrid fixtures). */
    public List<Label> labels() {
        return labels == null ? List.of() : labels.labels();
    }

    public List<Accelerator> accelerators() {
        return Lists.view(accelerators);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }

    public List<Object> otherElements() {
        return Lists.view(other);
    }
}
