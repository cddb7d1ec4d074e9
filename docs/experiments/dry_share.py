# usage: python3 docs/experiments/dry_share.py N STEPS (NumPy); e.g. 1024 580 prints the share
# of cells dry with no water within 2 cells, first, last and mean over steps 10..STEPS.
# The share of the peers' bench scene that is dry with every cell within 2 cells dry too
# (what a step could skip), over the steps `spillway bench --backend cpu` times at 1024^2.
import numpy as xp, sys
n = int(sys.argv[1]); total = int(sys.argv[2])
g, dt, dx, fric = 9.81, 0.025, 1.0, 0.999
f32 = xp.float32
j, i = xp.meshgrid(xp.arange(n, dtype=f32) / n, xp.arange(n, dtype=f32) / n, indexing="ij")
b = (4 * xp.sin(6 * i) * xp.cos(5 * j) + 3 * i).astype(f32)
d = xp.where(i < 0.5, xp.maximum(0, 8 - b), 0).astype(f32)
fx = xp.zeros((n, n + 1), f32); fy = xp.zeros((n + 1, n), f32)
c = f32(g * dt / dx)
def step(d, fx, fy):
    h = b + d
    ax = xp.zeros_like(fx); ay = xp.zeros_like(fy)
    ax[:, 1:n] = fx[:, 1:n] * f32(fric) + (h[:, :-1] - h[:, 1:]) * c
    ay[1:n, :] = fy[1:n, :] * f32(fric) + (h[:-1, :] - h[1:, :]) * c
    out = (xp.maximum(0, -ax[:, :-1]) + xp.maximum(0, ax[:, 1:]) + xp.maximum(0, -ay[:-1, :]) + xp.maximum(0, ay[1:, :]))
    vol = d * f32(dx * dx / dt)
    k = xp.where(out > vol, vol / xp.maximum(out, f32(1e-30)), f32(1)).astype(f32)
    kx = xp.ones_like(fx); ky = xp.ones_like(fy)
    kx[:, 1:n] = xp.where(ax[:, 1:n] > 0, k[:, :-1], k[:, 1:])
    ky[1:n, :] = xp.where(ay[1:n, :] > 0, k[:-1, :], k[1:, :])
    fx = ax * kx; fy = ay * ky
    d = xp.maximum(0, d + (fx[:, :-1] - fx[:, 1:] + fy[:-1, :] - fy[1:, :]) * f32(dt / (dx * dx))).astype(f32)
    return d, fx, fy
def quiet(d):
    wet = d > 0
    for _ in range(2):
        w = wet.copy()
        w[1:, :] |= wet[:-1, :]; w[:-1, :] |= wet[1:, :]; w[:, 1:] |= wet[:, :-1]; w[:, :-1] |= wet[:, 1:]
        wet = w
    return 1.0 - wet.mean()
shares = []
for s in range(total):
    d, fx, fy = step(d, fx, fy)
    if s >= 10 and s % 10 == 0:
        shares.append(quiet(d))
print(f"n={n} steps 10..{total}: quiet share first {shares[0]:.3f} last {shares[-1]:.3f} mean {sum(shares)/len(shares):.3f}")
