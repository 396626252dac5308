-- Ledger schema, SQLite dialect, version 1. Times are UTC epoch seconds; amounts integer units.
CREATE TABLE project (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    gid        INTEGER NOT NULL UNIQUE,
    account    TEXT    UNIQUE,
    active     INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
);
-- credited/held/settled are a cache of the journal, checked against it at start-up.
CREATE TABLE allocation (
    id         INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES project(id),
    resource   TEXT    NOT NULL CHECK (resource IN ('CPU', 'GPU')),
    category   TEXT    NOT NULL,
    starts_at  INTEGER NOT NULL,
    ends_at    INTEGER NOT NULL,
    credited   INTEGER NOT NULL DEFAULT 0,
    held       INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0),
    settled    INTEGER NOT NULL DEFAULT 0 CHECK (settled >= 0),
    last_seq   INTEGER NOT NULL DEFAULT 0,
    CHECK (ends_at > starts_at)
);
CREATE INDEX allocation_project ON allocation(project_id, resource, starts_at);
CREATE TABLE partition_weights (
    name        TEXT    PRIMARY KEY,
    cpu_milli   INTEGER NOT NULL,
    mem_milli   INTEGER NOT NULL,
    gpu_milli   INTEGER NOT NULL,
    mult_milli  INTEGER NOT NULL
);
CREATE TABLE reservation (
    id            INTEGER PRIMARY KEY,
    rkey          TEXT    NOT NULL UNIQUE,
    cluster       TEXT    NOT NULL,
    batch_id      TEXT    NOT NULL,
    res_id        INTEGER NOT NULL DEFAULT 0,
    project       TEXT    NOT NULL,
    owner         TEXT    NOT NULL,
    allocation_id INTEGER REFERENCES allocation(id),
    params        TEXT    NOT NULL,
    rate          INTEGER NOT NULL DEFAULT 0,
    limit_s       INTEGER NOT NULL,
    limit_source  TEXT    NOT NULL,
    state         TEXT    NOT NULL,
    hold          INTEGER NOT NULL DEFAULT 0,
    charge        INTEGER NOT NULL DEFAULT 0,
    refunded      INTEGER NOT NULL DEFAULT 0,
    overrun_s     INTEGER NOT NULL DEFAULT 0,
    release_text  TEXT,
    reason        TEXT,
    message       TEXT,
    available     INTEGER NOT NULL DEFAULT 0,
    forced        INTEGER NOT NULL DEFAULT 0,
    t_reserve     INTEGER NOT NULL,
    t_confirm     INTEGER,
    t_release     INTEGER,
    CHECK (charge >= 0 AND refunded >= 0)
);
CREATE INDEX reservation_res ON reservation(cluster, res_id, id);
CREATE INDEX reservation_batch ON reservation(cluster, batch_id);
CREATE INDEX reservation_state ON reservation(state, t_reserve);
-- The journal: append-only, never updated or deleted.
CREATE TABLE entry (
    seq            INTEGER PRIMARY KEY,
    allocation_id  INTEGER NOT NULL REFERENCES allocation(id),
    allocation_seq INTEGER NOT NULL,
    kind           TEXT    NOT NULL,
    amount         INTEGER NOT NULL,
    rkey           TEXT,
    actor          TEXT    NOT NULL,
    reason         TEXT,
    created_at     INTEGER NOT NULL,
    UNIQUE (allocation_id, allocation_seq)
);
CREATE INDEX entry_rkey ON entry(rkey);
CREATE TRIGGER entry_append_only_update BEFORE UPDATE ON entry
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER entry_append_only_delete BEFORE DELETE ON entry
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TABLE admin_request (
    request_id TEXT PRIMARY KEY,
    payload    TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE alert (
    id         INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    rkey       TEXT,
    project    TEXT,
    message    TEXT    NOT NULL
);
