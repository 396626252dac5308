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
import javax.xml.namespace.QName;

/** A 1.3+ {@code Socket}: it carries the {@code architecture} and {@code clock_mhz} that 1.0–1.2 put on each Processor. */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"segments", "other"})
public final class Socket {

    @XmlAttribute(name = "ordinal")
    private Long ordinal;
    @XmlAttribute(name = "architecture")
    private String architecture;
    @XmlAttribute(name = "clock_mhz")
    private Long clockMhz;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElementWrapper(name = "SegmentArray")
    @XmlElement(name = "Segment")
    private List<Segment> segments;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    Socket() {
    }

    public Socket(long ordinal, String architecture, Long clockMhz, List<Segment> segments) {
        this.ordinal = ordinal;
        this.architecture = architecture;
        this.clockMhz = clockMhz;
        this.segments = segments;
    }

    /** The ordinal; {@code -1} when absent. */
    public long ordinal() {
        return ordinal == null ? -1 : ordinal;
    }

    /** {@code x86_64}, {@code cray_x2} or {@code aarch64}. */
    public String architecture() {
        return architecture;
    }

    /** Clock in MHz; {@code 0} when absent. */
    public long clockMhz() {
        return clockMhz == null ? 0 : clockMhz;
    }

    public List<Segment> segments() {
        return Lists.view(segments);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
