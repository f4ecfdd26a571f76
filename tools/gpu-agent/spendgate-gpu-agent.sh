#!/bin/sh
# spendgate-gpu-agent: reads this host's GPUs with nvidia-smi every SPENDGATE_INTERVAL
# seconds and pushes the readings to Spendgate's GPU analytics in batches, with an ingest
# key from the GPU screen's settings. POSIX sh and curl (7.87 or later) only.
#
#   SPENDGATE_URL=https://spendgate.example.com SPENDGATE_GPU_KEY=sg_gpu_… \
#   SPENDGATE_CLUSTER=training tools/gpu-agent/spendgate-gpu-agent.sh
#
# Settings (environment):
#   SPENDGATE_URL         where Spendgate answers (required)
#   SPENDGATE_GPU_KEY     an ingest key, sg_gpu_… (required; never printed)
#   SPENDGATE_CLUSTER     the cluster this host belongs to (required)
#   SPENDGATE_HOST        this host's name as Spendgate shows it (default: hostname)
#   SPENDGATE_INTERVAL    seconds between readings (default 15)
#   SPENDGATE_PUSH_EVERY  readings per push (default 4: a push a minute)
#   NVIDIA_SMI            the nvidia-smi to run (default: nvidia-smi on the PATH)
# With --once it takes one batch of readings, pushes it and exits (for a cron job or a timer).
#
# A push that fails keeps its readings for the next one (at most 4,000 lines of each
# kind); Spendgate stores a GPU's reading at an instant once, so a batch sent twice
# counts once. Each push is one of `--query-gpu` rows and one of `--query-compute-apps`
# rows (which process holds how much memory on which GPU).
set -u

: "${SPENDGATE_URL:?set SPENDGATE_URL to where Spendgate answers, e.g. https://spendgate.example.com}"
: "${SPENDGATE_GPU_KEY:?set SPENDGATE_GPU_KEY to an ingest key (sg_gpu_…) from the GPU screen settings}"
: "${SPENDGATE_CLUSTER:?set SPENDGATE_CLUSTER to the cluster this host belongs to}"
HOST="${SPENDGATE_HOST:-$(hostname)}"
INTERVAL="${SPENDGATE_INTERVAL:-15}"
PUSH_EVERY="${SPENDGATE_PUSH_EVERY:-4}"
NVIDIA_SMI="${NVIDIA_SMI:-nvidia-smi}"
ONCE=no
[ "${1:-}" = "--once" ] && ONCE=yes

GPU_FIELDS=timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,power.draw
APP_FIELDS=timestamp,gpu_uuid,pid,process_name,used_memory
MAX_LINES=4000

SPOOL=$(mktemp -d "${TMPDIR:-/tmp}/spendgate-gpu-agent.XXXXXX") || exit 1
trap 'rm -rf "$SPOOL"' EXIT
trap 'exit 0' INT TERM
: >"$SPOOL/gpus"
: >"$SPOOL/compute-apps"

# push KIND: sends what is kept of KIND; kept for the next push when Spendgate cannot take it.
push() {
  kind=$1
  kept="$SPOOL/$kind"
  [ -s "$kept" ] || return 0
  if [ "$kind" = gpus ]; then
    { echo "$GPU_FIELDS" | sed 's/,/, /g'; cat "$kept"; } >"$SPOOL/body"
  else
    cp "$kept" "$SPOOL/body"
  fi
  answer=$(curl -sS --max-time 30 -o "$SPOOL/answer" -w '%{http_code}' -X POST "$SPENDGATE_URL/api/gpu/ingest/nvidia-smi" \
    --url-query "kind=$kind" --url-query "cluster=$SPENDGATE_CLUSTER" --url-query "host=$HOST" \
    -H "authorization: Bearer $SPENDGATE_GPU_KEY" -H 'content-type: text/csv' --data-binary "@$SPOOL/body")
  case "$answer" in
    2*) : >"$kept" ;;
    4*)
      # Refused (a bad line, a revoked key, the plan): another try would be refused the same way.
      echo "spendgate-gpu-agent: Spendgate refused the $kind batch ($answer): $(cat "$SPOOL/answer")" >&2
      : >"$kept"
      ;;
    *)
      echo "spendgate-gpu-agent: the $kind batch could not be sent (${answer:-no answer}); kept for the next push" >&2
      tail -n "$MAX_LINES" "$kept" >"$SPOOL/tail" && mv "$SPOOL/tail" "$kept"
      ;;
  esac
}

readings=0
while :; do
  "$NVIDIA_SMI" --query-gpu="$GPU_FIELDS" --format=csv,noheader >>"$SPOOL/gpus" || echo "spendgate-gpu-agent: $NVIDIA_SMI --query-gpu failed" >&2
  "$NVIDIA_SMI" --query-compute-apps="$APP_FIELDS" --format=csv,noheader >>"$SPOOL/compute-apps" || echo "spendgate-gpu-agent: $NVIDIA_SMI --query-compute-apps failed" >&2
  readings=$((readings + 1))
  if [ "$readings" -ge "$PUSH_EVERY" ]; then
    push gpus
    push compute-apps
    readings=0
    [ "$ONCE" = yes ] && exit 0
  fi
  sleep "$INTERVAL"
done
