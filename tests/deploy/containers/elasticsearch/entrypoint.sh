#!/usr/bin/env bash
# Start Elasticsearch in the foreground; like the official image, every environment variable named like a
# setting (lower case with a dot, e.g. discovery.type) becomes a -E option.
set -euo pipefail
options=()
while IFS='=' read -r -d '' key value; do
  if [[ "$key" =~ ^[a-z0-9_]+\.[a-z0-9_.]+$ ]]; then
    options+=("-E" "$key=$value")
  fi
done < <(env -0)
exec /usr/share/elasticsearch/bin/elasticsearch "${options[@]}" "$@"
