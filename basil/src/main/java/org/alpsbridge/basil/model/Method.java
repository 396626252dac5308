package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlType;

/** The BASIL methods. ALPS answers some failures with {@code UNDEFINED} instead of echoing the method. */
@XmlType(name = "method")
@XmlEnum
public enum Method {
    QUERY, RESERVE, CONFIRM, RELEASE, SWITCH, UNDEFINED;

    /** The method named {@code text}, or {@link #UNDEFINED} for anything BASIL does not define. */
    public static Method parse(String text) {
        if (text != null) {
            for (Method m : values()) {
                if (m.name().equals(text)) {
                    return m;
                }
            }
        }
        return UNDEFINED;
    }
}
