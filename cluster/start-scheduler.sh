#!/usr/bin/env bash
# Start the Dask scheduler that dgraph's workers and clients connect to.
# Runs in the foreground (use nohup/tmux/your batch system to keep it up).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: cluster/start-scheduler.sh [options] [-- extra `dask scheduler` options]

  --port PORT             port to listen on                          (default 8786)
  --protocol tcp|ucx      ucx needs distributed-ucxx: pip install 'dgraph-frontier[ucx]'  (default tcp)
  --host HOST             address or hostname to listen on           (default: all / auto)
  --interface IFACE       network interface to listen on, e.g. ib0 or eth0
  --dashboard-port PORT   dashboard port, or "none" for no dashboard (default 8787)
  --scheduler-file FILE   also write the address to FILE (shared filesystems, batch jobs)
  -h, --help              this message

Then start workers on every host (cluster/start-cpu-worker.sh or
cluster/start-gpu-worker.sh) and connect with
  dgraph.cluster.connect("tcp://THIS-HOST:PORT")
See cluster/README.md.
USAGE
}

die() { echo "start-scheduler.sh: $*" >&2; echo >&2; usage >&2; exit 2; }
need() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }

port=8786 protocol=tcp host="" interface="" dashboard=8787 scheduler_file=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) need "$@"; port=$2; shift 2 ;;
    --protocol) need "$@"; protocol=$2; shift 2 ;;
    --host) need "$@"; host=$2; shift 2 ;;
    --interface) need "$@"; interface=$2; shift 2 ;;
    --dashboard-port) need "$@"; dashboard=$2; shift 2 ;;
    --scheduler-file) need "$@"; scheduler_file=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown argument: $1" ;;
  esac
done

[[ "$port" =~ ^[0-9]+$ ]] || die "--port must be a number, got '$port'"
case "$protocol" in
  tcp) ;;
  ucx|ucxx)
    python3 -c 'import distributed_ucxx' 2>/dev/null \
      || die "--protocol $protocol needs distributed-ucxx: pip install 'dgraph-frontier[ucx]'" ;;
  *) die "--protocol must be tcp or ucx, got '$protocol'" ;;
esac

args=(scheduler --port "$port" --protocol "$protocol")
[[ -n "$host" ]] && args+=(--host "$host")
[[ -n "$interface" ]] && args+=(--interface "$interface")
if [[ "$dashboard" == none ]]; then
  args+=(--no-dashboard)
else
  [[ "$dashboard" =~ ^[0-9]+$ ]] || die "--dashboard-port must be a number or none"
  args+=(--dashboard-address ":$dashboard")
fi
[[ -n "$scheduler_file" ]] && args+=(--scheduler-file "$scheduler_file")

if command -v dask >/dev/null 2>&1; then dask=(dask); else dask=(python3 -m dask); fi
echo "+ ${dask[*]} ${args[*]} $*" >&2
exec "${dask[@]}" "${args[@]}" "$@"
