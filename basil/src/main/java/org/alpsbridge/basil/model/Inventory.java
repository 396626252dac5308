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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/**
 * The content of a QUERY(INVENTORY) response, as the document has it: {@code Inventory} → {@code NodeArray}
 * and {@code ReservationArray}. This is the faithful document model (it round-trips); callers that want the
 * nodes without caring about the protocol version use {@code org.alpsbridge.basil.inventory.Inventories}.
 *
 * <p>{@code mpp_host} and {@code timestamp} appear from "1.1+" (CLE 3.x), {@code cpcu} in 1.7; earlier versions
 * carry no attributes. Unknown attributes and children are kept, so a document from a newer ALPS survives a
 * read-write cycle.
 */
@XmlRootElement(name = "Inventory")
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"nodeArray", "reservations", "other"})
public final class Inventory {

    @XmlAttribute(name = "mpp_host")
    private String mppHost;
    @XmlAttribute(name = "timestamp")
    private Long timestamp;
    @XmlAttribute(name = "cpcu")
    private Long cpcu;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    @XmlElement(name = "NodeArray")
    private NodeArray nodeArray;
    @XmlElementWrapper(name = "ReservationArray")
    @XmlElement(name = "Reservation")
    private List<Reservation> reservations;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    Inventory() {
    }

    /** An inventory with the given parts; {@code null} leaves an attribute or array out of the document. */
    public Inventory(String mppHost, Long timestamp, NodeArray nodeArray, List<Reservation> reservations) {
        this.mppHost = mppHost;
        this.timestamp = timestamp;
        this.nodeArray = nodeArray;
        this.reservations = reservations;
    }

    public Optional<String> mppHost() {
        return Optional.ofNullable(mppHost);
    }

    public Optional<Long> timestamp() {
        return Optional.ofNullable(timestamp);
    }

    /** {@code cpcu} (1.7); its meaning is not documented anywhere public. */
    public Optional<Long> cpcu() {
        return Optional.ofNullable(cpcu);
    }

    /** The {@code NodeArray}; absent when a reservations-only inventory was asked for. */
    public Optional<NodeArray> nodeArray() {
        return Optional.ofNullable(nodeArray);
    }

    /** The nodes of the {@code NodeArray}, empty when there is none. */
    public List<Node> nodes() {
        return nodeArray == null ? List.of() : nodeArray.nodes();
    }

    public List<Reservation> reservations() {
        return Lists.view(reservations);
    }

    /** Whether the document had a {@code ReservationArray} (possibly empty). */
    public boolean hasReservationArray() {
        return reservations != null;
    }

    /** Attributes this model does not know, by name. */
    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }

    /** Child elements this model does not know, as DOM elements. */
    public List<Object> otherElements() {
        return Lists.view(other);
    }
}
