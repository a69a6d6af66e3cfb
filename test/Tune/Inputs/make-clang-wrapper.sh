#!/bin/sh
# Writes $1/clang-19: the clang-19 on PATH, but its --version says one line
# more ("(wrapped by the test)"), as another build of the compiler would.
set -e
real=$(command -v clang-19)
mkdir -p "$1"
cat > "$1/clang-19" <<WRAPPER
#!/bin/sh
if test "\$1" = --version; then
  "$real" --version
  echo "(wrapped by the test)"
  exit 0
fi
exec "$real" "\$@"
WRAPPER
chmod +x "$1/clang-19"
