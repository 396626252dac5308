-- Ledger schema, version 3: each project's share of the cluster (what alpsbridge ledger slurm-sync gives Slurm)
-- and its explicit members, with an append-only journal of their changes.
CREATE TABLE project_share (
    project_id   INTEGER PRIMARY KEY REFERENCES project(id),
    description  TEXT    NOT NULL DEFAULT '',
    organization TEXT    NOT NULL DEFAULT '',
    partitions   TEXT    NOT NULL DEFAULT '',
    caps         TEXT    NOT NULL DEFAULT ''
);
CREATE TABLE project_member (
    project_id INTEGER NOT NULL REFERENCES project(id),
    user_name  TEXT    NOT NULL,
    PRIMARY KEY (project_id, user_name)
);
CREATE TABLE project_change (
    seq        INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES project(id),
    field      TEXT    NOT NULL,
    before     TEXT    NOT NULL,
    after      TEXT    NOT NULL,
    actor      TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX project_change_project ON project_change(project_id, seq);
CREATE TRIGGER project_change_append_only_update BEFORE UPDATE ON project_change
    BEGIN SELECT RAISE(ABORT, 'the change journal is append-only'); END;
CREATE TRIGGER project_change_append_only_delete BEFORE DELETE ON project_change
    BEGIN SELECT RAISE(ABORT, 'the change journal is append-only'); END;
