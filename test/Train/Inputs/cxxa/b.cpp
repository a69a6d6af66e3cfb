#include "../cxx-shared.h"
unsigned hashB(unsigned X) { return mix(X) - 5; }
