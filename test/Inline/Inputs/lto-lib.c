/* A small function for lto-main.c's main: LLVM's heuristic inlines both of
   its calls in an LTO link, and so does the embedded model. */
int helper(int X) { return X * 3 + 1; }
