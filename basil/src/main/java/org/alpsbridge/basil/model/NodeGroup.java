package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlValue;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;
import org.alpsbridge.basil.nodes.NidSet;

/**
 * A 1.7 {@code Nodes} element of a {@link SystemInventory}: a group of identical nodes, their NIDs as the text
 * ({@code 12-15,18}). Role and state are lower case here ({@code batch}, {@code up}). The KNL attributes
 * {@code numa_cfg} and {@code hbm_cache_pct} may be empty strings, so they are kept as text.
 */
@XmlAccessorType(XmlAccessType.FIELD)
public final class NodeGroup {

    @XmlAttribute(name = "role")
    private String role;
    @XmlAttribute(name = "state")
    private String state;
    @XmlAttribute(name = "speed")
    private Long speed;
    @XmlAttribute(name = "numa_nodes")
    private Long numaNodes;
    @XmlAttribute(name = "dies")
    private Long dies;
    @XmlAttribute(name = "compute_units")
    private Long computeUnits;
    @XmlAttribute(name = "cpus_per_cu")
    private Long cpusPerCu;
    @XmlAttribute(name = "page_size_kb")
    private Long pageSizeKb;
    @XmlAttribute(name = "page_count")
    private Long pageCount;
    @XmlAttribute(name = "accels")
    private String accels;
    @XmlAttribute(name = "accel_state")
    private String accelState;
    @XmlAttribute(name = "numa_cfg")
    private String numaCfg;
    @XmlAttribute(name = "hbm_size_mb")
    private Long hbmSizeMb;
    @XmlAttribute(name = "hbm_cache_pct")
    private String hbmCachePct;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlValue
    private String nids;

    NodeGroup() {
    }

    /** A group of plain (non-KNL, accelerator-less) nodes. */
    public NodeGroup(String role, String state, long speedMhz, long numaNodes, long computeUnits, long cpusPerCu,
                     long pageSizeKb, long pageCount, NidSet nids) {
        this.role = role;
        this.state = state;
        this.speed = speedMhz;
        this.numaNodes = numaNodes;
        this.dies = 1L;
        this.computeUnits = computeUnits;
        this.cpusPerCu = cpusPerCu;
        this.pageSizeKb = pageSizeKb;
        this.pageCount = pageCount;
        this.nids = nids.toString();
    }

    /** Adds the accelerator attributes: the accelerator's name and its state ({@code up} or {@code down}). */
    public NodeGroup withAccelerator(String name, String state) {
        this.accels = name;
        this.accelState = state;
        return this;
    }

    /** Adds the KNL attributes: cluster mode ({@code quad}, ...), MCDRAM size and the share of it used as cache. */
    public NodeGroup withKnl(String numaCfg, long hbmSizeMb, String hbmCachePct) {
        this.numaCfg = numaCfg;
        this.hbmSizeMb = hbmSizeMb;
        this.hbmCachePct = hbmCachePct;
        return this;
    }

    public String role() {
        return role;
    }

    public String state() {
        return state;
    }

    public Optional<Long> speedMhz() {
        return Optional.ofNullable(speed);
    }

    public Optional<Long> numaNodes() {
        return Optional.ofNullable(numaNodes);
    }

    public Optional<Long> dies() {
        return Optional.ofNullable(dies);
    }

    /** Cores per node. */
    public Optional<Long> computeUnits() {
        return Optional.ofNullable(computeUnits);
    }

    /** Hardware threads per core. */
    public Optional<Long> cpusPerCu() {
        return Optional.ofNullable(cpusPerCu);
    }

    /** Node memory in KiB (page_size_kb × page_count), 0 when either is absent. */
    public long memoryKb() {
        return pageSizeKb == null || pageCount == null ? 0 : pageSizeKb * pageCount;
    }

    public Optional<String> accels() {
        return Optional.ofNullable(accels);
    }

    public Optional<String> accelState() {
        return Optional.ofNullable(accelState);
    }

    /** KNL cluster mode: "", a2a, snc2, snc4, hemi, quad. */
    public Optional<String> numaCfg() {
        return Optional.ofNullable(numaCfg);
    }

    public Optional<Long> hbmSizeMb() {
        return Optional.ofNullable(hbmSizeMb);
    }

    /** KNL memory mode: "", 0, 25, 50, 100. */
    public Optional<String> hbmCachePct() {
        return Optional.ofNullable(hbmCachePct);
    }

    /** The NID list text, stripped. */
    public String nidText() {
        return nids == null ? "" : nids.strip();
    }

    /** The NIDs. Throws NodeSyntaxException on a malformed list. */
    public NidSet nids() {
        return NidSet.parse(nidText());
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
