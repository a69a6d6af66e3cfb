// The words tool: parses numbers, keeps them in the table, counts words and
// prints statistics (tool/expected.txt is its output).
#include <stdio.h>

int put(int K, int V);
int get(int K, int Default);
int size(void);
int parseInt(const char *S, int *Out);
int countWords(const char *S);
double variance(const double *V, int N);
double meanOfSquares(const double *V, int N);

int main(void) {
  static const char *const Fields[] = {"12", " 7", "-3 ", "40", "x1"};
  double V[5];
  int N = 0;
  for (int I = 0; I < 5; ++I) {
    int X;
    if (parseInt(Fields[I], &X)) {
      put(X, I);
      V[N++] = X;
    }
  }
  printf("words: %d\n", countWords("the quick  brown fox"));
  printf("numbers: %d, stored: %d, index of 40: %d\n", N, size(), get(40, -1));
  printf("variance: %.2f, mean of squares: %.2f\n", variance(V, N),
         meanOfSquares(V, N));
  return 0;
}
