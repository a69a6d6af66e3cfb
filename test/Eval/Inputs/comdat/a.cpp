#include "twice.h"
int fromA(int X) { return twice(X) + 3; }
