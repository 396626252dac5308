-- Ledger schema, version 2 (issue 21): reservations are indexed by state only where a state is looked up.
-- Holds in progress (the sweep, the holds report, check) and denials (the failures report) keep an index;
-- a settled or voided reservation, most of the table, leaves both, so a RELEASE no longer adds an entry to a
-- state index and the indexes stay the size of what is open or denied.
CREATE INDEX reservation_open ON reservation(state, t_reserve) WHERE state IN ('HELD', 'CONFIRMED');
CREATE INDEX reservation_denied ON reservation(id) WHERE state = 'DENIED';
DROP INDEX reservation_state;
