package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.namespace.QName;

/**
 * An inventory {@code Reservation}: 1.0 has id, user and account; 1.1 adds {@code time_stamp}, {@code batch_id}
 * and the applications; "1.1+" adds {@code reservation_mode} and {@code gpc_mode}. {@code batch_id} is the
 * string {@code UNKNOWN} for reservations aprun made on interactive nodes.
 */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"applications", "other"})
public final class Reservation {

    @XmlAttribute(name = "reservation_id")
    private Long reservationId;
    @XmlAttribute(name = "user_name")
    private String userName;
    @XmlAttribute(name = "account_name")
    private String accountName;
    @XmlAttribute(name = "time_stamp")
    private Long timeStamp;
    @XmlAttribute(name = "batch_id")
    private String batchId;
    @XmlAttribute(name = "reservation_mode")
    private String reservationMode;
    @XmlAttribute(name = "gpc_mode")
    private String gpcMode;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElementWrapper(name = "ApplicationArray")
    @XmlElement(name = "Application")
    private List<Application> applications;
    @XmlAnyElement(value = KeptElements.class)
    private List<Object> other;

    Reservation() {
    }

    /** A reservation; {@code null} leaves an attribute (or the ApplicationArray) out of the document. */
    public Reservation(long reservationId, String userName, String accountName, Long timeStamp, String batchId,
                       String reservationMode, String gpcMode, List<Application> applications) {
        this.reservationId = reservationId;
        this.userName = userName;
        this.accountName = accountName;
        this.timeStamp = timeStamp;
        this.batchId = batchId;
        this.reservationMode = reservationMode;
        this.gpcMode = gpcMode;
        this.applications = applications;
    }

    /** {@code reservation_id} (unsigned 32-bit, never 0 when valid); {@code 0} when absent. */
    public long reservationId() {
        return reservationId == null ? 0 : reservationId;
    }

    public String userName() {
        return userName;
    }

    public Optional<String> accountName() {
        return Optional.ofNullable(accountName);
    }

    public Optional<Long> timeStamp() {
        return Optional.ofNullable(timeStamp);
    }

    /** The batch job id given at RESERVE, or {@code UNKNOWN}. */
    public Optional<String> batchId() {
        return Optional.ofNullable(batchId);
    }

    public Optional<String> reservationMode() {
        return Optional.ofNullable(reservationMode);
    }

    public Optional<String> gpcMode() {
        return Optional.ofNullable(gpcMode);
    }

    /** The applications, the {@code cmd="BASIL"} pseudo-application included. */
    public List<Application> applications() {
        return Lists.view(applications);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
