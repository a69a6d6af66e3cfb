// mlgo-clang++ is clang++ with the plugin: it compiles and links a C++
// program (exceptions, the standard library: the runtime clang++ adds), and
// the program runs. With -mlgo-use-llvm-advisor its object is byte for
// byte stock clang++'s.
//
// RUN: mlgo-clang++ -Oz %s -o %t.mlgo
// RUN: %t.mlgo | FileCheck %s
// RUN: clang++ -Oz -c %s -o %t.plain.o
// RUN: mlgo-clang++ -Oz -c %s -o %t.stock.o -mllvm -mlgo-use-llvm-advisor
// RUN: cmp %t.plain.o %t.stock.o
// RUN: head -2 %mlgo_obj/bin/mlgo-clang++ | FileCheck %s --check-prefix=HEAD
//
// CHECK: sum 15, caught bad index
// HEAD: # clang++ with mlgo's inliner plugin.

#include <cstdio>
#include <stdexcept>
#include <vector>

static int at(const std::vector<int> &V, size_t I) { return V.at(I); }

int main() {
  std::vector<int> V = {1, 2, 3, 4, 5};
  int Sum = 0;
  for (size_t I = 0; I < V.size(); ++I)
    Sum += at(V, I);
  try {
    at(V, 9);
  } catch (const std::out_of_range &) {
    std::printf("sum %d, caught bad index\n", Sum);
  }
  return 0;
}
