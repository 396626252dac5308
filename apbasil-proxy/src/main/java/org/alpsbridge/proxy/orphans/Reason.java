package org.alpsbridge.proxy.orphans;

/** Why a reservation is an orphan. A reservation may have several reasons at once. */
public enum Reason {
    /** Made behind the proxy's back (interactive aprun on a batch node, another tool), or its RESERVE answer was lost. */
    NOT_CREATED_BY_PROXY("not created through the proxy"),
    /** The scheduler released it through the proxy and the RELEASE failed or got no answer. */
    RELEASE_FAILED("its RELEASE failed"),
    /** The scheduler released it through the proxy, ALPS said SUCCESS, and it is still there. */
    RELEASED_STILL_PRESENT("released, still present"),
    /**
     * Made by a RESERVE that the other proxy of a pair forwarded and never answered (it stopped): the scheduler got
     * no answer and will ask again under a new RESERVE, so nobody will ever use or release this one.
     */
    INTERRUPTED_RESERVE("made by a RESERVE interrupted on a proxy that stopped; no scheduler was told of it"),
    /**
     * Its batch job has a newer reservation: a scheduler holds one reservation per job run and reserves again only
     * once it has let go of the last, so the older one's RESERVE answer never reached it (lost with a proxy that
     * stopped after answering) or its RELEASE did not reach ALPS.
     */
    SUPERSEDED("its batch job has a newer reservation"),
    /** Its batch id is not in the scheduler's job list. */
    JOB_GONE("its batch job is gone");

    private final String text;

    Reason(String text) {
        this.text = text;
    }

    /** Short operator text, e.g. {@code its batch job is gone}. */
    public String text() {
        return text;
    }

    /** The label used in metrics and JSON: {@code not-created-by-proxy}, ... */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
