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
import org.w3c.dom.Element;

/**
 * The answer to RESERVE. 1.0 carries {@code admin_cookie}/{@code alloc_cookie}; "1.1+" lists the NIDs in
 * {@code ReservedNodeArray}; Cobalt's ≥1.6 documents carry a {@code ReservedNodes} range list instead.
 */
@XmlRootElement(name = "Reserved")
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"reservedNodes", "reservedNodesText", "otherElements"})
public final class Reserved {

    @XmlAttribute(name = "reservation_id")
    private Long reservationId;
    @XmlAttribute(name = "admin_cookie")
    private Long adminCookie;
    @XmlAttribute(name = "alloc_cookie")
    private Long allocCookie;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElementWrapper(name = "ReservedNodeArray")
    @XmlElement(name = "ReservedNode")
    private List<ReservedNode> reservedNodes;
    @XmlElement(name = "ReservedNodes")
    private String reservedNodesText;
    @XmlAnyElement(value = KeptElements.class)
    private List<Element> otherElements;

    Reserved() {
    }

    /** The RESERVE answer in the shape of {@code protocol}. */
    public static Reserved of(String protocol, long reservationId, List<Long> nids) {
        Reserved r = new Reserved();
        r.reservationId = reservationId;
        if (!Protocols.atLeast(protocol, "1.1")) {
            r.adminCookie = 0L;
            r.allocCookie = 0L;
        } else {
            r.reservedNodes = new ArrayList<>(nids.size());
            for (Long nid : nids) {
                r.reservedNodes.add(new ReservedNode(nid));
            }
        }
        return r;
    }

    public Long reservationId() {
        return reservationId;
    }

    public Long adminCookie() {
        return adminCookie;
    }

    public Long allocCookie() {
        return allocCookie;
    }

    /** The NIDs of {@code ReservedNodeArray}; empty for 1.0 and for the ≥1.6 text form. */
    public List<Long> nodeIds() {
        if (reservedNodes == null) {
            return List.of();
        }
        List<Long> out = new ArrayList<>(reservedNodes.size());
        for (ReservedNode n : reservedNodes) {
            out.add(n.nodeId);
        }
        return out;
    }

    /** The ≥1.6 {@code ReservedNodes} range-list text, or null. */
    public String reservedNodesText() {
        return reservedNodesText;
    }

    @XmlAccessorType(XmlAccessType.FIELD)
    static final class ReservedNode {
        @XmlAttribute(name = "node_id")
        Long nodeId;

        ReservedNode() {
        }

        ReservedNode(Long nodeId) {
            this.nodeId = nodeId;
        }
    }
}
