package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/**
 * The {@code ApplicationArray} directly under ResponseData, answering SWITCH (status SUCCESS/FAILURE) and
 * QUERY(STATUS) by application (status INVALID, RUN, SUSPEND, SWITCH, UNKNOWN). The reservation form is
 * {@link ReservationStates}; the inventory's ApplicationArray is a different element inside a Reservation.
 */
@XmlRootElement(name = "ApplicationArray")
@XmlAccessorType(XmlAccessType.FIELD)
public final class ApplicationStates {

    @XmlElement(name = "Application")
    private List<State> applications;

    ApplicationStates() {
    }

    public static ApplicationStates of(List<State> states) {
        ApplicationStates a = new ApplicationStates();
        a.applications = new ArrayList<>(states);
        return a;
    }

    public List<State> applications() {
        return Lists.view(applications);
    }

    /** One {@code Application application_id status}. */
    @XmlAccessorType(XmlAccessType.FIELD)
    @XmlType(name = "applicationState")
    public static final class State {
        @XmlAttribute(name = "application_id")
        private Long applicationId;
        @XmlAttribute(name = "status")
        private String status;
        @XmlAnyAttribute
        private Map<QName, String> otherAttributes;

        State() {
        }

        public State(long applicationId, String status) {
            this.applicationId = applicationId;
            this.status = status;
        }

        public Long applicationId() {
            return applicationId;
        }

        public String status() {
            return status;
        }
    }
}
