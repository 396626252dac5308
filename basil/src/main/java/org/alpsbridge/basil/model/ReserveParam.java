package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/**
 * One {@code ReserveParam} of a RESERVE request: a homogeneous group of processing elements (PEs).
 *
 * <p>Optional numeric attributes are {@code null} when absent; BASIL treats an absent or zero depth,
 * nppn, npps, nspn or nppcu as "the default". Counts are {@code long}: node and PE counts of large
 * machines must never wrap (the seeds' 2047-node bug came from a 16-bit field).
 */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(name = "ReserveParam", propOrder = {"memoryParams", "labelParams", "nodeParams", "accelParams"})
public final class ReserveParam {

    @XmlAttribute(name = "architecture")
    private String architecture;
    @XmlAttribute(name = "width")
    private Long width;
    @XmlAttribute(name = "depth")
    private Long depth;
    @XmlAttribute(name = "nppn")
    private Long nppn;
    @XmlAttribute(name = "npps")
    private Long npps;
    @XmlAttribute(name = "nspn")
    private Long nspn;
    @XmlAttribute(name = "nppcu")
    private Long nppcu;
    @XmlAttribute(name = "segments")
    private String segments;
    @XmlAttribute(name = "reservation_mode")
    private String reservationMode;
    @XmlAttribute(name = "gpc_mode")
    private String gpcMode;
    @XmlAttribute(name = "p-state")
    private String pState;
    @XmlAttribute(name = "p-governor")
    private String pGovernor;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    @XmlElementWrapper(name = "MemoryParamArray")
    @XmlElement(name = "MemoryParam")
    private List<MemoryParam> memoryParams;
    @XmlElementWrapper(name = "LabelParamArray")
    @XmlElement(name = "LabelParam")
    private List<LabelParam> labelParams;
    @XmlElementWrapper(name = "NodeParamArray")
    @XmlElement(name = "NodeParam")
    private List<String> nodeParams;
    @XmlElementWrapper(name = "AccelParamArray")
    @XmlElement(name = "AccelParam")
    private List<AccelParam> accelParams;

    ReserveParam() {
    }

    public static Builder builder() {
        return new Builder();
    }

    public String architecture() {
        return architecture;
    }

    /** Total PEs (aprun -n); required by ALPS. */
    public Long width() {
        return width;
    }

    /** CPUs per PE (aprun -d). */
    public Long depth() {
        return depth;
    }

    /** PEs per node (aprun -N). */
    public Long nppn() {
        return nppn;
    }

    /** PEs per segment (aprun -S). */
    public Long npps() {
        return npps;
    }

    /** Segments per node (aprun -sn). */
    public Long nspn() {
        return nspn;
    }

    /** BASIL 1.3+: processors used per compute unit (aprun -j); 0 lets ALPS choose. */
    public Long nppcu() {
        return nppcu;
    }

    public String segments() {
        return segments;
    }

    public String reservationMode() {
        return reservationMode;
    }

    public String gpcMode() {
        return gpcMode;
    }

    public String pState() {
        return pState;
    }

    public String pGovernor() {
        return pGovernor;
    }

    /** Attributes this model does not know, kept so a document round-trips. */
    public Map<QName, String> otherAttributes() {
        return otherAttributes == null ? Map.of() : Collections.unmodifiableMap(otherAttributes);
    }

    public List<MemoryParam> memoryParams() {
        return unmodifiable(memoryParams);
    }

    public List<LabelParam> labelParams() {
        return unmodifiable(labelParams);
    }

    /** The texts of the {@code NodeParam} elements: NID range lists such as {@code 1-5,8}. */
    public List<String> nodeParams() {
        return unmodifiable(nodeParams);
    }

    public List<AccelParam> accelParams() {
        return unmodifiable(accelParams);
    }

    static <T> List<T> unmodifiable(List<T> list) {
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    /** {@code MemoryParam}: {@code type} (OS, HUGEPAGE, VIRTUAL) and {@code size_mb}, the memory per PE in MB. */
    @XmlAccessorType(XmlAccessType.FIELD)
    public static final class MemoryParam {
        @XmlAttribute(name = "type")
        private String type;
        @XmlAttribute(name = "size_mb")
        private Long sizeMb;

        MemoryParam() {
        }

        public MemoryParam(String type, long sizeMb) {
            this.type = type;
            this.sizeMb = sizeMb;
        }

        public String type() {
            return type;
        }

        public Long sizeMb() {
            return sizeMb;
        }
    }

    /** {@code LabelParam}: a node label the reservation must (HARD) or should (SOFT) attract or repel. */
    @XmlAccessorType(XmlAccessType.FIELD)
    public static final class LabelParam {
        @XmlAttribute(name = "name")
        private String name;
        @XmlAttribute(name = "type")
        private String type;
        @XmlAttribute(name = "disposition")
        private String disposition;

        LabelParam() {
        }

        public LabelParam(String name, String type, String disposition) {
            this.name = name;
            this.type = type;
            this.disposition = disposition;
        }

        public String name() {
            return name;
        }

        public String type() {
            return type;
        }

        public String disposition() {
            return disposition;
        }
    }

    /** {@code AccelParam} (1.2+): {@code type="GPU"}, optional {@code family} and {@code memory_mb}. */
    @XmlAccessorType(XmlAccessType.FIELD)
    public static final class AccelParam {
        @XmlAttribute(name = "type")
        private String type;
        @XmlAttribute(name = "family")
        private String family;
        @XmlAttribute(name = "memory_mb")
        private Long memoryMb;

        AccelParam() {
        }

        public AccelParam(String type, String family, Long memoryMb) {
            this.type = type;
            this.family = family;
            this.memoryMb = memoryMb;
        }

        public String type() {
            return type;
        }

        public String family() {
            return family;
        }

        public Long memoryMb() {
            return memoryMb;
        }
    }

    /** Builds a ReserveParam; architecture defaults to {@code XT}, as every client sent. */
    public static final class Builder {
        private final ReserveParam p = new ReserveParam();

        Builder() {
            p.architecture = "XT";
        }

        public Builder architecture(String v) {
            p.architecture = v;
            return this;
        }

        public Builder width(long v) {
            p.width = v;
            return this;
        }

        public Builder depth(long v) {
            p.depth = v;
            return this;
        }

        public Builder nppn(long v) {
            p.nppn = v;
            return this;
        }

        public Builder npps(long v) {
            p.npps = v;
            return this;
        }

        public Builder nspn(long v) {
            p.nspn = v;
            return this;
        }

        public Builder nppcu(long v) {
            p.nppcu = v;
            return this;
        }

        public Builder segments(String v) {
            p.segments = v;
            return this;
        }

        public Builder reservationMode(String v) {
            p.reservationMode = v;
            return this;
        }

        public Builder gpcMode(String v) {
            p.gpcMode = v;
            return this;
        }

        public Builder pState(String v) {
            p.pState = v;
            return this;
        }

        public Builder pGovernor(String v) {
            p.pGovernor = v;
            return this;
        }

        /** Memory per PE in MB, as {@code MemoryParam type="OS"}. */
        public Builder memoryPerPeMb(long mb) {
            return memory(new MemoryParam("OS", mb));
        }

        public Builder memory(MemoryParam m) {
            if (p.memoryParams == null) {
                p.memoryParams = new ArrayList<>();
            }
            p.memoryParams.add(m);
            return this;
        }

        public Builder label(LabelParam l) {
            if (p.labelParams == null) {
                p.labelParams = new ArrayList<>();
            }
            p.labelParams.add(l);
            return this;
        }

        /** The node list as one NodeParam: ALPS wants the whole list in a single element. */
        public Builder nodes(String nidRangeList) {
            if (p.nodeParams == null) {
                p.nodeParams = new ArrayList<>();
            }
            p.nodeParams.add(nidRangeList);
            return this;
        }

        public Builder accel(AccelParam a) {
            if (p.accelParams == null) {
                p.accelParams = new ArrayList<>();
            }
            p.accelParams.add(a);
            return this;
        }

        public Builder otherAttribute(String name, String value) {
            if (p.otherAttributes == null) {
                p.otherAttributes = new LinkedHashMap<>();
            }
            p.otherAttributes.put(new QName(name), value);
            return this;
        }

        public ReserveParam build() {
            return p;
        }
    }
}
