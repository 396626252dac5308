package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/** A 1.2+ {@code Accelerator} (GPU) of a node: ordinal, type, state (UP, DOWN), family, memory and clock. */
@XmlAccessorType(XmlAccessType.FIELD)
public final class Accelerator {

    @XmlAttribute(name = "ordinal")
    private Long ordinal;
    @XmlAttribute(name = "type")
    private String type;
    @XmlAttribute(name = "state")
    private String state;
    @XmlAttribute(name = "family")
    private String family;
    @XmlAttribute(name = "memory_mb")
    private Long memoryMb;
    @XmlAttribute(name = "clock_mhz")
    private Long clockMhz;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "AcceleratorAllocation")
    private List<Allocation> allocations;

    Accelerator() {
    }

    public Accelerator(long ordinal, String type, String state, String family, long memoryMb, long clockMhz,
                       List<Allocation> allocations) {
        this.ordinal = ordinal;
        this.type = type;
        this.state = state;
        this.family = family;
        this.memoryMb = memoryMb;
        this.clockMhz = clockMhz;
        this.allocations = allocations == null || allocations.isEmpty() ? null : allocations;
    }

    public long ordinal() {
        return ordinal == null ? -1 : ordinal;
    }

    public String type() {
        return type;
    }

    public String state() {
        return state;
    }

    public String family() {
        return family;
    }

    public long memoryMb() {
        return memoryMb == null ? 0 : memoryMb;
    }

    public long clockMhz() {
        return clockMhz == null ? 0 : clockMhz;
    }

    public List<Allocation> allocations() {
        return Lists.view(allocations);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
