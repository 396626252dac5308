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
 * A {@code Segment} (a NUMA node). In 1.1/1.2 it holds Processors directly; in 1.3+ it holds
 * ComputeUnits, each holding Processors (hardware threads). Some fixtures omit the ordinal.
 */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"computeUnits", "processors", "memory", "labels", "other"})
public final class Segment {

    @XmlAttribute(name = "ordinal")
    private Long ordinal;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElementWrapper(name = "ComputeUnitArray")
    @XmlElement(name = "ComputeUnit")
    private List<ComputeUnit> computeUnits;
    @XmlElementWrapper(name = "ProcessorArray")
    @XmlElement(name = "Processor")
    private List<Processor> processors;
    @XmlElementWrapper(name = "MemoryArray")
    @XmlElement(name = "Memory")
    private List<Memory> memory;
    @XmlElement(name = "LabelArray")
    private LabelArray labels;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    Segment() {
    }

    public Segment(Long ordinal) {
        this.ordinal = ordinal;
    }

    public Segment withComputeUnits(List<ComputeUnit> value) {
        this.computeUnits = value;
        return this;
    }

    public Segment withProcessors(List<Processor> value) {
        this.processors = value;
        return this;
    }

    public Segment withMemory(List<Memory> value) {
        this.memory = value;
        return this;
    }

    public Segment withLabels(List<Label> value) {
        this.labels = value == null ? null : new LabelArray(value);
        return this;
    }

    /** The ordinal, absent in some fixtures. */
    public Optional<Long> ordinal() {
        return Optional.ofNullable(ordinal);
    }

    /** 1.3+ compute units (cores). */
    public List<ComputeUnit> computeUnits() {
        return Lists.view(computeUnits);
    }

    /** 1.1/1.2 processors (one per core, no hardware-thread grouping). */
    public List<Processor> processors() {
        return Lists.view(processors);
    }

    public List<Memory> memory() {
        return Lists.view(memory);
    }

    public List<Label> labels() {
        return labels == null ? List.of() : labels.labels();
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
