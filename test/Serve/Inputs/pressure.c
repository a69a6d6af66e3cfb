// "hot" has more live values than x86-64 has registers (evictions); "small"
// has none. One regalloc context per function.
void use(long);
long hot(long *p, int n) {
  long a=p[0],b=p[1],c=p[2],d=p[3],e=p[4],f=p[5],g=p[6],h=p[7],i=p[8],j=p[9],k=p[10],l=p[11],m=p[12],o=p[13],q=p[14],r=p[15];
  for (int t = 0; t < n; ++t) {
    a += b*c; b ^= d+e; c -= f*g; d += h^i; e *= j+k; f -= l*m; g += o^q; h ^= r+a;
    i += a*b; j -= c^d; k += e*f; l ^= g+h; m -= i*j; o += k^l; q *= m+o; r -= q*a;
    use(a+b+c+d+e+f+g+h);
  }
  return a^b^c^d^e^f^g^h^i^j^k^l^m^o^q^r;
}
int small(int x) { return x * 2 + 1; }
