// A function in a text section of its own, as lmdb places its environment
// code (ESECT): a linker joins every address map into one linked to .text.
__attribute__((noinline, section("text_env"))) int env_sum(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += i * i;
  return s;
}

int main(int argc, char **argv) { return env_sum(argc * 100) & 1; }
