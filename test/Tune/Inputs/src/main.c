#include <stddef.h>
#include <stdio.h>
struct shape { int kind; int w, h, r; };
int total_area(const struct shape *v, size_t n);
int total_perimeter(const struct shape *v, size_t n);
int largest(const struct shape *v, size_t n);
void grow_all(struct shape *v, size_t n, int f);
void shrink_all(struct shape *v, size_t n);

static void report(const char *what, int v) { printf("%s: %d\n", what, v); }

int main(void) {
  struct shape v[] = {{0, 2, 3, 0}, {1, 0, 0, 4}, {2, 6, 8, 0}};
  report("area", total_area(v, 3));
  report("perimeter", total_perimeter(v, 3));
  grow_all(v, 3, 3);
  report("largest", largest(v, 3));
  shrink_all(v, 3);
  report("area", total_area(v, 3));
  return 0;
}
