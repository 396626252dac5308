package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/** A {@code Memory} bank: {@code type} (OS, HUGEPAGE, VIRTUAL; others kept), page size in KiB and page count. */
@XmlAccessorType(XmlAccessType.FIELD)
public final class Memory {

    @XmlAttribute(name = "type")
    private String type;
    @XmlAttribute(name = "page_size_kb")
    private Long pageSizeKb;
    @XmlAttribute(name = "page_count")
    private Long pageCount;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "MemoryAllocation")
    private List<Allocation> allocations;

    Memory() {
    }

    public Memory(String type, long pageSizeKb, long pageCount, List<Allocation> allocations) {
        this.type = type;
        this.pageSizeKb = pageSizeKb;
        this.pageCount = pageCount;
        this.allocations = allocations == null || allocations.isEmpty() ? null : allocations;
    }

    public String type() {
        return type;
    }

    /** Page size in KiB; {@code 0} when absent. */
    public long pageSizeKb() {
        return pageSizeKb == null ? 0 : pageSizeKb;
    }

    /** Page count; {@code 0} when absent. */
    public long pageCount() {
        return pageCount == null ? 0 : pageCount;
    }

    public List<Allocation> allocations() {
        return Lists.view(allocations);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
