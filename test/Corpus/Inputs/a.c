static int square(int X) { return X * X; }
int sumOfSquares(int A, int B) { return square(A) + square(B); }
