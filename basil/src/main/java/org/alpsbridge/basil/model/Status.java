package org.alpsbridge.basil.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlType;

/** {@code ResponseData/@status}. */
@XmlType(name = "status")
@XmlEnum
public enum Status {
    SUCCESS, FAILURE
}
