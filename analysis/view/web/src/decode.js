// decode.js - the page's data as analysis/view/view_json.c writes it:
// base64 little-endian typed arrays and LEB128 varint streams.

// Uint8Array.fromBase64 where the browser has it (native, no string in
// between), else atob and a loop.
function bytes(b64) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(b64);
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export function f64(b64) {
  if (b64 == null) return null;
  const b = bytes(b64);
  return new Float64Array(b.buffer, 0, b.length >> 3);
}

export function u32(b64) {
  if (b64 == null) return null;
  const b = bytes(b64);
  return new Uint32Array(b.buffer, 0, b.length >> 2);
}

// LEB128 varints, read in place (bytes, position) -> [value, next position]
// is too slow for millions: the readers below inline it.
class Varints {
  constructor(b64) { this.b = bytes(b64); this.i = 0; }
  next() {
    const b = this.b;
    let c = b[this.i++];
    if (c < 0x80) return c;
    let v = c & 0x7f, shift = 7;
    do {
      c = b[this.i++];
      v += (c & 0x7f) * 2 ** shift;
      shift += 7;
    } while (c & 0x80);
    return v;
  }
}

// int32 with -1 for none, written as value + 1
export function i32v(b64, n) {
  const b = bytes(b64), out = new Int32Array(n);
  let i = 0, c, v, mul;
  for (let k = 0; k < n; k++) {
    c = b[i++]; v = c & 0x7f; mul = 128;
    while (c & 0x80) { c = b[i++]; v += (c & 0x7f) * mul; mul *= 128; }
    out[k] = v - 1;
  }
  return out;
}

// Per-bucket lists (view_json.c's csr_varints): the number of entries,
// then per bucket its count and entries, the first number delta coded.
// Returns off[nb + 1] and one Uint32Array per number of an entry.  The
// varints are read inline: this is most of the page's opening time.
export function csr(b64, nb, width) {
  const b = bytes(b64);
  let i = 0, c, v, mul;
  // total entries
  c = b[i++]; v = c & 0x7f; mul = 128;
  while (c & 0x80) { c = b[i++]; v += (c & 0x7f) * mul; mul *= 128; }
  const total = v;
  const off = new Uint32Array(nb + 1);
  const cols = [];
  for (let w = 0; w < width; w++) cols.push(new Uint32Array(total));
  const out = new Uint32Array(width);
  let n = 0;
  for (let k = 0; k < nb; k++) {
    c = b[i++]; v = c & 0x7f; mul = 128;
    while (c & 0x80) { c = b[i++]; v += (c & 0x7f) * mul; mul *= 128; }
    const end = n + v;
    let prev = 0;
    for (; n < end; n++) {
      for (let w = 0; w < width; w++) {
        c = b[i++]; v = c & 0x7f; mul = 128;
        while (c & 0x80) { c = b[i++]; v += (c & 0x7f) * mul; mul *= 128; }
        out[w] = v;
      }
      prev += out[0];
      cols[0][n] = prev;
      for (let w = 1; w < width; w++) cols[w][n] = out[w];
    }
    off[k + 1] = n;
  }
  return { off, cols, n };
}

// The stack table: count, then each stack as depth and rows.
export function stacks(b64) {
  const r = new Varints(b64);
  const n = r.next(), out = new Array(n);
  for (let i = 0; i < n; i++) {
    const d = r.next(), s = new Uint32Array(d);
    for (let j = 0; j < d; j++) s[j] = r.next();
    out[i] = s;
  }
  return out;
}
