-- Ledger schema, version 3: each project's share of the cluster (what alpsbridge ledger slurm-sync gives Slurm)
-- and its explicit members, with an append-only journal of their changes.
CREATE TABLE project_share (
    project_id   BIGINT PRIMARY KEY REFERENCES project(id),
    description  TEXT   NOT NULL DEFAULT '',
    organization TEXT   NOT NULL DEFAULT '',
    partitions   TEXT   NOT NULL DEFAULT '',
    caps         TEXT   NOT NULL DEFAULT ''
);
CREATE TABLE project_member (
    project_id BIGINT NOT NULL REFERENCES project(id),
    user_name  TEXT   NOT NULL,
    PRIMARY KEY (project_id, user_name)
);
CREATE TABLE project_change (
    seq        BIGSERIAL PRIMARY KEY,
    project_id BIGINT NOT NULL REFERENCES project(id),
    field      TEXT   NOT NULL,
    before     TEXT   NOT NULL,
    after      TEXT   NOT NULL,
    actor      TEXT   NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX project_change_project ON project_change(project_id, seq);
CREATE FUNCTION project_change_append_only() RETURNS trigger LANGUAGE plpgsql AS
    'BEGIN RAISE EXCEPTION ''the change journal is append-only''; END';
CREATE TRIGGER project_change_append_only BEFORE UPDATE OR DELETE ON project_change
    FOR EACH ROW EXECUTE FUNCTION project_change_append_only();
