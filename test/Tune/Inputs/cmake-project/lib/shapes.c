// A small program for the tuning tests: helpers of several sizes called
// from several places, so that some inlining decisions pay and some do not.
#include <stddef.h>

struct shape { int kind; int w, h, r; };

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int area(const struct shape *s) {
  switch (s->kind) {
  case 0: return s->w * s->h;
  case 1: return 3 * s->r * s->r;
  case 2: return s->w * s->h / 2;
  default: return 0;
  }
}

static int perimeter(const struct shape *s) {
  switch (s->kind) {
  case 0: return 2 * (s->w + s->h);
  case 1: return 6 * s->r;
  case 2: return s->w + s->h + clamp(s->w + s->h, 0, 1000);
  default: return 0;
  }
}

static void scale(struct shape *s, int f) {
  s->w = clamp(s->w * f, 0, 1 << 20);
  s->h = clamp(s->h * f, 0, 1 << 20);
  s->r = clamp(s->r * f, 0, 1 << 20);
}

int total_area(const struct shape *v, size_t n) {
  int t = 0;
  for (size_t i = 0; i < n; ++i)
    t += area(&v[i]);
  return t;
}

int total_perimeter(const struct shape *v, size_t n) {
  int t = 0;
  for (size_t i = 0; i < n; ++i)
    t += perimeter(&v[i]);
  return t;
}

int largest(const struct shape *v, size_t n) {
  int best = -1, at = -1;
  for (size_t i = 0; i < n; ++i) {
    int a = area(&v[i]) + perimeter(&v[i]);
    if (a > best) { best = a; at = (int)i; }
  }
  return at;
}

void grow_all(struct shape *v, size_t n, int f) {
  for (size_t i = 0; i < n; ++i)
    scale(&v[i], clamp(f, 1, 16));
}

void shrink_all(struct shape *v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (area(&v[i]) > 100)
      scale(&v[i], 0);
}

static int op(int kind, int a, int b) {
  switch (kind) {
  case 0: return clamp(a * 7 + b * 3 - (a >> 2), -9999, 9999);
  case 1: return clamp(a * b + (a ^ b) - (b << 3), -9999, 9999);
  case 2: return clamp((a | b) * 5 - a / (b ? b : 1), -9999, 9999);
  case 3: return clamp(a - b * 11 + (a & 0xff) * 13, -9999, 9999);
  default: return 0;
  }
}

int mix0(int a, int b) { return op(0, a, b); }
int mix1(int a, int b) { return op(1, a, b); }
int mix2(int a, int b) { return op(2, a, b) + op(3, b, a); }

static void log_value(int *log, int *n, int v) {
  if (*n < 64) log[(*n)++] = v;
  else { for (int i = 1; i < 64; ++i) log[i - 1] = log[i]; log[63] = v; }
}

int record(int *log, int *n, int a, int b, int c) {
  log_value(log, n, a);
  log_value(log, n, b);
  log_value(log, n, c);
  log_value(log, n, a + b + c);
  return *n;
}
