package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code ReservationArray} directly under ResponseData, answering SWITCH (status SUCCESS/FAILURE) and
 * QUERY(STATUS) (status EMPTY, INVALID, MIX, RUN, SUSPEND, SWITCH, UNKNOWN). The inventory's
 * ReservationArray is a different element with the same name, modelled inside {@code Inventory}.
 */
@XmlRootElement(name = "ReservationArray")
@XmlAccessorType(XmlAccessType.FIELD)
public final class ReservationStates {

    @XmlElement(name = "Reservation")
    private List<State> reservations;

    ReservationStates() {
    }

    public static ReservationStates of(List<State> states) {
        ReservationStates r = new ReservationStates();
        r.reservations = new ArrayList<>(states);
        return r;
    }

    public List<State> reservations() {
        return ReserveParam.unmodifiable(reservations);
    }

    /** One {@code Reservation reservation_id status}. */
    @XmlAccessorType(XmlAccessType.FIELD)
    public static final class State {
        @XmlAttribute(name = "reservation_id")
        private Long reservationId;
        @XmlAttribute(name = "status")
        private String status;

        State() {
        }

        public State(long reservationId, String status) {
            this.reservationId = reservationId;
            this.status = status;
        }

        public Long reservationId() {
            return reservationId;
        }

        public String status() {
            return status;
        }
    }
}
