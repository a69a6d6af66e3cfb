#include "shared.h"

int first(int X) { return mix(X) + mix(X + 1) + mix(X * 3); }

int main(int Argc, char **) { return (first(Argc) + second(Argc)) & 127; }
