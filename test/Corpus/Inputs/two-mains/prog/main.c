int help(int X);
int main(int Argc, char **Argv) { return help(Argc) == 4 ? 0 : 1; }
