-- Ledger schema, version 4: the nodes each project bought (a Slurm node list), for its workgroup partition
-- (alpsbridge ledger slurm-partitions); a change is journalled in project_change as field 'nodes'.
ALTER TABLE project_share ADD COLUMN nodes TEXT NOT NULL DEFAULT '';
