package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlMixed;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;
import org.alpsbridge.basil.nodes.NidSet;

/**
 * An element whose text is an ALPS NID range list ({@code 1-5,8}): Summary's {@code Up}/{@code Down}.
 * Mixed content so that whatever a real ALPS puts there is kept, not rejected.
 */
@XmlAccessorType(XmlAccessType.FIELD)
public final class NidList {

    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlMixed
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> content;

    NidList() {
    }

    static NidList of(NidSet nids) {
        NidList l = new NidList();
        l.content = nids.isEmpty() ? null : new ArrayList<>(List.of(nids.toString()));
        return l;
    }

    /** The text, stripped. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        if (content != null) {
            for (Object o : content) {
                if (o instanceof String s) {
                    sb.append(s);
                }
            }
        }
        return sb.toString().strip();
    }

    /** The NIDs; empty text is the empty set. Throws NodeSyntaxException on a malformed list. */
    public NidSet nids() {
        String t = text();
        return t.isEmpty() ? NidSet.empty() : NidSet.parse(t);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
