#!/usr/bin/env bash
# podman for podman-compose 1.0.3 (its --podman-path), for a service whose network_mode is `container:NAME`:
# that podman-compose still adds the project's network (`--net X --network-alias Y`), which podman refuses
# next to a container's namespace. Drop those two options in that case only; pass everything else through.
set -euo pipefail
args=("$@")
shared=0
for arg in "${args[@]}"; do
  [[ "$arg" == container:* ]] && shared=1
done
if [[ "$shared" == 1 ]]; then
  kept=()
  i=0
  while (( i < ${#args[@]} )); do
    case "${args[i]}" in
      --net|--network-alias) i=$((i + 2)) ;;
      *) kept+=("${args[i]}"); i=$((i + 1)) ;;
    esac
  done
  args=("${kept[@]}")
fi
exec podman "${args[@]}"
