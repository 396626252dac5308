package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/**
 * {@code Topology} (QUERY TOPOLOGY): {@code name} (e.g. {@code aries}) and a {@code FilterArray} of named
 * filters. Only the element names are public (basil.h, one Cobalt request); everything else a real response
 * carries is kept as unknown attributes and children.
 */
@XmlRootElement(name = "Topology")
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"filters", "other"})
public final class Topology {

    @XmlAttribute(name = "name")
    private String name;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElementWrapper(name = "FilterArray")
    @XmlElement(name = "Filter")
    private List<Filter> filters;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    Topology() {
    }

    public Topology(String name, List<String> filterNames) {
        this.name = name;
        this.filters = new ArrayList<>();
        for (String f : filterNames) {
            Filter x = new Filter();
            x.name = f;
            filters.add(x);
        }
    }

    public String name() {
        return name;
    }

    public List<String> filterNames() {
        List<String> out = new ArrayList<>();
        if (filters != null) {
            for (Filter f : filters) {
                out.add(f.name);
            }
        }
        return out;
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }

    public List<Object> otherElements() {
        return Lists.view(other);
    }

    @XmlAccessorType(XmlAccessType.FIELD)
    static final class Filter {
        @XmlAttribute(name = "name")
        String name;
        @XmlAnyAttribute
        Map<QName, String> otherAttributes;
        @XmlAnyElement(value = KeptElements.class)
        List<Object> other;
    }
}
