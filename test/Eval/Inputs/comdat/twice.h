// An inline function both modules call. -Oz inlines it; a policy that does
// not leaves a copy in each object, in a COMDAT group (section
// .text._Z5twicei), and a linker keeps one of the copies.
inline int twice(int X) { return 2 * X + 1; }
