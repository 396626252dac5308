package org.alpsbridge.failure;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * A failure in words for a command's error line, for every command of the launcher: the JDK's file and network
 * exceptions carry only a path ({@code NoSuchFileException: /etc/x}) or nothing ({@code ConnectException}),
 * which tells an admin neither what went wrong nor what to do.
 */
public final class Failures {

    private Failures() {
    }

    /**
     * What went wrong: the exception's own message where it says something, else (a bare path, an empty
     * message, a class name) what its kind means, with the file or address it names and what to check.
     */
    public static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof FileSystemException fs && (t == failure || saysNothing(failure, t))) {
                return file(fs);
            }
            if (isNetwork(t) && (t == failure || saysNothing(failure, t))) {
                return network(t);
            }
        }
        String message = failure.getMessage();
        if (message == null || message.isBlank()) {
            Throwable cause = failure.getCause();
            return words(failure) + (cause != null && cause != failure ? " (" + describe(cause) + ")" : "");
        }
        return message;
    }

    /** What a file operation's failure means, naming the file. */
    public static String file(FileSystemException e) {
        String what = e.getFile() == null ? "a file" : e.getFile();
        if (e.getOtherFile() != null) {
            what += " (to " + e.getOtherFile() + ")";
        }
        String reason;
        String todo;
        if (e instanceof NoSuchFileException) {
            reason = "no such file or directory";
            todo = "check the path (a typo?) or create it";
        } else if (e instanceof AccessDeniedException) {
            reason = "permission denied";
            todo = "run as a user who may use it (now: " + System.getProperty("user.name") + "), or change its permissions";
        } else if (e instanceof FileAlreadyExistsException) {
            reason = "it already exists";
            todo = "move it away or name another path";
        } else if (e instanceof NotDirectoryException) {
            reason = "not a directory";
            todo = "name a directory";
        } else if (e instanceof DirectoryNotEmptyException) {
            reason = "the directory is not empty";
            todo = "empty it or name another";
        } else {
            reason = e.getReason() != null ? e.getReason() : words(e);
            todo = "check the path and its permissions";
        }
        return "cannot use " + what + ": " + reason + "; " + todo;
    }

    /** Why a daemon cannot listen on {@code address}, and what to do ({@code listen=} names it in every daemon). */
    public static String listen(String address, Throwable e) {
        String why = e.getMessage() == null ? words(e) : e.getMessage();
        String todo;
        if (why.contains("Address already in use")) {
            todo = "another process listens there (ss -ltnp shows which): stop it, or set another address (listen= or --listen)";
        } else if (why.contains("Permission denied")) {
            todo = "a port below 1024 needs root, and a unix socket's directory must be writable by this user ("
                    + System.getProperty("user.name") + "): set another address (listen= or --listen)";
        } else if (why.contains("Cannot assign requested address")) {
            todo = "this host has no such address: set one of its own (listen= or --listen)";
        } else {
            todo = "check the address (listen= or --listen)";
        }
        return "cannot listen on " + address + ": " + why + "; " + todo;
    }

    private static boolean isNetwork(Throwable t) {
        return t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException
                || t instanceof SocketTimeoutException || t instanceof java.nio.channels.UnresolvedAddressException;
    }

    private static String network(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            // the HTTP client's ConnectException of a name that does not resolve has that as its cause
            if (c instanceof UnknownHostException || c instanceof java.nio.channels.UnresolvedAddressException) {
                return "unknown host" + (c.getMessage() == null ? "" : " " + c.getMessage())
                        + " (the name does not resolve); check the host name";
            }
        }
        if (t instanceof NoRouteToHostException) {
            return "no route to the host; check the address and the network between the hosts";
        }
        if (t instanceof SocketTimeoutException) {
            return "no answer in time; check that the service runs there and that no firewall drops the packets";
        }
        return "connection refused (nothing listens there); start the service or correct its address";
    }

    /**
     * Whether {@code outer}'s message adds nothing to {@code inner}: empty, the inner's path, or the inner's
     * class name and message as {@code Throwable.toString} writes them when a wrapper is built from a cause.
     */
    private static boolean saysNothing(Throwable outer, Throwable inner) {
        String m = outer.getMessage();
        if (m == null || m.isBlank()) {
            return true;
        }
        String bare = inner.getMessage() == null ? "" : inner.getMessage();
        return m.equals(bare) || m.equals(inner.toString()) || m.equals(inner.getClass().getName())
                || inner instanceof FileSystemException fs && m.equals(fs.getFile());
    }

    /** {@code NoRouteToHostException} as "no route to host". */
    private static String words(Throwable t) {
        String name = t.getClass().getSimpleName().replaceAll("(Exception|Error)$", "");
        return name.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT);
    }
}
