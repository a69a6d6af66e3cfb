// Two hot functions and a cold one, for test/Speed: `first` runs 20000
// times; `second` every seventh round, or every round with an argument;
// `cold` never.
static int mix(const int *v, int n, int k) {
  int h = k;
  for (int i = 0; i < n; ++i) {
    h ^= v[i] + 0x9e3779b9 + (h << 6) + (h >> 2);
    if (h & 1)
      h = h * 31 + v[(i + k) % n];
    else
      h = h / 3 - v[i];
  }
  return h;
}
int first(const int *v, int n) { return mix(v, n, 1) + mix(v, n, 7); }
int second(const int *v, int n) { return mix(v, n, 3) - mix(v, n, 5); }
int cold(const int *v, int n) { return mix(v, n, 11) * mix(v, n, 13); }
