package org.alpsbridge.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The package graph is drawn from compiled classes, and a circle among packages is named with its classes. */
class PackageGraphTest {

    @TempDir
    Path dir;

    @Test
    void aTypeUsedOnlyInASignatureClosesACircle() throws IOException {
        // p.low.Cost takes p.high.Job only as a parameter: the class file names it in a descriptor alone
        PackageGraph graph = compile(Map.of(
                "p/high/Job.java", "package p.high; public class Job { p.low.Cost cost = new p.low.Cost(); }",
                "p/low/Cost.java", "package p.low; public class Cost { public long of(p.high.Job job) { return 1; } }"));

        assertEquals(List.of(List.of("p.high", "p.low", "p.high")), graph.cycles());
        AssertionError failure = assertThrows(AssertionError.class, graph::assertNoCycle);
        assertTrue(failure.getMessage().contains("p.high -> p.low -> p.high"), failure.getMessage());
        assertTrue(failure.getMessage().contains("p.low -> p.high: Cost -> Job"), failure.getMessage());
    }

    @Test
    void nestedTypesAndArraysCountForTheirPackage() throws IOException {
        PackageGraph graph = compile(Map.of(
                "p/a/Outer.java", "package p.a; public class Outer { public static class Inner { p.b.Uses[] all; } }",
                "p/b/Uses.java", "package p.b; public class Uses { p.a.Outer.Inner inner; }"));

        assertEquals(Set.of("p.b"), graph.uses("p.a"), "Outer$Inner is of p.a, and uses p.b through an array");
        assertEquals(Set.of("p.a"), graph.uses("p.b"));
        assertEquals(List.of(List.of("p.a", "p.b", "p.a")), graph.cycles());
    }

    @Test
    void aCircleIsNamedByItsShortestWayRound() throws IOException {
        PackageGraph graph = compile(Map.of(
                "p/a/A.java", "package p.a; public class A { p.b.B b; p.c.C c; }",
                "p/b/B.java", "package p.b; public class B { p.c.C c; }",
                "p/c/C.java", "package p.c; public class C { java.util.List<p.a.A> back; }",
                "p/d/D.java", "package p.d; public class D { p.a.A a; }"));

        assertEquals(List.of(List.of("p.a", "p.c", "p.a")), graph.cycles(), "the shortest way round");
        assertEquals(Set.of("p.a", "p.b", "p.c", "p.d"), graph.packages());
    }

    @Test
    void layersHaveNoCircle() throws IOException {
        PackageGraph graph = compile(Map.of(
                "p/api/Ledger.java", "package p.api; public interface Ledger { p.model.Weights weights(); }",
                "p/model/Weights.java", "package p.model; public record Weights(long cpu) { }",
                "p/store/Store.java", "package p.store; public class Store implements p.api.Ledger {"
                        + " public p.model.Weights weights() { return new p.model.Weights(1); } }"));

        assertEquals(List.of(), graph.cycles());
        assertEquals(Set.of("p.api", "p.model"), graph.uses("p.store"));
        graph.assertNoCycle();
    }

    @Test
    void thisModulesPackagesFormLayers() {
        PackageGraph.of(org.alpsbridge.failure.Failures.class).assertNoCycle();
    }

    private PackageGraph compile(Map<String, String> sources) throws IOException {
        Path src = dir.resolve("src");
        Path classes = Files.createDirectories(dir.resolve("classes"));
        List<String> arguments = new ArrayList<>(List.of("-d", classes.toString()));
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = src.resolve(source.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            arguments.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, arguments.toArray(String[]::new)), "the sources compile");
        return PackageGraph.of(List.of(classes));
    }
}
