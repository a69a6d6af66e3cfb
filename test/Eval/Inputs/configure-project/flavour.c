#include <stdio.h>
int main(void) { puts(FLAVOUR); return 0; }
