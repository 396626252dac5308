package org.alpsbridge.proxy.ha;

/** This proxy does not hold the pair's lease (any more): it must not run or record an exchange. */
public final class NotActiveException extends Exception {

    public NotActiveException(String message) {
        super(message);
    }
}
