/* A reader whose error setter the model inlines at every call: keeping
   none of them inlined shrinks the module. */
struct reader {
  int error;
  const char *problem;
  long offset;
  int value;
  const unsigned char *buf;
  long len;
};

static int set_error(struct reader *r, const char *problem, long offset,
                     int value) {
  r->error = 1;
  r->problem = problem;
  r->offset = offset;
  r->value = value;
  return 0;
}

int read_byte(struct reader *r, long at) {
  if (at < 0)
    return set_error(r, "negative offset", at, -1);
  if (at >= r->len)
    return set_error(r, "past the end", at, -2);
  return r->buf[at];
}

int read_pair(struct reader *r, long at) {
  if (at + 1 >= r->len)
    return set_error(r, "incomplete pair", at, -3);
  if (r->buf[at] == 0xff)
    return set_error(r, "invalid lead byte", at, r->buf[at]);
  return r->buf[at] << 8 | r->buf[at + 1];
}

int read_utf8(struct reader *r, long at) {
  unsigned char c = r->buf[at];
  if ((c & 0xc0) == 0x80)
    return set_error(r, "invalid leading UTF-8 octet", at, c);
  if (c >= 0xf8)
    return set_error(r, "invalid UTF-8 length", at, c);
  if (at + 3 >= r->len)
    return set_error(r, "incomplete UTF-8 sequence", at, c);
  return c;
}

int check_bom(struct reader *r) {
  if (r->len < 2)
    return set_error(r, "no BOM", 0, -4);
  if (r->buf[0] == 0xfe && r->buf[1] == 0xff)
    return 1;
  return set_error(r, "unknown BOM", 0, r->buf[0]);
}
