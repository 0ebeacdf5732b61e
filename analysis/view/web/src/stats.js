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
export function rowInterval(k, m, d1, d2, cv2) {
  const rho1 = lagRho(k, m, m, d1, 1), rho2 = lagRho(k, m, m, d2, 2);
  const f = samplingDeffLags(rho1, rho2, m);
  const deff = smallCountFloor(f + cv2 * (1 - f), k, m);
  const share = m ? k / m : 0;
  return wilsonEff(share, deff > 0 ? m / deff : Infinity, Z95);
}
