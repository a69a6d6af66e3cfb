/* Two helpers called twice each: inlined at -Oz, kept by a never-inline model. */
static int sq(int x) { return x * x + 3; }
static int cube(int x) { return sq(x) * x - 7; }
int f(int x) { return sq(x) + cube(x); }
