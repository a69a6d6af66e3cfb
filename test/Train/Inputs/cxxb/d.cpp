#include "../cxx-shared.h"
unsigned hashD(unsigned X) { return mix(X) + mix(X + 7); }
