static int sq(int x) { return x * x; }
int sum(int *a, int n) { int s = 0; for (int i = 0; i < n; ++i) s += sq(a[i]) + a[i] / 3; return s; }
int helper(int a, int b) { if (a > b) return a - b; return b * 7 + 1000; }
int use(int *a, int n) { return helper(sum(a, n), n) + helper(n, 3); }
