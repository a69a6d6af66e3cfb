// Three static callees, each called once: the inliner asks about a, b, c.
volatile int Sink;
static void a(int x) { Sink = x; Sink = x * 3; }
static void b(int x) { Sink = x + 1; Sink = x * 5; }
static void c(int x) { Sink = x + 2; Sink = x * 7; }
void entry(int x) { a(x); b(x); c(x); }
