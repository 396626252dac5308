package org.alpsbridge.basil.cli;

import java.io.InputStream;
import org.alpsbridge.basil.codec.BasilException;

/** Lets tests in other packages describe a document exactly as {@code basil check} does. */
public final class CheckAccess {

    private CheckAccess() {
    }

    public static String describe(byte[] document) throws BasilException {
        return Documents.describe(document);
    }

    public static String describeInventoryStream(InputStream in) throws BasilException {
        return Documents.describeInventoryStream(in);
    }
}
