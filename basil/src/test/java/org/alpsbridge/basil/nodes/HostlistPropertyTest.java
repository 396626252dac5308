package org.alpsbridge.basil.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Hostlist text round trips over random names: NID names, cnames, literal names, odd paddings, repeats. */
class HostlistPropertyTest {

    private static final String[] PREFIXES = {"nid", "login", "c0-0c0s5n", "", "sdb", "x1-"};

    private static String randomName(SplittableRandom r) {
        return switch (r.nextInt(5)) {
            case 0 -> Hostlist.nidName(r.nextInt(2000));
            case 1 -> Cname.ofNid(r.nextInt(2000), Cname.Layout.aries(16)).toString();
            case 2 -> "svc" + (char) ('a' + r.nextInt(26));
            case 3 -> PREFIXES[r.nextInt(PREFIXES.length)] + HostlistFormatter.padded(r.nextInt(120), r.nextInt(4));
            default -> Hostlist.nidName(100_000 - 5 + r.nextInt(10));
        };
    }

    @Test
    void parseOfFormatGivesBackTheSameNamesInTheSameOrder() {
        Seeds.check(500, r -> {
            List<String> names = new ArrayList<>();
            int n = r.nextInt(60);
            while (names.size() < n) {
                String first = randomName(r);
                names.add(first);
                // runs of consecutive names, so compression has something to do
                int split = Hostlist.numberStart(first);
                if (split < first.length() && r.nextBoolean()) {
                    long v = Long.parseLong(first.substring(split));
                    for (int k = 1; k < r.nextInt(20); k++) {
                        names.add(first.substring(0, split) + HostlistFormatter.padded(v + k, first.length() - split));
                    }
                }
            }
            Hostlist h = Hostlist.of(names);
            String text = h.toString();
            assertEquals(names, Hostlist.parse(text).hosts(), text);
            assertEquals(text, Hostlist.parse(text).toString());
        });
    }

    @Test
    void hundredThousandNidHostlistsCompressToTheirRangeList() {
        Seeds.check(5, r -> {
            TreeSet<Long> model = NidSetPropertyTest.randomNids(r, 100_000, 0);
            while (model.size() < 100_000) {
                model.add(model.last() + 1 + r.nextInt(3));
            }
            NidSet nids = NidSet.copyOf(model.stream().mapToLong(Long::longValue));
            Hostlist h = Hostlist.ofNids(nids);
            String text = h.toString();
            assertEquals(nids, Hostlist.parse(text).toNids());
            assertEquals(100_000, Hostlist.parse(text).size());
            assertEquals(nids.rangeCount(), text.chars().filter(c -> c == ',').count() + 1);
        });
    }
}
