#include "twice.h"
int fromB(int X) { return twice(X) * 5; }
