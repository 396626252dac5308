package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/**
 * An inventory {@code Application} of a reservation. Every reservation has a pseudo-application with
 * {@code time_stamp="0"} whose command is {@code cmd="BASIL"}; real aprun launches have a non-zero time stamp.
 */
@XmlAccessorType(XmlAccessType.FIELD)
public final class Application {

    @XmlAttribute(name = "application_id")
    private Long applicationId;
    @XmlAttribute(name = "user_id")
    private Long userId;
    @XmlAttribute(name = "group_id")
    private Long groupId;
    @XmlAttribute(name = "time_stamp")
    private Long timeStamp;
    @XmlAnyAttribute
    private Map<QName, String> otherAttributes;
    @XmlElementWrapper(name = "CommandArray")
    @XmlElement(name = "Command")
    private List<Command> commands;

    Application() {
    }

    public Application(long applicationId, long userId, long groupId, long timeStamp, List<Command> commands) {
        this.applicationId = applicationId;
        this.userId = userId;
        this.groupId = groupId;
        this.timeStamp = timeStamp;
        this.commands = commands;
    }

    /** The APID; {@code 0} when absent. */
    public long applicationId() {
        return applicationId == null ? 0 : applicationId;
    }

    public long userId() {
        return userId == null ? 0 : userId;
    }

    public long groupId() {
        return groupId == null ? 0 : groupId;
    }

    /** Epoch seconds; {@code 0} marks the reservation's BASIL pseudo-application. */
    public long timeStamp() {
        return timeStamp == null ? 0 : timeStamp;
    }

    public List<Command> commands() {
        return Lists.view(commands);
    }

    public Map<QName, String> otherAttributes() {
        return Lists.view(otherAttributes);
    }
}
