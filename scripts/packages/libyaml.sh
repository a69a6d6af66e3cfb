# libyaml: its configure, built by detection (the library).
#
# Profile workload (the speed corpus, `mlgo profile package`): upstream's
# test programs on its example documents and on one larger generated
# document (nested mappings, sequences, anchors and quoted scalars): the
# scanner, parser, loader, dumper and emitter (run-* in tests/), which
# exercise every stage of the library (the larger document through the
# first three: the other two hold their output in 64 KiB).
profile_workload() {
  make -C tests run-scanner run-parser run-loader run-dumper run-emitter
  local tmp i
  tmp=$(mktemp -d)
  {
    echo "defaults: &defaults"
    echo "  adapter: postgres"
    echo "  host: 'localhost'"
    for ((i = 0; i < 3000; i++)); do
      echo "item$i:"
      echo "  <<: *defaults"
      echo "  id: $i"
      echo "  name: \"entry number $i with \\\"quotes\\\"\""
      echo "  tags: [alpha, beta, gamma-$i]"
      echo "  values:"
      echo "    - $((i * 7 % 1000))"
      echo "    - {x: $i, y: $((i * 3))}"
    done
  } >"$tmp/big.yaml"
  for f in examples/*.yaml; do
    for t in run-scanner run-parser run-loader run-dumper run-emitter; do
      "./tests/$t" "$f" >/dev/null
    done
  done
  # run-dumper and run-emitter write into a fixed 64 KiB buffer and abort
  # on a larger document: the large one goes through the readers only.
  for t in run-scanner run-parser run-loader; do
    "./tests/$t" "$tmp/big.yaml" >/dev/null
  done
  rm -rf "$tmp"
}
