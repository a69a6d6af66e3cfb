#include <stdio.h>
int main(void) {
  puts("the companion tool");
  return 0;
}
