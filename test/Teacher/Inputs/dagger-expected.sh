#!/bin/sh
# dagger-expected.sh SRC STUDENT DECISIONS SET WORK
#
# The site lines a DAgger round must add, computed without mlgo teacher:
# every module of SET (in its order) is compiled from SRC with the student
# alone by mlgo-clang, its training log (features and decisions, `mlgo log
# dump`) and call sites read back; a site is printed where an entry of
# the tuned DECISIONS (its site entry, else its callee's group entry)
# fixes another answer than the student's. Printed as the set writes a
# site without its <saved> field:
#   site * <module> <caller> <callee> <ordinal> <llvm> <student> <tuned> 1 <v1>...
# Only single-program sets of C modules (no `program` section).
set -eu
src=$1 student=$2 decisions=$3 set=$4 work=$5
mkdir -p "$work"
if grep -q '^program' "$decisions"; then
  echo "dagger-expected.sh: a program section: not handled" >&2
  exit 1
fi
for m in $(awk '$1 == "site" { print $3 }' "$set" | uniq); do
  (cd "$src" && mlgo-clang -Oz -c "$m" -o "$work/x.o" \
     -mllvm -mlgo-model="$student" -mllvm -mlgo-training-log="$work/x.log")
  mlgo log dump "$work/x.log" | awk -v mod="$m" '
    $1 == "site:" { caller = $2; callee = $4; ord = substr($5, 2); v = ""; next }
    $1 == "inlining_decision:" { print mod, caller, callee, ord, dflt, $2 v; next }
    $1 == "inlining_default:" { dflt = $2 }
    caller != "" && $1 ~ /:$/ && $1 != "observation:" { v = v " " $2 }'
done > "$work/rollout.txt"
awk '
  FNR == NR {
    if ($1 == "module") mod = $2
    else if ($1 == "inline" || $1 == "no-inline") {
      a = $1 == "inline" ? 1 : 0
      if ($2 == "*") group[mod " " $3] = a
      else site[mod " " $2 " " $3 " " $4] = a
    }
    next
  }
  {
    k = $1 " " $2 " " $3 " " $4
    if (k in site) t = site[k]
    else if (($1 " " $3) in group) t = group[$1 " " $3]
    else next
    if (t == $6) next
    line = "site * " $1 " " $2 " " $3 " " $4 " " $5 " " $6 " " t " 1"
    for (i = 7; i <= NF; i++) line = line " " $i
    print line
  }' "$decisions" "$work/rollout.txt"
