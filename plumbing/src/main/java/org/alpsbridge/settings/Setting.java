package org.alpsbridge.settings;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * One key of a {@code key=value} settings file, declared once: its name, its type (what values it takes, as the
 * check that refuses the others), its default (empty = none) and its meaning. The file's reader, its template
 * (the file as shipped) and its documentation all come from the same declarations.
 *
 * @param name the key, lower case
 * @param defaultValue the value when nothing sets it; empty = none
 * @param help what it means, for the template and the documentation
 * @param check the problem with a value (naming the key where it helps), or null when it is one this key takes
 */
public record Setting(String name, String defaultValue, String help, UnaryOperator<String> check) {

    /** Any text. */
    public static Setting text(String name, String defaultValue, String help) {
        return new Setting(name, defaultValue, help, v -> null);
    }

    /** One of {@code choices}: {@code name=v: expected a, b or c} otherwise. */
    public static Setting choice(String name, String defaultValue, String help, String... choices) {
        List<String> all = List.of(choices);
        String expected = String.join(", ", all.subList(0, all.size() - 1)) + " or " + all.get(all.size() - 1);
        return new Setting(name, defaultValue, help, v -> all.contains(v) ? null : name + "=" + v + ": expected " + expected);
    }

    /**
     * Seconds from 0 to {@code max}, fractions allowed: {@code name=v: expected seconds from 0 to MAX} otherwise.
     * {@code Infinity} and {@code NaN}, which {@link Double#parseDouble} reads, are refused like any other value out
     * of range: a limit a program cannot keep must not be taken and silently capped.
     */
    public static Setting seconds(String name, String defaultValue, String help, long max) {
        return expecting(name, defaultValue, help, "seconds from 0 to " + max, v -> {
            double d = Double.parseDouble(v);
            return d >= 0 && d <= max;
        });
    }

    /** A whole number from 0 to {@code max}: {@code name=v: expected a whole number from 0 to MAX} otherwise. */
    public static Setting count(String name, String defaultValue, String help, long max) {
        return expecting(name, defaultValue, help, "a whole number from 0 to " + max, v -> {
            double d = Double.parseDouble(v);
            return d >= 0 && d <= max && d == Math.rint(d);
        });
    }

    /**
     * A value {@code takes} accepts (one it cannot parse as a number it does not take): {@code name=v: expected what}
     * otherwise.
     */
    public static Setting expecting(String name, String defaultValue, String help, String what, Predicate<String> takes) {
        return new Setting(name, defaultValue, help, v -> {
            try {
                if (takes.test(v)) {
                    return null;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            return name + "=" + v + ": expected " + what;
        });
    }

    /** A value {@code check} takes: it returns the problem in full, or null. */
    public static Setting checked(String name, String defaultValue, String help, UnaryOperator<String> check) {
        return new Setting(name, defaultValue, help, check);
    }

    /**
     * A settings class's typed handle on one of its declarations, for code that names a key ({@code Key.WORKERS}):
     * an enum whose constants each hold their {@link Setting}.
     */
    public interface Handle {

        Setting setting();

        default String key() {
            return setting().name();
        }

        default String defaultValue() {
            return setting().defaultValue();
        }

        /** The declarations of {@code handles} (an enum's {@code values()}), in their order. */
        static List<Setting> settings(Handle[] handles) {
            return Stream.of(handles).map(Handle::setting).toList();
        }

        /** The one of {@code handles} whose key is {@code name}, or null. */
        static <H extends Handle> H named(H[] handles, String name) {
            return Stream.of(handles).filter(h -> h.key().equals(name)).findFirst().orElse(null);
        }
    }

    /** The problem with {@code value}, or null. */
    public String problem(String value) {
        return check.apply(value);
    }
}
