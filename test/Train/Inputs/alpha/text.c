static int isSpace(char C) { return C == ' ' || C == '\t' || C == '\n'; }
static int isDigit(char C) { return C >= '0' && C <= '9'; }
static const char *skip(const char *S) {
  while (*S && isSpace(*S))
    ++S;
  return S;
}
int parseInt(const char *S, int *Out) {
  S = skip(S);
  int Neg = 0, V = 0, Any = 0;
  if (*S == '-') {
    Neg = 1;
    ++S;
  }
  while (isDigit(*S)) {
    V = V * 10 + (*S++ - '0');
    Any = 1;
  }
  *Out = Neg ? -V : V;
  return Any && !*skip(S);
}
int countWords(const char *S) {
  int N = 0;
  for (;;) {
    S = skip(S);
    if (!*S)
      return N;
    ++N;
    while (*S && !isSpace(*S))
      ++S;
  }
}
