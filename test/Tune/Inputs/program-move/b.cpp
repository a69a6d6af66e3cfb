#include "shared.h"

int second(int X) { return outer(X ^ 5) - 2; }
