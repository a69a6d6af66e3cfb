// For test/Speed/profile-out-of-date.test: a function that runs once.
int rare(int x) { return x * 3 + 1; }
