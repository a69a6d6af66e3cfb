// A C++ inline function both modules use: emitted linkonce_odr in each,
// kept once by the linker.
inline int scale(int X) { return X * 7 + 3; }
inline int clampTo(int X, int Hi) { return X < 0 ? 0 : X > Hi ? Hi : X; }
inline int mix(int X) {
  int S = 0;
  for (int I = 0; I < X; ++I)
    S += clampTo(scale(X + I), 1000) ^ clampTo(scale(I), 255);
  return S;
}
int first(int X);
int second(int X);
