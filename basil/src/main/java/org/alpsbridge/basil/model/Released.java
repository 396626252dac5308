package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlRootElement;
import java.util.Map;
import javax.xml.namespace.QName;

/**
 * The answer to RELEASE: bare in 1.0, {@code reservation_id} from 1.1+, and {@code claims} from 1.2 — zero
 * claims means the reservation is gone; more means applications still hold it.
 */
@XmlRootElement(name = "Released")
@XmlAccessorType(XmlAccessType.FIELD)
public final class Released {

    @XmlAttribute(name = "reservation_id")
    private Long reservationId;
    @XmlAttribute(name = "claims")
    private Long claims;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    Released() {
    }

    public static Released of(String protocol, long reservationId, long claims) {
        Released r = new Released();
        if (Protocols.atLeast(protocol, "1.1")) {
            r.reservationId = reservationId;
        }
        if (Protocols.atLeast(protocol, "1.2")) {
            r.claims = claims;
        }
        return r;
    }

    public Long reservationId() {
        return reservationId;
    }

    public Long claims() {
        return claims;
    }
}
