#!/usr/bin/env bash
# Writes the fuzz seeds that are derived from files of the repository rather than kept in
# tests/fuzz/corpus/: the demo bundle (demo/tutorial) in the section format of the bundle_yaml
# harness -- the whole bundle, its schema alone, and the schema with each report, cube and
# dashboard file.
#   tests/fuzz/extract_seeds.sh SOURCE_DIR OUT_DIR   (writes OUT_DIR/bundle_yaml/*)
set -euo pipefail

source_dir=$1
out_dir=$2
bundle=$source_dir/demo/tutorial
seeds=$out_dir/bundle_yaml
rm -rf "$seeds"
mkdir -p "$seeds"

# Prints the bundle files named, relative to the bundle, as "=== <name>" sections.
sections() {
  for name in "$@"; do
    printf '=== %s\n' "$name"
    cat "$bundle/$name"
  done
}

schema=(project.yaml tables.yaml attributes.yaml facts.yaml metrics.yaml filters.yaml)
objects=()
for file in "$bundle"/reports/*.yaml "$bundle"/cubes/*.yaml "$bundle"/dashboards/*.yaml; do
  objects+=("${file#"$bundle"/}")
done

sections "${schema[@]}" "${objects[@]}" >"$seeds/demo-tutorial"
sections "${schema[@]}" >"$seeds/demo-schema"
for name in "${objects[@]}"; do
  sections "${schema[@]}" "$name" >"$seeds/demo-${name//\//-}"
done
