#!/usr/bin/env bash
# Fails when the committed API types (frontend/src/api/schema.gen.*) are not what the backend's current
# OpenAPI schema generates: someone changed a serializer or a view and did not run `make types`.
# Part of `make lint`. Generates into a temp dir; never touches the committed files.
set -euo pipefail

frontend_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
committed=$frontend_dir/src/api
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT

"$frontend_dir/scripts/generate-api-types.sh" "$fresh" || {
  echo "check-api-types: could not generate the API types (see the error above), so could not check them." >&2
  exit 1
}

stale=()
for name in schema.gen.yaml schema.gen.ts; do
  if ! cmp -s "$fresh/$name" "$committed/$name"; then
    stale+=("$name")
    echo "--- differences in frontend/src/api/$name (committed vs generated now):" >&2
    diff -u --label "committed" --label "generated" "$committed/$name" "$fresh/$name" | head -40 >&2 || true
  fi
done

if ((${#stale[@]})); then
  echo >&2
  echo "API types are out of date: frontend/src/api/{${stale[*]// /,}} differ from what the current backend" >&2
  echo "generates. Run \`make types\`, fix any TypeScript error it reveals (npm run lint), and commit the result." >&2
  exit 1
fi
echo "API types are current (frontend/src/api/schema.gen.ts matches the OpenAPI schema)."
