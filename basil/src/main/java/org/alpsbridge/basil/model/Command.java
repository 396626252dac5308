package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/** A {@code Command} of an application: width, depth, nppn, memory (MB per PE), architecture and the binary name. */
@XmlAccessorType(XmlAccessType.FIELD)
public final class Command {

    @XmlAttribute(name = "width")
    private Long width;
    @XmlAttribute(name = "depth")
    private Long depth;
    @XmlAttribute(name = "nppn")
    private Long nppn;
    @XmlAttribute(name = "memory")
    private Long memory;
    @XmlAttribute(name = "architecture")
    private String architecture;
    @XmlAttribute(name = "cmd")
    private String cmd;
    @XmlAttribute(name = "node_count")
    private Long nodeCount;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    Command() {
    }

    public Command(long width, long depth, long nppn, long memory, String architecture, String cmd) {
        this.width = width;
        this.depth = depth;
        this.nppn = nppn;
        this.memory = memory;
        this.architecture = architecture;
        this.cmd = cmd;
    }

    public long width() {
        return width == null ? 0 : width;
    }

    public long depth() {
        return depth == null ? 0 : depth;
    }

    public long nppn() {
        return nppn == null ? 0 : nppn;
    }

    /** Memory per PE in MB. */
    public long memory() {
        return memory == null ? 0 : memory;
    }

    public String architecture() {
        return architecture;
    }

    /** The binary name, or {@code BASIL} for the reservation's pseudo-application. */
    public String cmd() {
        return cmd;
    }

    /** {@code node_count}, declared in OpenPBS's basil.h but never seen in a document. */
    public Optional<Long> nodeCount() {
        return Optional.ofNullable(nodeCount);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
