#!/usr/bin/env python3
"""diff.py - eqprof diff against a computation done here, on simulated
recordings whose truth is known.

Recordings are simulated in this file: a run is a sequence of energy-driven
samples (one per quantum) in K processes; code runs in stretches (a
process drawn by its true share, for a geometric number of samples, mean
L), so neighbouring samples are correlated as in a real run and the
run-to-run variance of a share is several times the binomial's; each run's
total varies by a few percent (the run-to-run spread of the total).  They
are imported with `eqprof import` and diffed by process (--by exe).

1. The numbers: every row's energies per run, change, 95% interval, t,
   degrees of freedom, p-value and flag, and the total's change and
   interval, recomputed here from the samples and the definitions in
   analysis/profile/diff.h (design effects as docs/guide.md defines them,
   via eqtest.share_intervals; p-values by integrating Student's density),
   for 3 runs against 2, 1 against 1, and per-row flags.
2. False flags: identical work on both sides (4 runs each), many diffs.
   Family-wise (the default, Holm at 5%): a diff flags any row with
   probability at most 5%; per row (--per-row): each row at most 5%.
   The total's change: flagged in at most 5% of diffs.
3. Power: one process's energy raised 40% on side B: that row and the
   total are flagged in nearly every diff, and in the right direction.

False-failure rates of the statistical checks (2, 3) are stated where they
are made; each is below 1e-4.  The simulation uses fixed seeds, so a given
build gives the same verdict every time."""
import json
import math
import os
import random
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eqtest import Tap, Z95, eqprof, share_intervals, t95

Q = 1e-3          # J per sample
PI = [0.30, 0.25, 0.20, 0.12, 0.08, 0.05]   # true shares of processes p1..p6
N0 = 4000         # samples of a run
L = 5             # mean stretch, samples
TOTAL_CV = 0.02   # run-to-run spread of the total


def gen_run(rng, weights, n):
    """The process (0..K-1) of each of n samples."""
    rows, s = [], sum(weights)
    cum = []
    acc = 0.0
    for w in weights:
        acc += w / s
        cum.append(acc)
    while len(rows) < n:
        u = rng.random()
        row = next((i for i, c in enumerate(cum) if u < c), len(cum) - 1)
        length = 1 + int(math.log(1 - rng.random()) / math.log(1 - 1.0 / L))
        rows.extend([row] * length)
    return rows[:n]


def run(rng, change=None):
    """A run's samples; change=(row, factor) multiplies one row's energy,
    so the run's total grows by what that row gained."""
    w = list(PI)
    n = N0
    if change:
        w[change[0]] *= change[1]
        n = N0 * sum(w)
    n = max(100, round(n * (1 + TOTAL_CV * rng.gauss(0, 1))))
    return gen_run(rng, w, n)


def write(d, name, rows):
    csvp = os.path.join(d, name + ".csv")
    with open(csvp, "w") as f:
        f.write("time_ns,pc,pid,tid,cpu,flags\n")
        for i, r in enumerate(rows):
            f.write("%d,0x1000,%d,%d,0,4\n" % (1000000 * (i + 1), r + 1, r + 1))
    out = os.path.join(d, name + ".eqp")
    args = ["import", "--samples", csvp, "--energy", "1mJ", "-o", out]
    for i in range(len(PI)):
        args += ["--comm", "%d=p%d" % (i + 1, i + 1)]
    rc, _, err = eqprof(*args)
    if rc:
        raise RuntimeError(err)
    os.unlink(csvp)
    return out


def diff(a, b, *extra):
    args = ["diff"] + list(a) + (["vs"] if len(a) + len(b) > 2 else []) + list(b) + \
        ["--by", "exe", "--format", "json", "-q"] + list(extra)
    rc, out, err = eqprof(*args)
    if rc:
        raise RuntimeError(err)
    return json.loads(out)


# ---- the definitions, computed here -------------------------------------

def t_pvalue(t, df):
    """P(|T| >= |t|), Student's t by Simpson integration of its density."""
    t = abs(t)
    if df <= 0 or df > 1e7:
        return math.erfc(t / math.sqrt(2))
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda u: c * (1 + u * u / df) ** (-(df + 1) / 2)
    if t > 60:
        # the tail beyond 60: the density's tail integral, in closed form
        # to leading order, far below any level tested
        return 2 * c * df ** ((df + 1) / 2) * t ** (-df) / df
    steps = 20000
    h = t / steps
    s = f(0) + f(t) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps))
    return max(0.0, 1 - 2 * s * h / 3)


def side_stats(recs):
    """recs: list of sample-row lists.  Per row: (pooled k, deff, df); the
    side's M, mean total (J) and variance of the mean total."""
    R = len(recs)
    ms = [len(r) for r in recs]
    M = sum(ms)
    rows = sorted(set().union(*recs))
    E = Q * M / R
    varE = Q * Q * sum((m - M / R) ** 2 for m in ms) / (R - 1) / R if R > 1 else 0.0
    st = {}
    if R == 1:
        dd = share_intervals(recs[0], "run-to-run", with_df=True)
    for row in rows:
        ks = [r.count(row) for r in recs]
        k = sum(ks)
        p = k / M
        if R > 1:
            v = R / (R - 1) * sum((kj - p * mj) ** 2 for kj, mj in zip(ks, ms)) / (M * M)
            deff = v / (p * (1 - p) / M) if 0 < p < 1 else 1.0
            if k < 10 or M - k < 10:
                deff = max(deff, 1.0)
            df = R - 1
        else:
            deff, df = dd[row]
        st[row] = (k, deff, df)
    return st, M, E, varE, R


def welch(v, dfs):
    num = sum(v)
    den = sum(x * x / d for x, d in zip(v, dfs) if d > 0)
    return num * num / den if den > 0 else 0.0


def holm(ps, alpha=0.05):
    order = sorted(range(len(ps)), key=lambda i: (ps[i], i))
    sig = [False] * len(ps)
    for j, i in enumerate(order):
        if ps[i] > alpha / (len(ps) - j):
            break
        sig[i] = True
    return sig


def expected(a_recs, b_recs, per_row=False):
    sa, Ma, Ea, vEa, Ra = side_stats(a_recs)
    sb, Mb, Eb, vEb, Rb = side_stats(b_recs)
    out = {}
    for row in sorted(set(sa) | set(sb)):
        ka, da, dfa = sa.get(row, (0, 1.0, 0))
        kb, db, dfb = sb.get(row, (0, 1.0, 0))
        pa, pb = ka / Ma, kb / Mb
        p0 = (ka + kb) / (Ma + Mb)
        v = [Ea * Ea * p0 * (1 - p0) * da / Ma, Eb * Eb * p0 * (1 - p0) * db / Mb,
             pa * pa * vEa, pb * pb * vEb]
        df = welch(v, [dfa, dfb, Ra - 1 if Ra > 1 else 0, Rb - 1 if Rb > 1 else 0])
        if 0 < df < 1:
            df = 1.0
        ch = Eb * pb - Ea * pa
        se = math.sqrt(sum(v))
        t = ch / se
        crit = t95(int(df)) if 0 < df < 1e6 else Z95
        out["p%d" % (row + 1)] = dict(a=Ea * pa, b=Eb * pb, change=ch, lo=ch - crit * se,
                                      hi=ch + crit * se, t=t, df=df, p=t_pvalue(t, df))
    names = sorted(out)
    ps = [out[n]["p"] for n in names]
    sig = [p < 0.05 for p in ps] if per_row else holm(ps)
    for n, s in zip(names, sig):
        out[n]["sig"] = s
    total = dict(a=Ea, b=Eb, change=Eb - Ea)
    if Ra > 1 and Rb > 1:
        df = welch([vEa, vEb], [Ra - 1, Rb - 1])
        se = math.sqrt(vEa + vEb)
        crit = t95(max(1, int(df)))
        total.update(lo=total["change"] - crit * se, hi=total["change"] + crit * se,
                     p=t_pvalue(total["change"] / se, max(df, 1.0)))
    return out, total


def close(x, y, rel=1e-6, ab=1e-9):
    return x is not None and abs(x - y) <= ab + rel * abs(y)


def check_numbers(t, doc, a_recs, b_recs, what, per_row=False):
    want, total = expected(a_recs, b_recs, per_row)
    bad = []
    for r in doc["rows"]:
        w = want.get(r["name"])
        if w is None or not (close(r["a_j"], w["a"]) and close(r["b_j"], w["b"]) and
                             close(r["change_j"], w["change"]) and
                             close(r["change_low"], w["lo"], 1e-5) and
                             close(r["change_high"], w["hi"], 1e-5) and
                             close(r["t"], w["t"]) and close(r["df"], w["df"]) and
                             close(r["p"], w["p"], 1e-4, 1e-9) and r["significant"] == w["sig"]):
            bad.append((r, w))
    t.ok(len(doc["rows"]) == len(want) and not bad,
         "%s: every row's change, interval, t, df, p and flag as defined" % what, bad[:3])
    tot = doc["total"]
    good = close(tot["a_j"], total["a"]) and close(tot["b_j"], total["b"]) and \
        close(tot["change_j"], total["change"])
    if "lo" in total:
        good = good and close(tot["change_low"], total["lo"], 1e-5) and \
            close(tot["change_high"], total["hi"], 1e-5) and close(tot["p"], total["p"], 1e-4)
    else:
        good = good and tot["change_low"] is None and tot["significant"] is None
    t.ok(good, "%s: the total's change%s as defined" % (
        what, " and interval" if "lo" in total else " (no interval with one run a side)"),
        (tot, total))
    changes = [abs(r["change_j"]) for r in doc["rows"]]
    t.ok(changes == sorted(changes, reverse=True), "%s: rows by the size of their change" % what)


def binom_upper(n, p, alpha=1e-4):
    """Smallest c with P(Binomial(n, p) > c) < alpha."""
    pk = (1 - p) ** n
    cdf = pk
    c = 0
    while 1 - cdf >= alpha:
        pk *= (n - c) / (c + 1) * p / (1 - p)
        c += 1
        cdf += pk
    return c


def binom_lower(n, p, alpha=1e-4):
    """Largest c with P(Binomial(n, p) < c) < alpha."""
    pmf = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    c, acc = 0, 0.0
    while c < n and acc + pmf[c] < alpha:
        acc += pmf[c]
        c += 1
    return c


def main():
    t = Tap()
    rng = random.Random(15019)
    with tempfile.TemporaryDirectory(prefix="eqprof-diff-") as d:
        # 1. The numbers.
        a = [run(rng) for _ in range(3)]
        b = [run(rng, (1, 1.3)) for _ in range(2)]
        pa = [write(d, "a%d" % i, r) for i, r in enumerate(a)]
        pb = [write(d, "b%d" % i, r) for i, r in enumerate(b)]
        check_numbers(t, diff(pa, pb), a, b, "3 runs vs 2")
        check_numbers(t, diff(pa, pb, "--per-row"), a, b, "3 runs vs 2, --per-row", True)
        check_numbers(t, diff(pa[:1], pb[:1]), a[:1], b[:1], "1 run vs 1")
        # A process only on one side (new code).
        c = [[r if r != 5 else 4 for r in run(rng)] for _ in range(2)]
        pc = [write(d, "c%d" % i, r) for i, r in enumerate(c)]
        doc = diff(pc, pb)
        check_numbers(t, doc, c, b, "a row only in B")
        new = [r for r in doc["rows"] if r["name"] == "p6"]
        t.ok(new and new[0]["samples_a"] == 0 and new[0]["relative"] is None,
             "a row only in B: 0 samples in A, no relative change", new)

        # Table and CSV carry the same rows.
        rc, out, _ = eqprof("diff", *(pa + ["vs"] + pb + ["--by", "exe", "-q"]))
        t.ok(rc == 0 and "# total:" in out and "95% CI [" in out and "Holm over 6 rows" in out,
             "table: the total's change with its interval, the flags' meaning", out[:800])
        rc, out, _ = eqprof("diff", *(pa + ["vs"] + pb + ["--by", "exe", "-q", "--format", "csv"]))
        lines = out.splitlines()
        t.ok(rc == 0 and lines[0].startswith("name,module,samples_a,samples_b,share_a,share_b,a_j,b_j,"
                                              "change_j") and len(lines) == 7,
             "csv: a header and a line per row", out[:300])
        rc, out, _ = eqprof("diff", pa[0], pb[0], "--by", "exe", "-q")
        t.ok(rc == 0 and "no interval with one recording on a side" in out,
             "one run a side: says the total has no interval and why", out[:600])

        # Bad input, each named.
        def bad(args, *needles):
            rc, out, err = eqprof("diff", *args)
            t.ok(rc != 0 and all(n in err for n in needles) and not out,
                 "bad input: diff %s" % " ".join(os.path.basename(x) for x in args), (rc, err[:400]))

        bad([pa[0]], "give two recordings")
        bad(pa, "'vs' says where B starts")
        bad([pa[0], "vs"], "give two recordings")
        bad([pa[0], "vs", pb[0], "vs", pb[1]], "'vs' given twice")
        bad([pa[0], os.path.join(d, "missing.eqp")], "missing.eqp")
        bad([pa[0], pb[0], "--children"], "--children")
        bad([pa[0], pb[0], "--by", "exe", "--comm", "p9"], "--comm p9", "p1 (")
        rc, _, err = eqprof("report", pa[0], "--per-row")
        # one option table per command (issue 29): report's has no --per-row
        t.ok(rc == 2 and "unknown option '--per-row'" in err, "report --per-row refused", err)

        # 2. False flags: identical work on both sides, 4 runs each.
        # Under the sanitizers (SAN=1) the same checks on fewer diffs (their
        # bounds follow from the counts).
        san = bool(os.environ.get("SAN"))
        M = 12 if san else 120
        any_holm = any_row = total_flag = 0
        nrows = 0
        for i in range(M):
            recs = [run(rng) for _ in range(8)]
            paths = [write(d, "n%d" % j, r) for j, r in enumerate(recs)]
            doc = diff(paths[:4], paths[4:])
            any_holm += any(r["significant"] for r in doc["rows"])
            total_flag += bool(doc["total"]["significant"])
            doc = diff(paths[:4], paths[4:], "--per-row")
            any_row += sum(r["significant"] for r in doc["rows"])
            nrows += len(doc["rows"])
        # P(Binomial(M, 0.05) > c) < 1e-4: a correct diff (at most 5%
        # family-wise) fails this less than once in 10,000 runs.
        c = binom_upper(M, 0.05)
        t.ok(any_holm <= c, "identical work: %d of %d diffs flag a row (family-wise 5%%: at most %d)"
             % (any_holm, M, c))
        t.ok(total_flag <= c, "identical work: the total flagged in %d of %d diffs (at most %d)"
             % (total_flag, M, c))
        # Per row: the flags of one diff's rows are dependent (its shares add
        # up to 1); counting each diff's flags as one cluster of up to K, the
        # variance is at most K times the binomial's: the bound is 5% plus
        # 4.5 such standard errors (normal tail: below 1e-5).
        K = len(PI)
        lim = 0.05 + 4.5 * math.sqrt(0.05 * 0.95 * K / nrows)
        t.ok(any_row / nrows <= lim, "identical work, --per-row: %.2f%% of rows flagged (at most %.2f%%)"
             % (100 * any_row / nrows, 100 * lim))

        # 3. Power: p1's energy up 40% on side B.
        P = 6 if san else 40
        hit = wrong = total_hit = 0
        for i in range(P):
            recs = [run(rng) for _ in range(4)] + [run(rng, (0, 1.4)) for _ in range(4)]
            paths = [write(d, "w%d" % j, r) for j, r in enumerate(recs)]
            doc = diff(paths[:4], paths[4:])
            row = [r for r in doc["rows"] if r["name"] == "p1"][0]
            hit += row["significant"] and row["change_j"] > 0
            wrong += any(r["significant"] for r in doc["rows"] if r["name"] != "p1")
            total_hit += bool(doc["total"]["significant"]) and doc["total"]["change_j"] > 0
        # The change is 0.3 * 0.4 = 12% of the run's energy, about 7
        # standard errors of the row's change and 8 of the total's: flagged
        # with probability above 0.97 (measured: 40 of 40); the bound c has
        # P(Binomial(P, 0.97) < c) < 1e-4.
        c = binom_lower(P, 0.97)
        t.ok(hit >= c, "a real change: the changed row flagged, up, in %d of %d diffs (at least %d)"
             % (hit, P, c))
        t.ok(total_hit >= c, "a real change: the total flagged, up, in %d of %d diffs (at least %d)"
             % (total_hit, P, c))
        c = binom_upper(P, 0.05)
        t.ok(wrong <= c, "a real change: unchanged rows flagged in %d of %d diffs (at most %d)"
             % (wrong, P, c))
    t.done()


if __name__ == "__main__":
    main()
