#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs taken from the project's own trees, scenarios and
# conformance cases, and from the external corpus at ../shared/corpus when it is there (read in
# place at seeding time; nothing of it is committed). Safe to run again: seeds are named by
# content. Needs a release build of the btvm binary (built here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
corpus=$root/fuzz/corpus
btvm=$root/target/release/btvm
[ -x "$btvm" ] || cargo build --release -q --bin btvm

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# put TARGET FILE: adds FILE to TARGET's corpus under a name derived from its contents.
put() {
  mkdir -p "$corpus/$1"
  cp "$2" "$corpus/$1/seed-$(sha1sum < "$2" | cut -c1-16)"
}

# section NAME FILE: the body of a conformance case's `--- NAME` section.
section() {
  awk -v want="--- $1" 'index($0, want) == 1 { on = 1; next } /^--- / { on = 0 } on' "$2"
}

shopt -s nullglob
n=0
for case in spec/cases/unvanquished/*.case spec/cases/dragengine/*.case spec/cases/spore/*.case \
    spec/cases/mbt/*.case spec/cases/bst/*.case; do
  dialect=$(grep -m1 '^--- tree ' "$case" | awk '{print $3}')
  section "tree $dialect" "$case" > "$tmp/tree"
  section scenario "$case" > "$tmp/scn"
  put "parse_$dialect" "$tmp/tree"
  put parse_scenario "$tmp/scn"
  n=$((n + 1))
done

trees=(spec/examples/guard.bt spec/examples/wanderer/wanderer.debt spec/examples/*.spore
  spec/examples/*.xml spec/examples/grunt/*.xml)
for t in spec/examples/wanderer/subtrees/*.debt; do trees+=("$t"); done
shared=../shared/corpus/unvanquished
if [ -d "$shared" ]; then
  for t in "$shared"/*.bt; do trees+=("$t"); done
fi
for t in "${trees[@]}"; do
  case "$t" in
    *.bt) put parse_unvanquished "$t" ;;
    *.debt) put parse_dragengine "$t" ;;
    *.spore) put parse_spore "$t" ;;
    */grunt/*.xml) put parse_bst "$t" ;;
    *.xml) put parse_mbt "$t" ;;
  esac
  # MBT examples use CRYENGINE's GameSDK nodes.
  profile=()
  case "$t" in
    */grunt/*) ;;
    *.xml) profile=(--profile gamesdk) ;;
  esac
  # The same tree in the canonical syntax, and compiled: a program file behind a mode byte that
  # rewrites the fingerprint (1) and also runs native code (3).
  if "$btvm" fmt "${profile[@]}" "$t" > "$tmp/canonical.btn" 2>/dev/null; then
    put parse_canonical "$tmp/canonical.btn"
  fi
  if "$btvm" compile "${profile[@]}" "$t" -o "$tmp/program" 2>/dev/null; then
    { printf '\001'; cat "$tmp/program"; } > "$tmp/seed"
    put verify "$tmp/seed"
    { printf '\003'; cat "$tmp/program"; } > "$tmp/seed"
    put verify "$tmp/seed"
  fi
done
# Saved cursors: one from a real run of the Drag[en]gine example, and records naming rules of
# the snapshot target's own tree (version 0, flags: bit 0 a rule is named, bit 1 first run).
w=spec/examples/wanderer
if "$btvm" run $w/wanderer.debt --scenario $w/wanderer.scn --save-at 5 --save "$tmp/state" > /dev/null; then
  put snapshot "$tmp/state"
fi
for id in top top.a top.a.go top.a.y top.b top.b.rest nosuch; do
  printf '\000\003\'"$(printf '%03o' ${#id})"'%s\000\001\003top' "$id" > "$tmp/snap"
  put snapshot "$tmp/snap"
done
# btvm snapshots of the snapshot_format target's own trees (mode byte k picks tree k): two
# agents saved after two ticks on the vm.
k=0
for src in \
  'btvm 1;\ndialect unvanquished;\nimport action a 0..1 long;\nroot main = selector running-list { action a(1) action a(2) }\n' \
  'btvm 1;\ndialect dragengine;\nmodel cursor 6;\nimport action go 0..0;\nroot main = sequence @"s" cursor loop { action go() yield }\n' \
  'btvm 1;\ndialect mbt;\nimport action Move 0..1 long;\nroot main = loop forever until failure { groupscope "cover" 1 { action Move(1) } }\n' \
  'btvm 1;\ndialect bst;\nroot main = select "x"\n' \
  'btvm 1;\ndialect spore;\nimport action walk 0..0;\nroot main = decider { group prioritized { decider { behavior walk tick } } }\n'; do
  printf "$src" > "$tmp/fixed.btn"
  if "$btvm" run "$tmp/fixed.btn" --ticks 3 --agents 2 --engine vm --save-at 2 \
      --snapshot-format btvm --save "$tmp/fixed.snap" > /dev/null; then
    { printf "\\$(printf '%03o' $k)"; cat "$tmp/fixed.snap"; } > "$tmp/seed"
    put snapshot_format "$tmp/seed"
  fi
  k=$((k + 1))
done
for s in spec/examples/*.scn spec/examples/*/*.scn spec/scenarios/*.scn; do
  put parse_scenario "$s"
done
for p in compiler/profiles/*.toml; do
  put profile "$p"
done
echo "seeded from $n conformance cases and ${#trees[@]} trees:"
for d in "$corpus"/*/; do
  echo "  $(basename "$d"): $(find "$d" -type f | wc -l) inputs"
done
