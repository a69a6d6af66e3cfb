/* The caller of lto-lib.c's helper: no compile step can inline it, since
   its body is in another file; only an LTO link's inliner can. */
int helper(int X);
int main(int Argc, char **Argv) {
  (void)Argv;
  return helper(Argc) + helper(Argc + 7);
}
