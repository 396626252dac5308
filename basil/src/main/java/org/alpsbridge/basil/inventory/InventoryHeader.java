package org.alpsbridge.basil.inventory;

import java.util.List;

/**
 * What an INVENTORY response says before its nodes: the envelope and the Inventory/NodeArray attributes.
 * Attributes the document does not carry are {@code null}.
 *
 * @param protocol         {@code BasilResponse/@protocol} (may be empty on failures)
 * @param status           {@code SUCCESS} or {@code FAILURE} as sent
 * @param method           {@code ResponseData/@method} as sent
 * @param errorClass       {@code PERMANENT}/{@code TRANSIENT} on failures
 * @param errorSource      {@code BACKEND}, … on failures
 * @param messages         Message texts met before the Inventory, stripped
 * @param mppHost          {@code Inventory/@mpp_host} ("1.1+")
 * @param timestamp        {@code Inventory/@timestamp} ("1.1+")
 * @param cpcu             {@code Inventory/@cpcu} (1.7)
 * @param changecount      {@code NodeArray/@changecount} (1.2+)
 * @param schedchangecount {@code NodeArray/@schedchangecount} (1.3+)
 */
public record InventoryHeader(String protocol, String status, String method, String errorClass, String errorSource,
                              List<String> messages, String mppHost, Long timestamp, Long cpcu, Long changecount,
                              Long schedchangecount) {

    public InventoryHeader {
        messages = List.copyOf(messages);
    }

    /** A SUCCESS header for writing an inventory in {@code protocol}. */
    public static InventoryHeader success(String protocol, String mppHost, Long timestamp, Long changecount,
                                         Long schedchangecount) {
        return new InventoryHeader(protocol, "SUCCESS", "QUERY", null, null, List.of(), mppHost, timestamp, null,
                changecount, schedchangecount);
    }

    public boolean isSuccess() {
        return "SUCCESS".equals(status);
    }
}
