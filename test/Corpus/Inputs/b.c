int twice(int X) { return 2 * X; }
