static double square(double X) { return X * X; }
static double mean(const double *V, int N) {
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += V[I];
  return N ? S / N : 0;
}
double variance(const double *V, int N) {
  double M = mean(V, N), S = 0;
  for (int I = 0; I < N; ++I)
    S += square(V[I] - M);
  return N ? S / N : 0;
}
double meanOfSquares(const double *V, int N) {
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += square(V[I]);
  return N ? S / N : mean(V, N);
}
