package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;
import org.alpsbridge.basil.nodes.NidSet;

/**
 * The content of a QUERY(SUMMARY) response: the cheap up/down poll that, unlike INVENTORY, carries no
 * reservations. No real SUMMARY response has been published (Cray's basil.h declares only the element names
 * {@code Summary/@schedchangecount}, {@code NodeSummary}, {@code AccelSummary}, {@code Up}, {@code Down}), so
 * this class is <b>the one place that defines the shape alpsbridge emits and expects</b>:
 *
 * <pre>{@code
 * <Summary schedchangecount="42">
 *  <NodeSummary>
 *   <Up>1-5,8,10-11</Up>          <!-- ALPS NID range list of the nodes whose state is UP -->
 *   <Down>6-7,9</Down>            <!-- every other node: DOWN, UNAVAILABLE, ROUTING, SUSPECT, ADMIN, UNKNOWN -->
 *  </NodeSummary>
 *  <AccelSummary>                 <!-- only when some node has an accelerator -->
 *   <Up>1-5</Up>                  <!-- NIDs of nodes whose accelerators are all UP -->
 *   <Down>8</Down>                <!-- NIDs of nodes with an accelerator that is not UP -->
 *  </AccelSummary>
 * </Summary>
 * }</pre>
 *
 * Lists are written in canonical ascending form; an empty list is an empty element ({@code <Down/>}). Reading
 * is lenient: unknown attributes and children are kept (and written back), several {@code Up} or {@code Down}
 * elements are united, junk around the list is an error only when the list is asked for
 * ({@link NidList#nids()}). {@code schedchangecount} is the inventory's NodeArray {@code schedchangecount}: a
 * scheduler polls SUMMARY and fetches a full INVENTORY only when it changed.
 */
@XmlRootElement(name = "Summary")
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"nodeSummary", "accelSummary", "other"})
public final class Summary {

    @XmlAttribute(name = "schedchangecount")
    private Long schedchangecount;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "NodeSummary")
    private UpDown nodeSummary;
    @XmlElement(name = "AccelSummary")
    private UpDown accelSummary;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    Summary() {
    }

    /** The shape this project emits; {@code acceleratorsUp}/{@code acceleratorsDown} null leaves AccelSummary out. */
    public static Summary of(long schedchangecount, NidSet nodesUp, NidSet nodesDown, NidSet acceleratorsUp,
                             NidSet acceleratorsDown) {
        Summary s = new Summary();
        s.schedchangecount = schedchangecount;
        s.nodeSummary = UpDown.of(nodesUp, nodesDown);
        if (acceleratorsUp != null || acceleratorsDown != null) {
            s.accelSummary = UpDown.of(acceleratorsUp == null ? NidSet.empty() : acceleratorsUp,
                    acceleratorsDown == null ? NidSet.empty() : acceleratorsDown);
        }
        return s;
    }

    public Optional<Long> schedchangecount() {
        return Optional.ofNullable(schedchangecount);
    }

    /** {@code NodeSummary}: nodes up and down. */
    public Optional<UpDown> nodes() {
        return Optional.ofNullable(nodeSummary);
    }

    /** {@code AccelSummary}: nodes whose accelerators are up and down. */
    public Optional<UpDown> accelerators() {
        return Optional.ofNullable(accelSummary);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }

    public List<Object> otherElements() {
        return Lists.view(other);
    }
}
