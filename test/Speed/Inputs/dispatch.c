// A bytecode interpreter dispatched by computed goto, the shape of lua's
// luaV_execute: code generation tail-duplicates the indirect jump into every
// handler, which makes the dispatch an irreducible cycle.
enum { ADD, SUB, MUL, JNZ, DEC, XOR, HALT };

long run(const unsigned char *code, long a, long b) {
  static void *Dispatch[] = {&&add, &&sub, &&mul, &&jnz, &&dec, &&xor_, &&halt};
  const unsigned char *pc = code;
  long n = b;
#define NEXT goto *Dispatch[*pc++]
  NEXT;
add:
  a += n;
  NEXT;
sub:
  a -= 3;
  NEXT;
mul:
  a = a * 5 + 1;
  NEXT;
xor_:
  a ^= a >> 7;
  NEXT;
dec:
  --n;
  NEXT;
jnz:
  if (n)
    pc = code;
  NEXT;
halt:
  return a;
}
