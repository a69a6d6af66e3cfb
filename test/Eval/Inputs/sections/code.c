/* Code in three executable sections: .text, a section of its own (as lmdb
   puts its environment functions in text_env) and .text.unlikely. */
int in_text(int x) { return x * 3 + 1; }
__attribute__((section("text_env"))) int in_custom(int x) { return x ^ 5; }
__attribute__((cold)) int in_unlikely(int x) { return x - 7; }
