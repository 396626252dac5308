package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlRootElement;
import java.util.Map;
import javax.xml.namespace.QName;

/** The answer to CONFIRM: bare in 1.0 (Slurm's 1.0 parser rejects attributes), with the ids echoed later. */
@XmlRootElement(name = "Confirmed")
@XmlAccessorType(XmlAccessType.FIELD)
public final class Confirmed {

    @XmlAttribute(name = "reservation_id")
    private Long reservationId;
    @XmlAttribute(name = "pagg_id")
    private Long paggId;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    Confirmed() {
    }

    public static Confirmed of(String protocol, long reservationId, long paggId) {
        Confirmed c = new Confirmed();
        if (Protocols.atLeast(protocol, "1.1")) {
            c.reservationId = reservationId;
            c.paggId = paggId;
        }
        return c;
    }

    public Long reservationId() {
        return reservationId;
    }

    public Long paggId() {
        return paggId;
    }
}
