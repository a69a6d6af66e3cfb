// Two C++ inline functions both modules use, emitted linkonce_odr in each
// and kept once by the linker: outer() calls helper(), its only caller.
// Inlining helper into outer in one copy only makes the linked program
// larger (outer grows, and the other object's helper is still linked);
// inlining it in every copy removes helper from the program.
inline int helper(int X) {
  int S = X;
  for (int I = 0; I < X; ++I)
    S = S * 31 + (I ^ (S >> 3));
  return S;
}
inline int outer(int X) { return helper(X) + 1; }
int first(int X);
int second(int X);
