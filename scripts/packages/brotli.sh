# brotli: its plain Makefile (bin/brotli, the tool with the encoder and
# decoder compiled in; `make` also runs upstream's round trip tests). Its
# top-level `configure` only prints advice and succeeds, so detection would
# take it and then run make without CC=, and an eval or profile build (which
# exports no compiler) would compile with the system's cc. The corpus build
# compiles the same commands either way.
build_system=make

# Profile workload (the speed corpus, `mlgo profile package`): bin/brotli
# compresses its own C sources at qualities 1, 5 and 9 and decompresses
# each, checking the round trip. (The speed benchmarks compress other text,
# lua's and lzip's sources, at quality 9.)
profile_workload() {
  local tmp q
  tmp=$(mktemp -d)
  cat c/common/*.c c/dec/*.c c/enc/*.c c/tools/*.c >"$tmp/in"
  for q in 1 5 9; do
    ./bin/brotli -f -q "$q" -o "$tmp/in.br" "$tmp/in"
    ./bin/brotli -f -d -o "$tmp/out" "$tmp/in.br"
    cmp "$tmp/in" "$tmp/out"
  done
  rm -rf "$tmp"
}
