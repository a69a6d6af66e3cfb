/* work's two calls of step are sites of this module's compile step; an
   LTO link inlines work into lto-names-main.c's main, and the declined
   call of step with it, where the link's inliner asks about it again. */
static int step(int X) { return X * 3 + 1; }
int work(int X) { return step(X) + step(X ^ 5); }
