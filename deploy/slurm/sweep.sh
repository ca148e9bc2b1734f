#!/usr/bin/env bash
# Runs an experiment's sweep on Slurm: a job array of N shards, then a merge job that starts when all succeeded.
#
# Usage: deploy/slurm/sweep.sh EXPERIMENT.yaml N [OUT] [-- sim run options...]
#   e.g. deploy/slurm/sweep.sh experiments/e1-loss.yaml 4 results/e1 -- --set workload.bytes=4MiB
# Extra sbatch options (partition, account, ...) come from SBATCH_* environment variables, e.g.
# SBATCH_PARTITION=cpu SBATCH_ACCOUNT=lab deploy/slurm/sweep.sh ...  Run it from the checkout, on a file system
# the compute nodes see; it builds the project (and its AOT cache) once here, so the shards do not race to.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if (($# < 2)); then sed -n '2,9p' "$0" >&2; exit 2; fi
experiment="$1"; shards="$2"; shift 2
out="results/sim/$(basename "${experiment%.*}")"
if (($#)) && [[ "$1" != -- ]]; then out="$1"; shift; fi
[[ "${1:-}" == -- ]] && shift
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then echo "sweep.sh: N must be a positive number, got '$shards'" >&2; exit 2; fi
[[ -f "$experiment" ]] || { echo "sweep.sh: no such experiment file: $experiment" >&2; exit 2; }
cd "$root"
./metaroce --version >/dev/null   # build and make the AOT cache now, once
mkdir -p "$out"
export EXPERIMENT="$experiment" OUT="$out" SHARDS="$shards" SIM_ARGS="$*" METAROCE_ROOT="$root"
array=$(sbatch --parsable --array="1-$shards" --export=ALL "$root/deploy/slurm/shard.sbatch")
array="${array%%;*}"   # --parsable prints "jobid[;cluster]"
merge=$(sbatch --parsable --dependency="afterok:$array" --export=ALL "$root/deploy/slurm/merge.sbatch")
echo "submitted shards: job array $array (1-$shards), merge: job ${merge%%;*} -> $out/summary.md"
