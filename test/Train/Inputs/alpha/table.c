// A small module with a handful of inlining decisions: helpers of
// different sizes, called once or several times.
struct Entry { int Key; int Value; };
static struct Entry Table[64];
static int Count;

static int hash(int K) { return (K * 2654435761u) >> 26; }
static int probe(int K) {
  int H = hash(K);
  for (int I = 0; I < 64; ++I) {
    int S = (H + I) & 63;
    if (Table[S].Key == K || Table[S].Key == 0)
      return S;
  }
  return -1;
}
static void store(int S, int K, int V) {
  Table[S].Key = K;
  Table[S].Value = V;
  ++Count;
}
int put(int K, int V) {
  int S = probe(K);
  if (S < 0)
    return 0;
  if (Table[S].Key == 0)
    store(S, K, V);
  else
    Table[S].Value = V;
  return 1;
}
int get(int K, int Default) {
  int S = probe(K);
  return S >= 0 && Table[S].Key == K ? Table[S].Value : Default;
}
int size(void) { return Count; }
