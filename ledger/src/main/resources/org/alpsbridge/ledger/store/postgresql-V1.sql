-- Ledger schema, PostgreSQL dialect, version 1. Times are UTC epoch seconds; amounts integer units.
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE TABLE project (
    id         BIGSERIAL PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    gid        INTEGER NOT NULL UNIQUE,
    account    TEXT    UNIQUE,
    active     INTEGER NOT NULL DEFAULT 1,
    created_at BIGINT  NOT NULL
);
-- credited/held/settled are a cache of the journal, checked against it at start-up.
CREATE TABLE allocation (
    id         BIGSERIAL PRIMARY KEY,
    project_id BIGINT  NOT NULL REFERENCES project(id),
    resource   TEXT    NOT NULL CHECK (resource IN ('CPU', 'GPU')),
    category   TEXT    NOT NULL,
    starts_at  BIGINT  NOT NULL,
    ends_at    BIGINT  NOT NULL,
    credited   BIGINT  NOT NULL DEFAULT 0,
    held       BIGINT  NOT NULL DEFAULT 0 CHECK (held >= 0),
    settled    BIGINT  NOT NULL DEFAULT 0 CHECK (settled >= 0),
    last_seq   BIGINT  NOT NULL DEFAULT 0,
    CHECK (ends_at > starts_at),
    -- I6: periods of one project and resource never overlap; adjacent ones may touch.
    EXCLUDE USING gist (project_id WITH =, resource WITH =, int8range(starts_at, ends_at, '[)') WITH &&)
);
CREATE TABLE partition_weights (
    name        TEXT    PRIMARY KEY,
    cpu_milli   BIGINT  NOT NULL,
    mem_milli   BIGINT  NOT NULL,
    gpu_milli   BIGINT  NOT NULL,
    mult_milli  BIGINT  NOT NULL
);
CREATE TABLE reservation (
    id            BIGSERIAL PRIMARY KEY,
    rkey          TEXT    NOT NULL UNIQUE,
    cluster       TEXT    NOT NULL,
    batch_id      TEXT    NOT NULL,
    res_id        BIGINT  NOT NULL DEFAULT 0,
    project       TEXT    NOT NULL,
    owner         TEXT    NOT NULL,
    allocation_id BIGINT  REFERENCES allocation(id),
    params        TEXT    NOT NULL,
    rate          BIGINT  NOT NULL DEFAULT 0,
    limit_s       BIGINT  NOT NULL,
    limit_source  TEXT    NOT NULL,
    state         TEXT    NOT NULL,
    hold          BIGINT  NOT NULL DEFAULT 0,
    charge        BIGINT  NOT NULL DEFAULT 0,
    refunded      BIGINT  NOT NULL DEFAULT 0,
    overrun_s     BIGINT  NOT NULL DEFAULT 0,
    release_text  TEXT,
    reason        TEXT,
    message       TEXT,
    available     BIGINT  NOT NULL DEFAULT 0,
    forced        INTEGER NOT NULL DEFAULT 0,
    t_reserve     BIGINT  NOT NULL,
    t_confirm     BIGINT,
    t_release     BIGINT,
    CHECK (charge >= 0 AND refunded >= 0)
);
CREATE INDEX reservation_res ON reservation(cluster, res_id, id);
CREATE INDEX reservation_batch ON reservation(cluster, batch_id);
CREATE INDEX reservation_state ON reservation(state, t_reserve);
-- The journal: append-only, never updated or deleted.
CREATE TABLE entry (
    seq            BIGSERIAL PRIMARY KEY,
    allocation_id  BIGINT  NOT NULL REFERENCES allocation(id),
    allocation_seq BIGINT  NOT NULL,
    kind           TEXT    NOT NULL,
    amount         BIGINT  NOT NULL,
    rkey           TEXT,
    actor          TEXT    NOT NULL,
    reason         TEXT,
    created_at     BIGINT  NOT NULL,
    UNIQUE (allocation_id, allocation_seq)
);
CREATE INDEX entry_rkey ON entry(rkey);
CREATE FUNCTION entry_append_only() RETURNS trigger LANGUAGE plpgsql AS
    'BEGIN RAISE EXCEPTION ''the journal is append-only''; END';
CREATE TRIGGER entry_append_only BEFORE UPDATE OR DELETE ON entry
    FOR EACH ROW EXECUTE FUNCTION entry_append_only();
CREATE TABLE admin_request (
    request_id TEXT PRIMARY KEY,
    payload    TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE TABLE alert (
    id         BIGSERIAL PRIMARY KEY,
    created_at BIGINT  NOT NULL,
    kind       TEXT    NOT NULL,
    rkey       TEXT,
    project    TEXT,
    message    TEXT    NOT NULL
);
