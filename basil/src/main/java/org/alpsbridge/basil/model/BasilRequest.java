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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/**
 * A BASIL request document: {@code BasilRequest} with its method-specific body.
 *
 * <p>Read with {@code BasilCodec.readRequest}, made with the static factories, which write the shape the
 * requested protocol version expects (1.0 CONFIRM carries {@code admin_cookie}, later versions
 * {@code pagg_id}). Unknown attributes and elements are kept so a document round-trips.
 */
@XmlRootElement(name = "BasilRequest")
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(name = "BasilRequest", propOrder = {"reserveParamArray", "inventory", "reservations", "applications", "otherElements"})
public final class BasilRequest {

    @XmlAttribute(name = "protocol")
    private String protocol;
    @XmlAttribute(name = "method")
    private String method;
    @XmlAttribute(name = "type")
    private String type;
    @XmlAttribute(name = "reservation_id")
    private Long reservationId;
    @XmlAttribute(name = "pagg_id")
    private Long paggId;
    @XmlAttribute(name = "admin_cookie")
    private Long adminCookie;
    @XmlAttribute(name = "job_name")
    private String jobName;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;

    @XmlElement(name = "ReserveParamArray")
    private ReserveParamArray reserveParamArray;
    @XmlElement(name = "Inventory")
    private InventoryQuery inventory;
    @XmlElementWrapper(name = "ReservationArray")
    @XmlElement(name = "Reservation")
    private List<ReservationAction> reservations;
    @XmlElementWrapper(name = "ApplicationArray")
    @XmlElement(name = "Application")
    private List<ApplicationAction> applications;
    @XmlAnyElement(value = KeptElements.class)
    private List<Element> otherElements;

    BasilRequest() {
    }

    private BasilRequest(String protocol, Method method) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.method = method.name();
    }

    /** {@code QUERY} of the given type ({@code ENGINE}, {@code INVENTORY}, {@code SUMMARY}, ...), no body. */
    public static BasilRequest query(String protocol, String type) {
        BasilRequest r = new BasilRequest(protocol, Method.QUERY);
        r.type = Objects.requireNonNull(type, "type");
        return r;
    }

    /**
     * {@code QUERY(INVENTORY)} asking only for what changed since {@code changecount} (1.2+), or for the
     * reservations alone when {@code changecount} is null and {@code reservationsOnly} is set.
     */
    public static BasilRequest inventorySince(String protocol, Long changecount, boolean withReservations) {
        BasilRequest r = query(protocol, "INVENTORY");
        r.inventory = new InventoryQuery(changecount, withReservations);
        return r;
    }

    /** {@code QUERY(STATUS)} of reservations. */
    public static BasilRequest status(String protocol, List<Long> reservationIds) {
        BasilRequest r = query(protocol, "STATUS");
        r.reservations = new ArrayList<>();
        for (Long id : reservationIds) {
            r.reservations.add(new ReservationAction(id, null));
        }
        return r;
    }

    /**
     * {@code RESERVE}. {@code batchId} is omitted for protocol 1.0, which does not know it.
     *
     * @param account the {@code account_name}, or null
     */
    public static BasilRequest reserve(String protocol, String user, String batchId, String account, List<ReserveParam> params) {
        BasilRequest r = new BasilRequest(protocol, Method.RESERVE);
        r.reserveParamArray = new ReserveParamArray(user, "1.0".equals(protocol) ? null : batchId, account, new ArrayList<>(params));
        return r;
    }

    /** {@code CONFIRM}: binds the reservation to the job's process aggregate ({@code admin_cookie} in 1.0). */
    public static BasilRequest confirm(String protocol, long reservationId, long paggId) {
        BasilRequest r = new BasilRequest(protocol, Method.CONFIRM);
        r.reservationId = reservationId;
        if ("1.0".equals(protocol)) {
            r.adminCookie = paggId;
        } else {
            r.paggId = paggId;
        }
        return r;
    }

    /** {@code CONFIRM} as Slurm wrote it at 1.0: with the batch job id as {@code job_name} (dropped after 1.0). */
    public static BasilRequest confirm(String protocol, long reservationId, long paggId, String jobName) {
        BasilRequest r = confirm(protocol, reservationId, paggId);
        if ("1.0".equals(protocol)) {
            r.jobName = jobName;
        }
        return r;
    }

    /** {@code RELEASE}. */
    public static BasilRequest release(String protocol, long reservationId) {
        BasilRequest r = new BasilRequest(protocol, Method.RELEASE);
        r.reservationId = reservationId;
        return r;
    }

    /** {@code SWITCH} of one reservation: {@code OUT} suspends, {@code IN} resumes. */
    public static BasilRequest switchReservation(String protocol, long reservationId, String action) {
        BasilRequest r = new BasilRequest(protocol, Method.SWITCH);
        r.reservations = new ArrayList<>(List.of(new ReservationAction(reservationId, action)));
        return r;
    }

    public String protocol() {
        return protocol;
    }

    /** The method; {@link Method#UNDEFINED} when the attribute is missing or not a BASIL method. */
    public Method method() {
        return Method.parse(method);
    }

    /** The {@code method} attribute exactly as sent, or null. */
    public String methodText() {
        return method;
    }

    /** The QUERY type, or null. */
    public String type() {
        return type;
    }

    /** {@code QUERY/INVENTORY}, {@code RESERVE}, ...: the key operators see. */
    public String methodKey() {
        return method() == Method.QUERY && type != null ? "QUERY/" + type : String.valueOf(method);
    }

    public Long reservationId() {
        return reservationId;
    }

    /** The process aggregate of a CONFIRM: {@code pagg_id}, or the 1.0 {@code admin_cookie}. */
    public Long paggId() {
        return paggId != null ? paggId : adminCookie;
    }

    public Long adminCookie() {
        return adminCookie;
    }

    public String jobName() {
        return jobName;
    }

    public String user() {
        return reserveParamArray == null ? null : reserveParamArray.user;
    }

    public String batchId() {
        return reserveParamArray == null ? null : reserveParamArray.batchId;
    }

    public String account() {
        return reserveParamArray == null ? null : reserveParamArray.account;
    }

    public List<ReserveParam> reserveParams() {
        return reserveParamArray == null ? List.of() : ReserveParam.unmodifiable(reserveParamArray.params);
    }

    /** The changecount of a selective INVENTORY query, or null. */
    public Long changecount() {
        return inventory == null || inventory.nodeArray == null ? null : inventory.nodeArray.changecount;
    }

    /** True when the INVENTORY query has a body that limits what is returned. */
    public boolean selectiveInventory() {
        return inventory != null;
    }

    /** Whether an INVENTORY query asks for nodes: always without a body, else when it has a {@code NodeArray}. */
    public boolean inventoryNodesWanted() {
        return inventory == null || inventory.nodeArray != null;
    }

    /** Whether an INVENTORY query asks for reservations: always without a body, else when it has a {@code ReservationArray}. */
    public boolean inventoryReservationsWanted() {
        return inventory == null || inventory.reservationArray != null;
    }

    /** The reservations of a SWITCH or STATUS request. */
    public List<ReservationAction> reservations() {
        return ReserveParam.unmodifiable(reservations);
    }

    /** The applications of a SWITCH or STATUS request. */
    public List<ApplicationAction> applications() {
        return ReserveParam.unmodifiable(applications);
    }

    public Map<QName, String> otherAttributes() {
        return otherAttributes == null ? Map.of() : Collections.unmodifiableMap(otherAttributes);
    }

    /** Child elements this model does not know (e.g. a TOPOLOGY filter), kept as DOM. */
    public List<Element> otherElements() {
        return ReserveParam.unmodifiable(otherElements);
    }

    /**
     * A copy with another {@code protocol} and everything else as it is (body included); the caller decides
     * what the other version cannot carry ({@code basil convert} does).
     */
    public BasilRequest withProtocol(String newProtocol) {
        BasilRequest r = new BasilRequest(newProtocol, Method.QUERY);
        r.method = method;
        r.type = type;
        r.reservationId = reservationId;
        r.paggId = paggId;
        r.adminCookie = adminCookie;
        r.jobName = jobName;
        r.otherAttributes = otherAttributes;
        r.reserveParamArray = reserveParamArray;
        r.inventory = inventory;
        r.reservations = reservations;
        r.applications = applications;
        r.otherElements = otherElements;
        return r;
    }

    @XmlAccessorType(XmlAccessType.FIELD)
    static final class ReserveParamArray {
        @XmlAttribute(name = "user_name")
        String user;
        @XmlAttribute(name = "batch_id")
        String batchId;
        @XmlAttribute(name = "account_name")
        String account;
        @XmlElement(name = "ReserveParam")
        List<ReserveParam> params;

        ReserveParamArray() {
        }

        ReserveParamArray(String user, String batchId, String account, List<ReserveParam> params) {
            this.user = user;
            this.batchId = batchId;
            this.account = account;
            this.params = params;
        }
    }

    @XmlAccessorType(XmlAccessType.FIELD)
    @XmlType(propOrder = {"nodeArray", "reservationArray"})
    static final class InventoryQuery {
        @XmlElement(name = "NodeArray")
        NodeArrayQuery nodeArray;
        @XmlElement(name = "ReservationArray")
        Empty reservationArray;

        InventoryQuery() {
        }

        InventoryQuery(Long changecount, boolean withReservations) {
            if (changecount != null) {
                nodeArray = new NodeArrayQuery();
                nodeArray.changecount = changecount;
            }
            if (withReservations) {
                reservationArray = new Empty();
            }
        }
    }

    @XmlAccessorType(XmlAccessType.FIELD)
    static final class NodeArrayQuery {
        @XmlAttribute(name = "changecount")
        Long changecount;
    }

    @XmlAccessorType(XmlAccessType.FIELD)
    static final class Empty {
    }

    /** {@code Reservation reservation_id action} of a SWITCH or STATUS request. */
    @XmlAccessorType(XmlAccessType.FIELD)
    public static final class ReservationAction {
        @XmlAttribute(name = "reservation_id")
        private Long reservationId;
        @XmlAttribute(name = "action")
        private String action;

        ReservationAction() {
        }

        ReservationAction(Long reservationId, String action) {
            this.reservationId = reservationId;
            this.action = action;
        }

        public Long reservationId() {
            return reservationId;
        }

        /** {@code IN}, {@code OUT}, or null in a STATUS request. */
        public String action() {
            return action;
        }
    }

    /** {@code Application application_id action} of a SWITCH or STATUS request. */
    @XmlAccessorType(XmlAccessType.FIELD)
    public static final class ApplicationAction {
        @XmlAttribute(name = "application_id")
        private Long applicationId;
        @XmlAttribute(name = "action")
        private String action;

        ApplicationAction() {
        }

        public Long applicationId() {
            return applicationId;
        }

        public String action() {
            return action;
        }
    }
}
