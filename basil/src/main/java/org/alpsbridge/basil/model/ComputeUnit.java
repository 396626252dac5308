package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/** A 1.3+ {@code ComputeUnit}: a core (a Bulldozer compute unit); its Processors are hardware threads. */
@XmlAccessorType(XmlAccessType.FIELD)
public final class ComputeUnit {

    @XmlAttribute(name = "ordinal")
    private Long ordinal;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElementWrapper(name = "ProcessorArray")
    @XmlElement(name = "Processor")
    private List<Processor> processors;

    ComputeUnit() {
    }

    public ComputeUnit(long ordinal, List<Processor> processors) {
        this.ordinal = ordinal;
        this.processors = processors;
    }

    /** The ordinal, local to the segment; {@code -1} when absent. */
    public long ordinal() {
        return ordinal == null ? -1 : ordinal;
    }

    public List<Processor> processors() {
        return Lists.view(processors);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
