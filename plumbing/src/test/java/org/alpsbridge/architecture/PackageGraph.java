package org.alpsbridge.architecture;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which package of compiled main code uses which, and the circles among them: a module's packages must form
 * layers (a package may use those below it, never one that uses it back), so that each can be read, tested and
 * moved without the others.
 *
 * <p>Read from the {@code .class} files' constant pools, not from the sources' imports: the compiler has already
 * resolved every name there (same-package simple names, nested types, wildcard imports, names written out in
 * full in the code), and an import that only a Javadoc link needs is not a dependency the code has. What it cannot
 * see is a compile-time constant of another package ({@code static final} primitives and strings are copied into
 * the user's class); a package that uses another for nothing but such a constant is not counted.
 *
 * <p>Only the packages of the classes read are nodes: what they use of other modules or of the JDK is not drawn.
 */
public final class PackageGraph {

    /** {@code Lorg/alpsbridge/...;} (or {@code <} of a generic signature) inside descriptors and signatures. */
    private static final Pattern DESCRIBED = Pattern.compile("L([\\w/$]+)[;<]");

    /** package -> package it uses -> "Using -> Used" class pairs that make the edge */
    private final SortedMap<String, SortedMap<String, SortedSet<String>>> uses = new TreeMap<>();

    private PackageGraph() {
    }

    /**
     * The graph of the main classes that {@code anchors} were loaded from: each anchor's directory or jar is read
     * whole (one anchor per module).
     */
    public static PackageGraph of(Class<?>... anchors) {
        Map<String, Set<String>> references = new TreeMap<>();
        for (Class<?> anchor : anchors) {
            read(locationOf(anchor), references);
        }
        return of(references);
    }

    /** The graph of the classes in {@code roots}: class-file directories or jars. */
    public static PackageGraph of(List<Path> roots) {
        Map<String, Set<String>> references = new TreeMap<>();
        for (Path root : roots) {
            read(root, references);
        }
        return of(references);
    }

    private static PackageGraph of(Map<String, Set<String>> references) {
        PackageGraph graph = new PackageGraph();
        for (Map.Entry<String, Set<String>> entry : references.entrySet()) {
            String from = packageOf(entry.getKey());
            graph.uses.computeIfAbsent(from, p -> new TreeMap<>());
            for (String used : entry.getValue()) {
                String to = packageOf(used);
                if (!to.equals(from) && references.containsKey(used)) {
                    graph.uses.get(from).computeIfAbsent(to, p -> new TreeSet<>())
                            .add(simpleName(entry.getKey()) + " -> " + simpleName(used));
                }
            }
        }
        return graph;
    }

    /** The packages read, by name. */
    public Set<String> packages() {
        return uses.keySet();
    }

    /** The packages {@code pkg} uses (other than itself), by name. */
    public Set<String> uses(String pkg) {
        return uses.getOrDefault(pkg, new TreeMap<>()).keySet();
    }

    /**
     * One circle for each group of packages that reach each other, as the packages in order with the first
     * repeated at the end ({@code [a, b, a]}); empty when the packages form layers.
     */
    public List<List<String>> cycles() {
        List<List<String>> cycles = new ArrayList<>();
        for (Set<String> group : stronglyConnected()) {
            if (group.size() > 1) {
                cycles.add(circleThrough(group));
            }
        }
        return cycles;
    }

    /**
     * Throws naming every circle and the classes that make each of its steps.
     *
     * @throws AssertionError when a package uses, directly or not, a package that uses it
     */
    public void assertNoCycle() {
        List<List<String>> cycles = cycles();
        if (cycles.isEmpty()) {
            return;
        }
        StringBuilder message = new StringBuilder("packages that use each other (move a type to where it belongs, "
                + "or let the lower package own an interface):");
        for (List<String> cycle : cycles) {
            message.append("\n  ").append(String.join(" -> ", cycle));
            for (int i = 0; i + 1 < cycle.size(); i++) {
                message.append("\n    ").append(cycle.get(i)).append(" -> ").append(cycle.get(i + 1)).append(": ")
                        .append(String.join(", ", uses.get(cycle.get(i)).get(cycle.get(i + 1))));
            }
        }
        throw new AssertionError(message.toString());
    }

    /** Tarjan's strongly connected components, iteratively (no recursion depth to worry about). */
    private List<Set<String>> stronglyConnected() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> groups = new ArrayList<>();
        for (String start : uses.keySet()) {
            if (index.containsKey(start)) {
                continue;
            }
            Deque<Map.Entry<String, ArrayDeque<String>>> work = new ArrayDeque<>();
            visit(start, index, low, stack, onStack, work);
            while (!work.isEmpty()) {
                String node = work.peek().getKey();
                ArrayDeque<String> next = work.peek().getValue();
                if (!next.isEmpty()) {
                    String to = next.poll();
                    if (!index.containsKey(to)) {
                        visit(to, index, low, stack, onStack, work);
                    } else if (onStack.contains(to)) {
                        low.put(node, Math.min(low.get(node), index.get(to)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = work.peek().getKey();
                    low.put(parent, Math.min(low.get(parent), low.get(node)));
                }
                if (low.get(node).equals(index.get(node))) {
                    Set<String> group = new TreeSet<>();
                    String member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        group.add(member);
                    } while (!member.equals(node));
                    groups.add(group);
                }
            }
        }
        return groups;
    }

    private void visit(String node, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                       Set<String> onStack, Deque<Map.Entry<String, ArrayDeque<String>>> work) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        work.push(Map.entry(node, new ArrayDeque<>(uses(node))));
    }

    /** A shortest way back to the group's first package from its own first step, by breadth-first search. */
    private List<String> circleThrough(Set<String> group) {
        String first = group.iterator().next();
        Map<String, String> cameFrom = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>();
        for (String to : uses(first)) {
            if (group.contains(to) && cameFrom.putIfAbsent(to, first) == null) {
                queue.add(to);
            }
        }
        while (!cameFrom.containsKey(first)) {
            String node = queue.poll();
            for (String to : uses(node)) {
                if (group.contains(to) && cameFrom.putIfAbsent(to, node) == null) {
                    queue.add(to);
                }
            }
        }
        List<String> circle = new ArrayList<>(List.of(first));
        for (String at = cameFrom.get(first); !at.equals(first); at = cameFrom.get(at)) {
            circle.add(0, at);
        }
        circle.add(0, first);
        return circle;
    }

    private static Path locationOf(Class<?> anchor) {
        try {
            return Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("where " + anchor.getName() + " was loaded from is not a path", e);
        }
    }

    private static void read(Path root, Map<String, Set<String>> references) {
        try {
            if (Files.isDirectory(root)) {
                try (Stream<Path> files = Files.walk(root)) {
                    for (Path file : (Iterable<Path>) files.filter(PackageGraph::isClassFile)::iterator) {
                        try (InputStream in = Files.newInputStream(file)) {
                            readClass(in, references);
                        }
                    }
                }
            } else {
                try (JarFile jar = new JarFile(root.toFile())) {
                    for (var entry : (Iterable<java.util.jar.JarEntry>) jar.stream()::iterator) {
                        if (isClassFile(Path.of(entry.getName()))) {
                            try (InputStream in = jar.getInputStream(entry)) {
                                readClass(in, references);
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes in " + root, e);
        }
    }

    private static boolean isClassFile(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".class") && !name.equals("module-info.class") && !name.equals("package-info.class");
    }

    /**
     * Every class a class file names: its constant pool's class entries, and the types inside descriptors and
     * signatures (a parameter or field type the code never loads appears only there).
     */
    private static void readClass(InputStream in, Map<String, Set<String>> references) throws IOException {
        DataInputStream data = new DataInputStream(in);
        if (data.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        data.readUnsignedShort(); // minor version
        data.readUnsignedShort(); // major version
        int count = data.readUnsignedShort();
        String[] utf8 = new String[count];
        Map<Integer, Integer> classNames = new HashMap<>(); // pool index of a class entry -> its name's index
        for (int i = 1; i < count; i++) {
            int tag = data.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = data.readUTF();
                case 7 -> classNames.put(i, data.readUnsignedShort());
                case 8, 16, 19, 20 -> data.readUnsignedShort();
                case 3, 4, 9, 10, 11, 12, 17, 18 -> data.readInt();
                case 15 -> {
                    data.readUnsignedByte();
                    data.readUnsignedShort();
                }
                case 5, 6 -> {
                    data.readLong();
                    i++; // a long or a double takes two entries
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        data.readUnsignedShort(); // access flags
        String self = utf8[classNames.get(data.readUnsignedShort())].replace('/', '.');
        Set<String> named = references.computeIfAbsent(self, c -> new TreeSet<>());
        for (int nameIndex : classNames.values()) {
            String name = utf8[nameIndex];
            if (name.startsWith("[")) {
                addDescribed(name, named); // an array type, named by its descriptor
            } else {
                named.add(name.replace('/', '.'));
            }
        }
        for (String text : utf8) {
            if (text != null && text.indexOf(';') > 0) {
                addDescribed(text, named);
            }
        }
    }

    private static void addDescribed(String text, Set<String> named) {
        Matcher m = DESCRIBED.matcher(text);
        while (m.find()) {
            named.add(m.group(1).replace('/', '.'));
        }
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
