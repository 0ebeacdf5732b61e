// stats.js - the sampling interval of a share, as analysis/profile/stats.c
// and profile.c compute it (one copy of the formulas in C, this one
// transcribed from it; test/view checks the page against report).

export const Z95 = 1.959963984540054;
const SMALL_COUNT = 10;

// eq_wilson_eff(p, n, z)
export function wilsonEff(p, n, z) {
  if (!(n > 0) || !(p >= 0 && p <= 1)) return [0, 1];
  if (n === Infinity) return [p, p];
  const z2n = z * z / n, denom = 1.0 + z2n;
  const centre = (p + z2n / 2.0) / denom;
  const half = z * Math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / denom;
  let lo = centre - half, hi = centre + half;
  if (p === 0 || lo < 0.0) lo = 0.0;
  if (p === 1 || hi > 1.0) hi = 1.0;
  return [lo, hi];
}

// eq_sampling_deff(rho)
export function samplingDeff(rho) {
  if (!(rho > 0)) return 1.0;
  if (rho >= 1) return 0.0;
  const a = -Math.log(rho) / 2;
  if (a < 1e-3) return a / 3 - a * a * a / 45;
  if (a > 20) return 1 - 1 / a;
  return 1 / Math.tanh(a) - 1 / a;
}

// eq_sampling_deff_lags(rho1, rho2, n)
export function samplingDeffLags(rho1, rho2, n) {
  const se = n > 9 ? 1 / Math.sqrt(n) : 1, thr = 3 * se;
  if (!(rho1 > se)) return 1.0;
  if (rho1 < thr) return 1 - (1 - samplingDeff(thr)) * (rho1 - se) / (thr - se);
  if (rho2 > thr && rho2 > rho1 * rho1) {
    const nu = 1 - rho1 * rho1 / rho2;
    return nu + (1 - nu) * samplingDeff(rho2 >= rho1 ? 1 : rho2 / rho1);
  }
  return samplingDeff(rho1);
}

// eq_lag_rho(k, m, n, d, lag)
export function lagRho(k, m, n, d, lag) {
  if (!(m > 0) || !(n > lag) || !(k > 0) || k >= m) return 0;
  const p = k / m, r0 = k * (1 - p) / n;
  const rho = 1 - d / (2 * (n - lag) * r0);
  return rho < -1 ? -1 : rho > 1 ? 1 : rho;
}

// small_count_floor()
function smallCountFloor(deff, k, m) {
  if (k < SMALL_COUNT || m - k < SMALL_COUNT) return deff > 1 ? deff : 1;
  return deff;
}

// One row's sampling design effect (eq_series_deffs, no excluded samples:
// n = m) and its interval (eq_profile_set_interval, sampling).
export function rowDeff(k, m, d1, d2, cv2) {
  const rho1 = lagRho(k, m, m, d1, 1), rho2 = lagRho(k, m, m, d2, 2);
  const f = samplingDeffLags(rho1, rho2, m);
  return smallCountFloor(f + cv2 * (1 - f), k, m);
}

export function rowInterval(k, m, d1, d2, cv2, deff = rowDeff(k, m, d1, d2, cv2)) {
  const share = m ? k / m : 0;
  return wilsonEff(share, deff > 0 ? m / deff : Infinity, Z95);
}

// eq_shares_differ(k1, n1, deff1, 0, k2, n2, deff2, 0): the score test of
// two shares with known (sampling) variances -> [significant, z]
export function sharesDiffer(k1, n1, d1, k2, n2, d2) {
  if (!(n1 > 0) || !(n2 > 0) || k1 > n1 || k2 > n2 || k1 < 0 || k2 < 0) return [false, 0];
  const pool = (k1 + k2) / (n1 + n2);
  const v1 = pool * (1 - pool) * d1 / n1, v2 = pool * (1 - pool) * d2 / n2;
  const se = Math.sqrt(v1 + v2);
  if (!(se > 0)) return [false, 0];
  const z = (k1 / n1 - k2 / n2) / se;
  return [Math.abs(z) > Z95, z];
}

// erfc(x) for x >= 0, to about 1e-13 relative: the series of erf with
// positive terms below 2, the continued fraction above (C's erfc is what
// diff's p-values use: they agree but for p within 1e-13 of a threshold)
export function erfc(x) {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    let term = x, sum = x;
    for (let n = 1; n < 200 && term > sum * 1e-17; n++) {
      term *= 2 * x * x / (2 * n + 1);
      sum += term;
    }
    return 1 - 2 / Math.sqrt(Math.PI) * Math.exp(-x * x) * sum;
  }
  let f = x;
  for (let n = 160; n >= 1; n--) f = x + (n / 2) / f;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

// eq_holm(p, n, 0.05): which p-values a family-wise 5% flags
export function holm(p, alpha = 0.05) {
  const n = p.length, idx = p.map((v, i) => [Number.isNaN(v) ? 1 : v, i]);
  idx.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const sig = new Array(n).fill(false);
  for (let i = 0; i < n && idx[i][0] <= alpha / (n - i); i++) sig[idx[i][1]] = true;
  return sig;
}
