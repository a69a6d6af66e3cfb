#include "shared.h"

int first(int X) { return outer(X) * 3; }

int main(int Argc, char **) { return (first(Argc) + second(Argc)) & 127; }
