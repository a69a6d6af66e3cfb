// Inline functions that every module of the C++ test corpus calls once:
// too large for -Oz to inline, so at -Oz each object keeps a copy of each,
// in a COMDAT group that a linker keeps once.
inline unsigned mix(unsigned X) {
  X ^= X >> 16;
  X *= 0x7feb352dU;
  X ^= X >> 15;
  X *= 0x846ca68bU;
  return X ^ (X >> 16);
}
inline unsigned fold(unsigned A, unsigned B) {
  return mix(A) * 3 + mix(B ^ 0x9e3779b9U);
}
