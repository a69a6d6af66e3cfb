/* The caller of lto-names-lib.c's work: a site only the link has. */
int work(int X);
int main(int Argc, char **Argv) {
  (void)Argv;
  return work(Argc);
}
