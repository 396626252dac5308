package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlType;

/** {@code ResponseData/@error_class}: whether retrying the same request can succeed. */
@XmlType(name = "errorClass")
@XmlEnum
public enum ErrorClass {
    /** Retrying the same request will fail the same way. */
    PERMANENT,
    /** A retry may succeed (busy, timed out, backend unreachable). */
    TRANSIENT
}
