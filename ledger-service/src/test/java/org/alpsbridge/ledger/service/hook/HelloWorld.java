package org.alpsbridge.ledger.service.hook;

/** The yardstick of the hooks' start-up: a JVM that does nothing but print. */
public final class HelloWorld {

    private HelloWorld() {
    }

    public static void main(String[] args) {
        System.out.println("hello");
    }
}
