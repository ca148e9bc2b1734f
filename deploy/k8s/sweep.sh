#!/usr/bin/env bash
# Runs an experiment's sweep on Kubernetes: an Indexed Job of N shard pods, then (when all completed) a merge Job,
# all writing to the ReadWriteMany volume of results-pvc.yaml. Needs kubectl with a context, and the image of
# deploy/container/Dockerfile pushed where the cluster can pull it.
#
# Usage: deploy/k8s/sweep.sh [--render] IMAGE EXPERIMENT.yaml N RUN [-- sim run options...]
#   e.g. deploy/k8s/sweep.sh registry.example.com/metaroce-j:1 e1-loss.yaml 4 e1 -- --set workload.bytes=4MiB
#   EXPERIMENT is a file under experiments/ in the image; RUN names the jobs and the directory /results/RUN.
#   --render prints the manifests (the PVC, the shards' job, the merge job) instead of applying them.
# Environment: KUBECTL (default kubectl), TIMEOUT for each wait (default 24h).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
render=0
if [[ "${1:-}" == --render ]]; then render=1; shift; fi
if (($# < 4)); then sed -n '2,10p' "$0" >&2; exit 2; fi
image="$1"; experiment="$2"; shards="$3"; run="$4"; shift 4
[[ "${1:-}" == -- ]] && shift
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then echo "sweep.sh: N must be a positive number, got '$shards'" >&2; exit 2; fi
if ! [[ "$run" =~ ^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$ ]]; then
  echo "sweep.sh: RUN must be a lower-case DNS label (a-z, 0-9, '-'), got '$run'" >&2; exit 2
fi
sim_args="$*"
if [[ "$sim_args$experiment$image" == *[\"\\\|]* ]]; then
  echo "sweep.sh: quotes, backslashes and '|' are not allowed in IMAGE, EXPERIMENT or sim run options" >&2; exit 2
fi
fill() {
  sed -e "s|__IMAGE__|$image|g" -e "s|__EXPERIMENT__|$experiment|g" -e "s|__SHARDS__|$shards|g" \
      -e "s|__RUN__|$run|g" -e "s|__SIM_ARGS__|$sim_args|g" "$here/$1"
}
if ((render)); then
  cat "$here/results-pvc.yaml"; echo "---"; fill shards-job.yaml; echo "---"; fill merge-job.yaml
  exit 0
fi
k="${KUBECTL:-kubectl}"
timeout="${TIMEOUT:-24h}"
"$k" apply -f "$here/results-pvc.yaml"
fill shards-job.yaml | "$k" apply -f -
echo "waiting for job/metaroce-$run-shards ($shards shards)..."
"$k" wait --for=condition=complete --timeout="$timeout" "job/metaroce-$run-shards"
fill merge-job.yaml | "$k" apply -f -
"$k" wait --for=condition=complete --timeout=30m "job/metaroce-$run-merge" || true
"$k" logs "job/metaroce-$run-merge"
