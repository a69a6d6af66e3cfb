#include <stddef.h>
#include <stdio.h>
struct shape { int kind; int w, h, r; };
int total_area(const struct shape *v, size_t n);
int total_perimeter(const struct shape *v, size_t n);
void grow_all(struct shape *v, size_t n, int f);

static void report(const char *what, int v) { printf("%s: %d\n", what, v); }

int main(void) {
  struct shape v[] = {{0, 2, 3, 0}, {1, 0, 0, 4}, {2, 6, 8, 0}};
  report("area", total_area(v, 3));
  grow_all(v, 3, 2);
  report("perimeter", total_perimeter(v, 3));
  return 0;
}
