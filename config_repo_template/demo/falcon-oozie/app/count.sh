#!/bin/sh
# $1: the input's paths (comma-separated file:// URIs), $2: the output's staging path, $3: the nominal time.
set -e
out="${2#file://}"
mkdir -p "$out"
clicks=0
for path in $(echo "$1" | tr ',' ' '); do
  clicks=$((clicks + $(cat "${path#file://}"/part-* | wc -l)))
done
printf '{"hour": "%s", "clicks": %d}\n' "$3" "$clicks" > "$out/part-00000.json"
