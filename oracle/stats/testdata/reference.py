#!/usr/bin/env python3
"""Reference values for the tests of oracle/stats, computed independently
of the Go code: exact rational arithmetic from Python's standard library
(fractions, math.comb, statistics.NormalDist) and, for Student's t and its
noncentral power, mpmath at 30 significant digits (mpmath 1.3).

Run: python3 oracle/stats/testdata/reference.py
The tests quote its output; a change to the arithmetic there must come
with a run of this script, not with new numbers copied from the Go code.
"""
from fractions import Fraction
from math import comb, sqrt
from statistics import NormalDist

import mpmath as mp

mp.mp.dps = 30


def t_cdf(t, df):
    df = mp.mpf(df)
    t = mp.mpf(t)
    tail = mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2
    return 1 - tail if t >= 0 else tail


def t_quantile(p, df):
    p = mp.mpf(p)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def noncentral_power(ncp, df, crit):
    df = mp.mpf(df)
    c = 2 * (df / 2) ** (df / 2) / mp.gamma(df / 2)
    f = lambda u: c * u ** (df - 1) * mp.exp(-df * u * u / 2) * mp.ncdf(ncp - crit * u)
    return mp.quad(f, [0, 0.5, 1, 1.5, 2, mp.inf])


def power_multiplier(tasks, q="0.975"):
    df = tasks - 1
    crit = t_quantile(q, df)
    lo, hi = crit, crit + 10
    for _ in range(48):
        mid = (lo + hi) / 2
        if noncentral_power(mid, df, crit) < mp.mpf("0.8"):
            lo = mid
        else:
            hi = mid
    return hi


def wilson(passes, n, q=0.975):
    z = NormalDist().inv_cdf(q)
    p = passes / n
    centre = p + z * z / (2 * n)
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return (centre - half) / den, (centre + half) / den


def hyper(a_pass, a_runs, b_pass, b_runs):
    k = a_pass + b_pass
    total = comb(a_runs + b_runs, k)
    lo, hi = max(0, k - b_runs), min(k, a_runs)
    return {x: Fraction(comb(a_runs, x) * comb(b_runs, k - x), total) for x in range(lo, hi + 1)}


def fisher_two_sided(a_pass, a_runs, b_pass, b_runs):
    law = hyper(a_pass, a_runs, b_pass, b_runs)
    obs = law[a_pass]
    return sum(p for p in law.values() if p <= obs * Fraction(10**7 + 1, 10**7))


def fisher_greater(a_pass, a_runs, b_pass, b_runs):
    law = hyper(a_pass, a_runs, b_pass, b_runs)
    return sum(p for x, p in law.items() if x >= a_pass)


def main():
    print("// normal quantiles (statistics.NormalDist)")
    for p in [0.5, 0.8, 0.975, 0.995, 1e-10, 0.999999]:
        print(f"{{{p!r}, {NormalDist().inv_cdf(p)!r}}},")
    print("// t quantiles (mpmath)")
    for p, df in [("0.975", 1), ("0.975", 2), ("0.975", 3), ("0.975", 7), ("0.975", 23), ("0.975", 100),
                  ("0.975", 1000), ("0.8", 1), ("0.8", 7), ("0.8", 23), ("0.995", 5), ("0.6", 10), ("0.999", 30)]:
        print(f"{{{p}, {df}, {mp.nstr(t_quantile(p, df), 17)}}},")
    print("// t CDF (mpmath)")
    for t, df in [(-2.5, 4), (0.7, 1), (1.5, 12), (3.0, 200)]:
        print(f"{{{t}, {df}, {mp.nstr(t_cdf(t, df), 17)}}},")
    print("// Wilson 95% (statistics.NormalDist)")
    for passes, n in [(0, 10), (10, 10), (7, 10), (1, 3), (50, 100), (999, 1000), (3, 7), (0, 1)]:
        lo, hi = wilson(passes, n)
        print(f"{{{passes}, {n}, {max(0.0, lo)!r}, {min(1.0, hi)!r}}},")
    print("// Fisher exact (fractions, math.comb): two-sided, greater")
    for t in [(3, 4, 1, 4), (10, 10, 7, 10), (3, 10, 9, 10), (0, 10, 10, 10), (1, 5, 4, 5), (5, 10, 5, 10),
              (4, 10, 0, 10), (30, 40, 20, 45), (0, 3, 0, 7), (120, 200, 95, 210)]:
        print(f"{{Table{{{t[0]}, {t[1]}, {t[2]}, {t[3]}}}, {float(fisher_two_sided(*t))!r}, {float(fisher_greater(*t))!r}}},")
    print("// pass^k, pass@k (fractions, math.comb)")
    for n, c, k in [(10, 7, 1), (10, 7, 3), (10, 10, 5), (10, 0, 2), (5, 4, 5), (3000, 2000, 50), (5000, 4990, 1000),
                    (4000, 3, 2000), (20, 19, 10)]:
        hat = Fraction(comb(c, k), comb(n, k))
        at = 1 - Fraction(comb(n - c, k), comb(n, k))
        print(f"{{{n}, {c}, {k}, {float(hat)!r}, {float(at)!r}}},")
    print("// a decision: baseline, candidate passes/runs per task (mpmath t, NormalDist Wilson),")
    print("// the mean's interval at 97% (the gate's 3% share of its 5%)")
    tasks = [(9, 10, 5, 10), (7, 10, 6, 10), (10, 10, 8, 10), (4, 10, 4, 10), (6, 8, 2, 9)]
    diffs, low_sq, high_sq = [], 0.0, 0.0
    for bp, bn, cp, cn in tasks:
        pb, pc = bp / bn, cp / cn
        lb, ub = wilson(bp, bn, 0.985)
        lc, uc = wilson(cp, cn, 0.985)
        lb, lc, ub, uc = max(0.0, lb), max(0.0, lc), min(1.0, ub), min(1.0, uc)
        diffs.append(pc - pb)
        low_sq += (pc - lc) ** 2 + (ub - pb) ** 2
        high_sq += (uc - pc) ** 2 + (pb - lb) ** 2
    n = len(tasks)
    mean = sum(diffs) / n
    sd = sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1))
    half = float(t_quantile("0.985", n - 1)) * sd / sqrt(n)
    print(f"mean {mean!r} tasks [{mean - half!r}, {mean + half!r}] runs [{mean - sqrt(low_sq) / n!r}, {mean + sqrt(high_sq) / n!r}]")
    ps = [float(fisher_two_sided(cp, cn, bp, bn)) for bp, bn, cp, cn in tasks]
    order = sorted(range(n), key=lambda i: ps[i])
    holm, running = [0.0] * n, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (n - rank) * ps[i]))
        holm[i] = running
    print(f"fisher {ps!r}")
    print(f"holm {holm!r}")
    # each task's one-sided exact test of a drop (the baseline's share greater),
    # adjusted over Tarone's family at 2% with Holm's steps
    drop = [float(sum(p for x, p in hyper(bp, bn, cp, cn).items() if x >= bp)) for bp, bn, cp, cn in tasks]
    least = [float(hyper(bp, bn, cp, cn)[min(bp + cp, bn)]) for bp, bn, cp, cn in tasks]
    alpha = 0.02
    for k in range(1, n + 1):
        family = [i for i in range(n) if least[i] <= alpha / k]
        if len(family) <= k:
            break
    adj, running = [1.0] * n, 0.0
    for rank, i in enumerate(sorted(family, key=lambda i: drop[i])):
        running = max(running, min(1.0, (len(family) - rank) * drop[i]))
        adj[i] = running
    print(f"drop {drop!r}")
    print(f"drop adjusted {adj!r}")
    print("// power multipliers: noncentrality with 80% power, two-sided 5% t test on T-1 df (mpmath)")
    for tasks in [2, 3, 8, 24, 100]:
        print(f"{{{tasks}, {mp.nstr(power_multiplier(tasks), 12)}}},")
    print("// the same at the gate's level for the mean, two-sided 3% (q = 0.985)")
    for tasks in [2, 3, 8, 24, 100]:
        print(f"{{{tasks}, {mp.nstr(power_multiplier(tasks, '0.985'), 12)}}},")
    print(f"z.985 + z.80 = {NormalDist().inv_cdf(0.985) + NormalDist().inv_cdf(0.8)!r}")


main()
