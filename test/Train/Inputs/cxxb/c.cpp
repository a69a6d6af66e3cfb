#include "../cxx-shared.h"
unsigned hashC(unsigned X) { return fold(X, X + 1); }
