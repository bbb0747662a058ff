#!/usr/bin/env bash
# Start Elasticsearch in the foreground; like the official image, every environment variable named like a
# setting (lower case with a dot, e.g. discovery.type) becomes a -E option.
set -euo pipefail
# Like the official image: ELASTIC_PASSWORD_FILE sets the `elastic` user's password (the keystore's
# bootstrap.password, read by the node when security is on and no password has been stored yet).
if [[ -n "${ELASTIC_PASSWORD_FILE:-}" ]]; then
  keystore=/usr/share/elasticsearch/bin/elasticsearch-keystore
  [[ -f /usr/share/elasticsearch/config/elasticsearch.keystore ]] || "$keystore" create >/dev/null
  tr -d '\r\n' <"$ELASTIC_PASSWORD_FILE" | "$keystore" add -x -f bootstrap.password >/dev/null
fi
options=()
while IFS='=' read -r -d '' key value; do
  if [[ "$key" =~ ^[a-z0-9_]+\.[a-z0-9_.]+$ ]]; then
    options+=("-E" "$key=$value")
  fi
done < <(env -0)
exec /usr/share/elasticsearch/bin/elasticsearch "${options[@]}" "$@"
