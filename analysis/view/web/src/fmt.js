// fmt.js - numbers printed exactly as eqprof's C code prints them.
//
// glibc's printf rounds the exact binary value of a double to the digits
// asked, ties to even; JavaScript's toFixed/toPrecision round ties away
// from zero.  So every number here is first written out exactly (a double
// is a finite decimal), then rounded half-to-even, then laid out as %.Nf,
// %.Ng and analysis/util/units.c's eq_format_quantity() do.

const SHIFT = 1n << 52n;

// The exact decimal of a finite double: {neg, digits, point}: value =
// 0.digits x 10^point, digits without leading zeros ("" for 0).
export function exactDecimal(v) {
  const neg = v < 0 || Object.is(v, -0);
  v = Math.abs(v);
  if (v === 0) return { neg, digits: "", point: 0 };
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, v);
  const hi = buf.getUint32(0), lo = buf.getUint32(4);
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e;
  if (bexp === 0) e = -1074;
  else { mant += SHIFT; e = bexp - 1075; }
  let digits, point;
  if (e >= 0) {
    digits = (mant << BigInt(e)).toString();
    point = digits.length;
  } else {
    // mant / 2^-e = mant * 5^-e / 10^-e
    digits = (mant * 5n ** BigInt(-e)).toString();
    point = digits.length + e;
  }
  const z = digits.replace(/0+$/, "");
  const lead = z.match(/^0*/)[0].length;
  return { neg, digits: z.slice(lead), point: point - lead };
}

// Rounds d to `keep` significant digits (keep may be <= 0), ties to even.
function roundDigits(d, keep) {
  const { digits, point } = d;
  if (keep >= digits.length) return { neg: d.neg, digits, point };
  if (keep < 0) return { neg: d.neg, digits: "", point };
  const head = digits.slice(0, keep), rest = digits.slice(keep);
  let up;
  if (rest[0] > "5") up = true;
  else if (rest[0] < "5") up = false;
  else if (rest.length > 1) up = true;       // digits has no trailing zeros
  else up = keep > 0 && (Number(head[keep - 1]) % 2 === 1);  // tie: to even
  if (!up) {
    const h = head.replace(/0+$/, "");
    return { neg: d.neg, digits: h, point };
  }
  if (keep === 0) return { neg: d.neg, digits: "1", point: point + 1 };
  // add one at the last kept digit
  const arr = head.split("").map(Number);
  let i = keep - 1;
  while (i >= 0 && arr[i] === 9) { arr[i] = 0; i--; }
  let p = point;
  if (i < 0) { arr.unshift(1); p++; } else arr[i]++;
  return { neg: d.neg, digits: arr.join("").replace(/0+$/, ""), point: p };
}

// The digits of d written with `decimals` decimals (no sign).
function layoutFixed(d, decimals) {
  const { digits, point } = d;
  let intPart, frac;
  if (point <= 0) {
    intPart = "0";
    frac = "0".repeat(-point) + digits;
  } else {
    intPart = digits.slice(0, point).padEnd(point, "0");
    frac = digits.slice(point);
  }
  frac = frac.padEnd(decimals, "0").slice(0, decimals);
  return decimals > 0 ? intPart + "." + frac : intPart;
}

function special(v) {
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return null;
}

// JavaScript's toFixed/toPrecision are correctly rounded except at an exact
// tie, which they round away from zero: when the scaled value is not within
// a hair of a half, they give printf's digits and the slow exact path is
// not needed.
function nearHalf(scaled) {
  // the scaling's own rounding error grows with the value: a margin of it
  const f = scaled - Math.floor(scaled);
  return Math.abs(f - 0.5) < 1e-9 + Math.abs(scaled) * 1e-14 || !(Math.abs(scaled) < 1e15);
}

// printf("%.Nf", v)
export function fixed(v, decimals) {
  const s = special(v);
  if (s) return s;
  if (decimals <= 20 && !nearHalf(Math.abs(v) * Math.pow(10, decimals))) {
    const t = Math.abs(v).toFixed(decimals);
    return (v < 0 || Object.is(v, -0) ? "-" : "") + t;
  }
  const d = exactDecimal(v);
  const r = roundDigits(d, d.point + decimals);
  const body = layoutFixed(r, decimals);
  return (d.neg ? "-" : "") + body;
}

// printf("%.Pg", v)
export function general(v, prec) {
  const s = special(v);
  if (s) return s;
  const P = prec === 0 ? 1 : prec;
  const a = Math.abs(v);
  if (a > 0 && a < 1e300 && a > 1e-300 && P <= 17) {
    // the exponent toPrecision settles on, and how far the digits are from a tie
    const e = Math.floor(Math.log10(a));
    const scaled = a / Math.pow(10, e - P + 1);
    if (!nearHalf(scaled) && !nearHalf(scaled * 10) && !nearHalf(scaled / 10))
      return (v < 0 || Object.is(v, -0) ? "-" : "") + layoutG(parsePrecision(a.toPrecision(P)), P);
  }
  const d = exactDecimal(v);
  const sign = d.neg ? "-" : "";
  if (d.digits === "") return sign + "0";
  return sign + layoutG(roundDigits(d, P), P);
}

// %.Pg of digits already rounded to P significant ones
function layoutG(r, P) {
  const X = r.point - 1;               // exponent after rounding
  if (P > X && X >= -4) {
    let body = layoutFixed(r, P - 1 - X);
    if (body.includes(".")) body = body.replace(/0+$/, "").replace(/\.$/, "");
    return body;
  }
  let mant = r.digits.slice(0, 1) + (P > 1 ? "." + r.digits.slice(1).padEnd(P - 1, "0") : "");
  if (mant.includes(".")) mant = mant.replace(/0+$/, "").replace(/\.$/, "");
  const ax = Math.abs(X);
  return mant + "e" + (X < 0 ? "-" : "+") + (ax < 10 ? "0" : "") + ax;
}

// toPrecision(P)'s text ("1.230e+5", "0.00001230", "123.0") as {digits, point}
function parsePrecision(t) {
  let mant = t, e = 0;
  const ei = t.indexOf("e");
  if (ei >= 0) { mant = t.slice(0, ei); e = Number(t.slice(ei + 1)); }
  const dot = mant.indexOf(".");
  const intLen = dot >= 0 ? dot : mant.length;
  let digits = mant.replace(".", "");
  const lead = digits.match(/^0*/)[0].length;
  digits = digits.slice(lead).replace(/0+$/, "");
  return { neg: false, digits, point: intLen - lead + e };
}

const PREFIXES = [["G", 1e9], ["M", 1e6], ["k", 1e3], ["", 1.0],
  ["m", 1e-3], ["u", 1e-6], ["n", 1e-9], ["p", 1e-12]];

// eq_format_quantity_sig() of analysis/util/units.c ("2.94 mJ").
export function quantity(value, unit, sig = 4) {
  const a = Math.abs(value);
  if (a === 0 || !Number.isFinite(value)) return general(value, 6) + " " + unit;
  let i;
  const thr = sig <= 3 ? 0.995 : 0.9995;
  for (i = 0; i < PREFIXES.length - 1; i++) if (a >= PREFIXES[i][1] * thr) break;
  return general(value / PREFIXES[i][1], sig <= 3 ? 3 : 4) + " " + PREFIXES[i][0] + unit;
}

// "%.2f%%" of a share
export const pct = (share) => fixed(100 * share, 2) + "%";

// A time printed to the tick of its clock (range.h: typed back, it gives
// the same tick).
export function seconds(t, decimals) {
  return fixed(t, decimals);
}

// "%.4g h" / "%.4g days", as power_range.c's life_text().
export function life(s) {
  if (!(s > 0) || !Number.isFinite(s)) return "n/a";
  if (s >= 7 * 86400) return general(s / 86400, 4) + " days";
  return general(s / 3600, 4) + " h";
}

// A capacity as eq_parse_capacity() takes it: "20Wh", "55kJ", "3000mAh@3.85V".
const SI = { G: 1e9, M: 1e6, k: 1e3, "": 1, m: 1e-3, u: 1e-6, "\u00b5": 1e-6, n: 1e-9, p: 1e-12 };
function quantityOf(text, unit) {
  const m = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$/.exec(text);
  if (!m) return NaN;
  const rest = m[2];
  if (rest === "") return Number(m[1]);
  for (const p of Object.keys(SI)) if (rest === p + unit) return Number(m[1]) * SI[p];
  return NaN;
}
export function parseCapacity(text) {
  const at = text.indexOf("@");
  let j;
  if (at >= 0) {
    const ah = quantityOf(text.slice(0, at), "Ah"), v = quantityOf(text.slice(at + 1), "V");
    j = ah * 3600 * v;
  } else {
    const wh = quantityOf(text, "Wh");
    j = Number.isFinite(wh) ? wh * 3600 : quantityOf(text, "J");
  }
  return j > 0 && Number.isFinite(j) ? j : NaN;
}
