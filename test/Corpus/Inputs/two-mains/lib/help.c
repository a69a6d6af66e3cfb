int help(int X) { return X * 3 + 1; }
