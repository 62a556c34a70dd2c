"""Hands arrays between cgrad and PyTorch without copies (DLPack): a torch tensor goes into a
cgrad computation, the result comes back as a torch tensor over cgrad's memory, and the
pointers show that nothing was copied. Needs torch (CPU) installed.

usage: python examples/python/torch_handoff.py
"""
import torch

import cgrad as cg


def main():
    t = torch.linspace(-3, 3, 12, dtype=torch.float32).reshape(3, 4)
    x = cg.from_dlpack(t)  # zero-copy: x reads t's memory
    y = cg.softmax(cg.exp(x) * 0.5, -1)  # lazy; evaluated by the hand-off below
    back = torch.from_dlpack(y)  # zero-copy: a torch tensor over cgrad's buffer
    print("input shared:", torch.from_dlpack(x).data_ptr() == t.data_ptr())
    print("result:", back)
    expected = torch.softmax(torch.exp(t) * 0.5, -1)
    print("max difference to torch:", float((back - expected).abs().max()))
    # `back` keeps cgrad's buffer alive after every cgrad handle is gone.
    del x, y
    print("still valid:", back.sum().item())


if __name__ == "__main__":
    main()
