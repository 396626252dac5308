package org.alpsbridge.basil.model;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;

/** Read-only views of the model's lists, which JAXB leaves {@code null} when the document has no element. */
final class Lists {

    private Lists() {
    }

    static <T> List<T> view(List<T> list) {
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    static Map<QName, String> view(Map<QName, String> map) {
        return map == null ? Map.of() : Collections.unmodifiableMap(map);
    }
}
