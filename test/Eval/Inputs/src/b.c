/* One helper called once, and a data table. */
static int tw(int x) { return 2 * x + 5; }
int g(int x) { return tw(x); }
const int table[4] = {1, 2, 3, 4};
