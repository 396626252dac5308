package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;
import org.alpsbridge.basil.nodes.NidSet;

/** A {@code NodeSummary} or {@code AccelSummary} of a {@link Summary}: {@code Up} and {@code Down} NID lists. */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"up", "down", "other"})
public final class UpDown {

    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElement(name = "Up")
    private List<NidList> up;
    @XmlElement(name = "Down")
    private List<NidList> down;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    UpDown() {
    }

    static UpDown of(NidSet up, NidSet down) {
        UpDown u = new UpDown();
        u.up = new ArrayList<>(List.of(NidList.of(up)));
        u.down = new ArrayList<>(List.of(NidList.of(down)));
        return u;
    }

    /** The {@code Up} NIDs (several Up elements are united). Throws NodeSyntaxException on a malformed list. */
    public NidSet up() {
        return union(up);
    }

    /** The {@code Down} NIDs. Throws NodeSyntaxException on a malformed list. */
    public NidSet down() {
        return union(down);
    }

    private static NidSet union(List<NidList> lists) {
        NidSet all = NidSet.empty();
        if (lists != null) {
            for (NidList l : lists) {
                all = all.union(l.nids());
            }
        }
        return all;
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }

    /** Children this model does not know (e.g. the {@code Accelerator} basil.h allows in AccelSummary). */
    public List<Object> otherElements() {
        return Lists.view(other);
    }
}
