#!/usr/bin/env bash
# Step cost of the reduced-auto-affinity SPANK plugin under each task plugin (task/none, task/affinity,
# task/cgroup, task/affinity,task/cgroup): median wall time of `srun -n1 true` against
# `srun -n1 --reduced-auto-affinity=on true` with the plugin asking a running affinity agent, and against the same
# with the plugin starting the generator itself (agent=none), interleaved, each step once no job is left in
# slurmctld, on a real one-node Slurm started for the purpose; ratios to `srun true`, medians and minima
# (target with the agent: median at most 1.15x). The steps are run by the harness's unprivileged user
# (alpsbridge-test, created once), as a site's users run theirs; `root` as second argument runs them as root
# instead, for comparison. Every step must print nothing on stderr (no error, no fallback notice).
#   affinity/bench/spank-step-cost.sh [STEPS] [user|root]   (default 9 steps of each kind per task plugin, user)
# Runs the TaskPluginsSlurmIT benchmark methods through Maven (in the 'test' and again in the 'integration-test'
# phase, whose figures stay) and prints their lines from the test reports; each line names its generator and user.
# A measurement, not a test: nothing is asserted about the times.
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=${1:-9}
who=${2:-user}
case $who in
  user) root=false ;;
  root) root=true ;;
  *) echo "spank-step-cost.sh: the second argument is user or root, not '$who'" >&2; exit 2 ;;
esac
mvn -B -ntp -q -pl affinity -am verify -Dsurefire.failIfNoSpecifiedTests=false \
    -Dtest='TaskPluginsSlurmIT*#stepCost' -Daffinity.bench.steps="$steps" -Daffinity.bench.root="$root"
grep -h '^step cost' affinity/target/surefire-reports/*TaskPluginsSlurmIT*-output.txt
