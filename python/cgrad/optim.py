"""cgrad.optim: the C++ optimizers (docs/optim.md) with torch.optim's spelling.

Parameters come as one Array, any iterable of Arrays (a generator too), or PyTorch's parameter
groups (dicts with "params" and their own settings); each group is a C++ optimizer, and one step
realizes every group's update in one schedule, with the forward and backward passes that make the
gradients. `param_groups[i]["lr"]` may change between steps (a schedule), and so may `opt.lr`;
nothing is planned again, since the rate reaches the update as a 0-d buffer. The defaults are
PyTorch's (lr 1e-3)."""
from . import _cgrad
from ._array import Array

_c = _cgrad.optim
minimize_cg = _c.minimize_cg

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "minimize_cg"]


def _as_array(v):
    from ._api import asarray

    return asarray(v)


def _param_list(params, where):
    if isinstance(params, Array):
        return [params]
    if isinstance(params, (dict, str)):
        raise TypeError(f"{where}: params must be an Array or an iterable of Arrays, got {type(params).__name__}")
    out = list(params)
    for p in out:
        if not isinstance(p, Array):
            raise TypeError(f"{where}: params must be Arrays, got {type(p).__name__}")
    return out


def _groups(params, name):
    """PyTorch's `params`: one Array, an iterable of Arrays, or an iterable of dicts (groups, each
    checked by add_param_group)."""
    if isinstance(params, Array):
        return [{"params": [params]}]
    if isinstance(params, (dict, str)):
        raise TypeError(f"{name}: params must be an Array, an iterable of Arrays or of dicts (parameter groups), "
                        f"got {type(params).__name__}")
    items = list(params)
    if not items:
        raise ValueError(f"{name}: the parameter list is empty")
    return items if all(isinstance(g, dict) for g in items) else [{"params": items}]


class Optimizer:
    """The base of cgrad.optim's optimizers: parameter groups, step, zero_grad."""

    _name = "Optimizer"

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.param_groups = []
        self._built = []  # per group: the settings its C++ optimizer was made with
        self._cpp = []
        for g in _groups(params, self._name):
            self.add_param_group(g)

    def _make(self, group):  # the C++ optimizer of one group
        raise NotImplementedError

    def add_param_group(self, group):
        """PyTorch's: another group, with the defaults where it says nothing."""
        if "params" not in group:
            raise ValueError(f"{self._name}: a parameter group needs 'params'")
        g = dict(self.defaults)
        g.update(group)
        g["params"] = _param_list(g["params"], self._name)
        unknown = set(g) - set(self.defaults) - {"params"}
        if unknown:
            raise TypeError(f"{self._name}: unknown settings {sorted(unknown)} in a parameter group")
        seen = {id(p) for other in self.param_groups for p in other["params"]}
        if any(id(p) in seen for p in g["params"]):
            raise ValueError(f"{self._name}: a parameter appears in more than one parameter group")
        self._cpp.append(self._make(g))
        self.param_groups.append(g)
        self._built.append(dict(g, params=list(g["params"])))

    def _sync(self):
        """Takes changed learning rates; refuses other changes, which the C++ state cannot take."""
        for g, built, c in zip(self.param_groups, self._built, self._cpp):
            for k, v in g.items():
                if k == "lr":
                    if v != c.lr:
                        c.lr = v
                elif k == "params":
                    if len(v) != len(built["params"]) or any(a is not b for a, b in zip(v, built["params"])):
                        raise ValueError(f"{self._name}: a group's params cannot change (add_param_group adds one)")
                elif v != built.get(k):
                    raise ValueError(f"{self._name}: {k} cannot change after construction (lr can)")

    @property
    def lr(self):
        """The first group's learning rate; setting it sets every group's."""
        return self.param_groups[0]["lr"]

    @lr.setter
    def lr(self, value):
        for g in self.param_groups:
            g["lr"] = value

    @property
    def params(self):
        return [p for g in self.param_groups for p in g["params"]]

    def step(self, with_=None):
        """One update of every parameter that has a gradient. `with_`: arrays (the loss) realized
        in the same schedule; or PyTorch's closure, a function that computes the loss (and its
        backward), whose loss is returned."""
        loss = None
        if callable(with_) and not isinstance(with_, Array):
            loss = with_()
            with_ = [loss] if isinstance(loss, Array) else []
        elif with_ is None:
            with_ = []
        elif isinstance(with_, Array):
            with_ = [with_]
        self._sync()
        if len(self._cpp) == 1:
            self._cpp[0].step(list(with_))
        else:
            _c.Optimizer.step_all(self._cpp, list(with_))
        return loss

    def state_dict(self):
        """PyTorch's checkpoint form: {"state": {index: {"step": n, buffer name: Array}},
        "param_groups": [the settings with "params" as indices]}. The Arrays are the buffers'
        values now (later steps do not change them); the parameters themselves are not in it."""
        state, groups, k = {}, [], 0
        for g, c in zip(self.param_groups, self._cpp):
            idx = []
            for i in range(len(g["params"])):
                entry = dict(c.state(i))
                if entry or c.steps:
                    state[k] = {"step": c.steps, **entry}
                idx.append(k)
                k += 1
            groups.append(dict(g, params=idx))
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Puts a state_dict back: the same groups and parameter counts, the buffers' shapes
        (ValueError otherwise, before anything changes); the groups' settings (lr...) too."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(
                len(a["params"]) != len(b["params"]) for a, b in zip(groups, self.param_groups)):
            raise ValueError(f"{self._name}: the state_dict's parameter groups do not match this optimizer's")
        for g, saved in zip(self.param_groups, groups):
            for key, v in saved.items():
                if key != "params" and key != "lr" and key in g and v != g[key]:
                    raise ValueError(f"{self._name}: the state_dict's {key} ({v!r}) differs from this optimizer's "
                                     f"({g[key]!r}), which its state was built with")
        state, loads = state_dict["state"], []
        for g, saved, c in zip(self.param_groups, groups, self._cpp):
            for i, k in enumerate(saved["params"]):
                entry = dict(state.get(k, state.get(str(k), {})))
                steps = int(entry.pop("step", 0))
                mine = dict(c.state(i))
                values = {name: v if isinstance(v, Array) else _as_array(v) for name, v in entry.items()}
                if set(values) != set(mine) or any(tuple(values[n].shape) != tuple(mine[n].shape) for n in mine):
                    raise ValueError(f"{self._name}: parameter {k}'s state has "
                                     f"{ {n: tuple(v.shape) for n, v in values.items()} }, this optimizer keeps "
                                     f"{ {n: tuple(v.shape) for n, v in mine.items()} }")
                loads.append((c, steps, i, list(values.items())))
        for c, steps, i, values in loads:  # all checked first: a bad entry changes nothing
            c.set_state(steps, i, values)
        for g, saved in zip(self.param_groups, groups):
            g["lr"] = saved.get("lr", g["lr"])

    def zero_grad(self, set_to_none=True):
        """Drops every gradient (PyTorch's default, set_to_none=True; False zeroes them, the same
        to the next backward())."""
        for c in self._cpp:
            c.zero_grad()

    def __repr__(self):
        lines = [f"{self._name} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in g.items() if k != "params"]
        return "\n".join(lines + [")"])


class SGD(Optimizer):
    """torch.optim.SGD: momentum, dampening, weight_decay (L2) and nesterov."""

    _name = "SGD"

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov))

    def _make(self, g):
        return _c.SGD(g["params"], g["lr"], g["momentum"], g["dampening"], g["weight_decay"], g["nesterov"])


def _betas(betas, beta1, beta2, name):
    if isinstance(betas, (int, float)):
        raise TypeError(f"{name}: betas is a pair (beta1, beta2), as torch.optim's; got {betas!r}")
    b1, b2 = betas
    return (b1 if beta1 is None else beta1, b2 if beta2 is None else beta2)


class Adam(Optimizer):
    """torch.optim.Adam: betas, eps, weight_decay (L2). `beta1=`/`beta2=` are taken too."""

    _name = "Adam"
    _cls = _c.Adam

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 beta1=None, beta2=None):
        if amsgrad:
            raise ValueError(f"{self._name}: amsgrad is not supported")
        super().__init__(params, dict(lr=lr, betas=_betas(betas, beta1, beta2, self._name), eps=eps,
                                      weight_decay=weight_decay, amsgrad=False))

    def _make(self, g):
        b1, b2 = _betas(g["betas"], None, None, self._name)
        return self._cls(g["params"], g["lr"], b1, b2, g["eps"], g["weight_decay"])


class AdamW(Adam):
    """torch.optim.AdamW: Adam with decoupled weight decay (default 0.01)."""

    _name = "AdamW"
    _cls = _c.AdamW

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 beta1=None, beta2=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, beta1=beta1, beta2=beta2)
