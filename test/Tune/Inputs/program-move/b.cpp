#include "shared.h"

int second(int X) { return outer(X ^ 5) - outer(X + 9); }
