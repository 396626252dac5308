package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/**
 * A {@code ProcessorAllocation}, {@code MemoryAllocation} or {@code AcceleratorAllocation}: the reservation
 * holding the resource, and for memory the number of pages it holds.
 */
@XmlAccessorType(XmlAccessType.FIELD)
public final class Allocation {

    @XmlAttribute(name = "reservation_id")
    private Long reservationId;
    @XmlAttribute(name = "page_count")
    private Long pageCount;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    Allocation() {
    }

    /** An allocation; {@code pageCount} only for memory, {@code null} otherwise. */
    public Allocation(long reservationId, Long pageCount) {
        this.reservationId = reservationId;
        this.pageCount = pageCount;
    }

    /** {@code reservation_id}; {@code 0} (never a valid id) when absent. */
    public long reservationId() {
        return reservationId == null ? 0 : reservationId;
    }

    /** Pages held, for a MemoryAllocation. */
    public Optional<Long> pageCount() {
        return Optional.ofNullable(pageCount);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
