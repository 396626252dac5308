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
 * A {@code Processor}. 1.0–1.2: a CPU with {@code architecture} and {@code clock_mhz}; 1.3+: a hardware thread
 * with only an {@code ordinal} (local to its ComputeUnit). Allocations name the reservations holding it.
 */
@XmlAccessorType(XmlAccessType.FIELD)
public final class Processor {

    @XmlAttribute(name = "ordinal")
    private Long ordinal;
    @XmlAttribute(name = "architecture")
    private String architecture;
    @XmlAttribute(name = "clock_mhz")
    private Long clockMhz;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "ProcessorAllocation")
    private List<Allocation> allocations;

    Processor() {
    }

    /** A processor; {@code architecture} and {@code clockMhz} are {@code null} in the 1.3+ shape. */
    public Processor(long ordinal, String architecture, Long clockMhz, List<Allocation> allocations) {
        this.ordinal = ordinal;
        this.architecture = architecture;
        this.clockMhz = clockMhz;
        this.allocations = allocations == null || allocations.isEmpty() ? null : allocations;
    }

    /** The ordinal; {@code -1} when absent. */
    public long ordinal() {
        return ordinal == null ? -1 : ordinal;
    }

    /** 1.0–1.2 only. */
    public Optional<String> architecture() {
        return Optional.ofNullable(architecture);
    }

    /** 1.0–1.2 only. */
    public Optional<Long> clockMhz() {
        return Optional.ofNullable(clockMhz);
    }

    public List<Allocation> allocations() {
        return Lists.view(allocations);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
