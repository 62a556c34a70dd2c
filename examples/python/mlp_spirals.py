"""Trains a two-layer MLP on two interleaved spirals with cgrad from Python: autograd, Adam,
and one fused plan per step (the forward, backward and update realized together by
optimizer.step, replayed from the second step on). Prints the loss and the accuracy.

usage: python examples/python/mlp_spirals.py [steps]
"""
import math
import sys

import cgrad as cg


def spirals(n_per_class):
    xs, ys = [], []
    for c in range(2):
        for i in range(n_per_class):
            t = 0.25 + 3.5 * i / n_per_class  # angle / pi
            r, a = t / 3.75, math.pi * (t + c)
            xs.append([r * math.cos(a), r * math.sin(a)])
            ys.append(c)
    return cg.asarray(xs), cg.asarray(ys)


def main(steps=600):
    cg.manual_seed(0)
    x, y = spirals(200)
    h = 64
    w1 = (cg.randn((2, h)) * 1.0).eval().requires_grad_()
    b1 = cg.zeros((h,)).requires_grad_()
    w2 = (cg.randn((h, h)) * (1 / 8)).eval().requires_grad_()
    b2 = cg.zeros((h,)).requires_grad_()
    w3 = (cg.randn((h, 2)) * (1 / 8)).eval().requires_grad_()
    b3 = cg.zeros((2,)).requires_grad_()
    opt = cg.optim.Adam([w1, b1, w2, b2, w3, b3], lr=0.01)

    def model(x):
        return cg.tanh(cg.tanh(x @ w1 + b1) @ w2 + b2) @ w3 + b3

    for step in range(steps):
        opt.zero_grad()
        loss = cg.cross_entropy(model(x), y)
        loss.backward()
        opt.step([loss])  # the loss is computed in the same schedule as the update
        if step % 50 == 0 or step == steps - 1:
            with cg.no_grad():
                pred = model(x)
                correct = cg.sum((pred[:, 1] > pred[:, 0]) == (y == 1))
            print(f"step {step:4d}  loss {float(loss):.4f}  accuracy {int(correct) / y.size:.3f}")
    print("stats:", {k: v for k, v in cg.stats().items() if k in ("kernels_launched", "plans_built", "plan_cache_hits")})


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 600)
