# What a user of the user guide already has: a ledger (here a file; at a site, the ledger service named in
# /etc/alpsbridge/ledger.conf) holding their group's project with an allocation and one settled job.
export ALPSBRIDGE_LEDGER="sqlite:$HOME/ledger.db"
alpsbridge ledger project add chem --gid "$(id -g)" --account chem >/dev/null
alpsbridge ledger grant chem --resource cpu --hours 100 --from 2026-01-01 --to 2030-01-01 >/dev/null
alpsbridge ledger reserve --id 1 --batch-id 101 --project chem --user "$(id -un)" --nodes 1 --cores-per-node 4 --time-limit 60 >/dev/null
alpsbridge ledger confirm --id 1 >/dev/null
alpsbridge ledger release --id 1 --elapsed 1800 >/dev/null
