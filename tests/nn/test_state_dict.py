"""``Module.state_dict`` / ``load_state_dict`` and their hooks against torch: keys and their
order, ``_metadata``, each hook's calls and arguments, handles, strict and non-strict results,
the whole RuntimeError text, ``assign=True``, ``_load_from_state_dict`` overrides, and the
hooks torch's own weight_norm and spectral_norm install."""

from __future__ import annotations

import warnings

import numpy as np

from .module_parity import both

RNG = np.random.default_rng(7)
W = RNG.standard_normal((3, 4))


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:   # noqa: BLE001 - the error is what is compared
        return e


def _net(lib):
    """Linear shared by two names, a child with a non-persistent buffer, a None parameter."""
    nn = lib.nn
    shared = nn.Linear(4, 3)
    inner = nn.Module()
    inner.register_buffer("kept", lib.ones(2))
    inner.register_buffer("dropped", lib.zeros(2), persistent=False)
    inner.register_parameter("nothing", None)
    inner.lin = shared
    return nn.Sequential(shared, inner)


# -- state_dict ---------------------------------------------------------------------------------

def test_keys_order_shared_modules_and_metadata(torch):
    def scenario(lib):
        sd = _net(lib).state_dict()
        return list(sd), dict(sd._metadata), type(sd).__name__
    both(torch, scenario)


def test_prefix_keep_vars_and_detach(torch):
    def scenario(lib):
        net = _net(lib)
        sd = net.state_dict(prefix="net.")
        kept = net.state_dict(keep_vars=True)
        sd["net.0.bias"].zero_()   # detached, but the same storage
        return (list(sd), dict(sd._metadata), sd["net.0.weight"].requires_grad,
                kept["0.weight"] is net[0].weight, net[0].bias)
    both(torch, scenario)


def test_destination_with_and_without_metadata(torch):
    def scenario(lib):
        net = _net(lib)
        plain = {}
        out = net.state_dict(destination=plain)
        return out is plain, hasattr(plain, "_metadata"), list(plain)
    both(torch, scenario)


def test_positional_arguments_warn(torch):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sd = lib.nn.Linear(2, 2).state_dict(None, "p.", True)
        return [w.category.__name__ for w in caught], list(sd), dict(sd._metadata)
    both(torch, scenario)


def test_version_class_attribute_goes_to_metadata(torch):
    def scenario(lib):
        class Versioned(lib.nn.Linear):
            _version = 3
        net = lib.nn.Sequential(Versioned(2, 2), lib.nn.Sequential(Versioned(2, 1)))
        return dict(net.state_dict()._metadata), lib.nn.Module._version
    both(torch, scenario)


def test_extra_state(torch):
    def scenario(lib):
        class Counter(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.count = 0

            def get_extra_state(self):
                return {"count": self.count}

            def set_extra_state(self, state):
                self.count = state["count"] + 10
        net = lib.nn.Sequential(Counter())
        sd = net.state_dict()
        missing = _outcome(lambda: net.load_state_dict({}))
        unexpected = _outcome(lambda: lib.nn.Linear(1, 1).load_state_dict(
            {"weight": lib.ones(1, 1), "bias": lib.ones(1), "_extra_state": 1}))
        net.load_state_dict(sd)
        return list(sd), sd["0._extra_state"], net[0].count, missing, unexpected
    both(torch, scenario)


def test_extra_state_default_methods_raise(torch):
    def scenario(lib):
        m = lib.nn.Linear(1, 1)
        return _outcome(m.get_extra_state), _outcome(lambda: m.set_extra_state(1))
    both(torch, scenario)


# -- state_dict hooks ---------------------------------------------------------------------------

def test_state_dict_hooks_order_and_arguments(torch):
    def scenario(lib):
        calls = []
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU()))
        for m in net.modules():
            m.register_state_dict_pre_hook(
                lambda mod, prefix, keep_vars: calls.append(("pre", mod, prefix, keep_vars)))
            m.register_state_dict_post_hook(
                lambda mod, sd, prefix, md: calls.append(("post", mod, list(sd), prefix,
                                                          dict(md))))
            m._register_state_dict_hook(
                lambda mod, sd, prefix, md: calls.append(("private", mod, prefix)))
        net.state_dict(prefix="x.", keep_vars=True)
        return calls
    both(torch, scenario)


def test_state_dict_post_hooks_return_values(torch):
    def scenario(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2))
        # the private hook's result replaces the state dict at the root only
        net[0]._register_state_dict_hook(lambda *a: {"ignored": 1})
        h = net._register_state_dict_hook(lambda mod, sd, p, md: {"root": len(sd)})
        replaced = net.state_dict()
        h.remove()

        def public(mod, sd, prefix, md):
            return {}
        net.register_state_dict_post_hook(public)
        refused = _outcome(net.state_dict)
        again = _outcome(lambda: net._register_state_dict_hook(public))
        return replaced, refused, again
    both(torch, scenario)


def test_state_dict_post_hook_edits_in_place(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2)

        def drop_bias(mod, sd, prefix, md):
            del sd[prefix + "bias"]
        m.register_state_dict_post_hook(drop_bias)
        m.register_state_dict_post_hook(lambda mod, sd, prefix, md: md.update(tag=prefix))
        sd = lib.nn.Sequential(m).state_dict()
        return list(sd), dict(sd._metadata)
    both(torch, scenario)


def test_handles_remove_every_kind(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2)
        calls = []
        handles = [
            m.register_state_dict_pre_hook(lambda *a: calls.append("pre")),
            m.register_state_dict_post_hook(lambda *a: calls.append("post")),
            m._register_state_dict_hook(lambda *a: calls.append("private")),
            m.register_load_state_dict_pre_hook(lambda *a: calls.append("load_pre")),
            m._register_load_state_dict_pre_hook(lambda *a: calls.append("load_pre_private")),
            m.register_load_state_dict_post_hook(lambda *a: calls.append("load_post")),
        ]
        m.load_state_dict(m.state_dict())
        before = list(calls)
        for h in handles:
            h.remove()
        calls.clear()
        m.load_state_dict(m.state_dict())
        tables = (m._state_dict_pre_hooks, m._state_dict_hooks, m._load_state_dict_pre_hooks,
                  m._load_state_dict_post_hooks)
        return before, calls, [len(t) for t in tables]
    both(torch, scenario)


# -- load_state_dict ----------------------------------------------------------------------------

def _bad_state(lib):
    sd = dict(_net(lib).state_dict())
    del sd["0.bias"], sd["1.lin.weight"]
    sd["extra"] = lib.zeros(1)
    sd["1.ghost.weight"] = lib.zeros(1)
    sd["1.kept"] = lib.zeros(5)
    sd["0.weight"] = "not a tensor"
    return sd


def test_strict_error_text_in_full(torch):
    def scenario(lib):
        return _outcome(lambda: _net(lib).load_state_dict(_bad_state(lib)))
    both(torch, scenario)


def test_non_strict_result_and_errors_that_remain(torch):
    def scenario(lib):
        sd = dict(_net(lib).state_dict())
        del sd["0.bias"]
        sd["extra"] = lib.zeros(1)
        result = _net(lib).load_state_dict(sd, strict=False)
        size_error = _outcome(lambda: _net(lib).load_state_dict(_bad_state(lib), strict=False))
        return (result, result.missing_keys, result.unexpected_keys, repr(result), size_error,
                repr(_net(lib).load_state_dict(_net(lib).state_dict())))
    both(torch, scenario)


def test_load_copies_values_in_place(torch):
    def scenario(lib):
        src, dst = lib.nn.Linear(4, 3), lib.nn.Linear(4, 3)
        with lib.no_grad():
            src.weight.copy_(lib.tensor(W))
        before = dst.weight
        dst.load_state_dict(src.state_dict())
        return dst.weight is before, dst.weight, dst.weight.requires_grad
    both(torch, scenario)


def test_not_a_mapping_and_scalar_from_shape_one(torch):
    def scenario(lib):
        m = lib.nn.Module()
        m.register_buffer("step", lib.tensor(1.0))
        m.load_state_dict({"step": lib.tensor([5.0])})   # torch 0.3 saved scalars as (1,)
        return _outcome(lambda: m.load_state_dict([("step", 1)])), m.step
    both(torch, scenario)


def test_none_parameter_with_a_key_is_unexpected(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2, bias=False)
        sd = {"weight": lib.zeros(2, 2), "bias": lib.zeros(2)}
        return _outcome(lambda: m.load_state_dict(sd)), m.load_state_dict(sd, strict=False)
    both(torch, scenario)


def test_assign(torch):
    def scenario(lib):
        m = lib.nn.BatchNorm1d(3)
        m.weight.requires_grad_(False)
        sd = {k: v.clone() + 1 for k, v in m.state_dict().items()}
        m.load_state_dict(sd, assign=True)
        p = lib.nn.Parameter(lib.ones(3), requires_grad=True)
        sd["bias"] = p
        m.load_state_dict(sd, assign=True)
        return (type(m.weight).__name__, m.weight.requires_grad, m.weight,
                m.running_mean is sd["running_mean"], m.bias is p, m.bias.requires_grad,
                list(m._parameters), [n for n, _ in m.named_parameters()])
    both(torch, scenario)


def test_assign_false_keeps_the_module_tensors(torch):
    def scenario(lib):
        m = lib.nn.BatchNorm1d(2)
        sd = {k: v.clone() for k, v in m.state_dict().items()}
        m.load_state_dict(sd)
        return m.running_mean is sd["running_mean"], type(m.weight).__name__
    both(torch, scenario)


# -- load hooks ---------------------------------------------------------------------------------

def test_load_hooks_order_and_arguments(torch):
    def scenario(lib):
        calls = []
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Linear(2, 1)))

        def pre(mod, sd, prefix, md, strict, missing, unexpected, errors):
            calls.append(("pre", mod, type(sd).__name__, sorted(sd), prefix, dict(md), strict,
                          list(missing), list(unexpected), list(errors)))

        def post(mod, keys):
            calls.append(("post", mod, type(keys).__name__, list(keys.missing_keys),
                          list(keys.unexpected_keys)))
        for m in net.modules():
            m.register_load_state_dict_pre_hook(pre)
            m.register_load_state_dict_post_hook(post)
        sd = net.state_dict()
        del sd["1.0.bias"]
        sd["1.x"] = lib.zeros(1)
        net.load_state_dict(sd, strict=False, assign=True)
        return calls
    both(torch, scenario)


def test_load_pre_hook_renames_and_private_hook_has_no_module(torch):
    def scenario(lib):
        seen = []
        m = lib.nn.Linear(2, 2)

        def rename(sd, prefix, md, strict, missing, unexpected, errors):
            seen.append(prefix)
            sd[prefix + "weight"] = sd.pop(prefix + "w")
        m._register_load_state_dict_pre_hook(rename)
        given = {"w": lib.ones(2, 2), "bias": lib.zeros(2)}
        result = lib.nn.Sequential(m).load_state_dict({"0." + k: v for k, v in given.items()})
        return result, seen, m.weight, list(given)
    both(torch, scenario)


def test_load_post_hook_can_clear_keys_and_must_return_none(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2)
        h = m.register_load_state_dict_post_hook(
            lambda mod, keys: (keys.missing_keys.clear(), keys.unexpected_keys.clear()) and None)
        cleared = m.load_state_dict({"x": lib.zeros(1)})
        h.remove()
        m.register_load_state_dict_post_hook(lambda mod, keys: keys)
        return cleared, _outcome(lambda: m.load_state_dict(m.state_dict()))
    both(torch, scenario)


def test_load_post_hook_additions_make_strict_fail(torch):
    def scenario(lib):
        m = lib.nn.Linear(2, 2)
        m.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.append("z"))
        return _outcome(lambda: m.load_state_dict(m.state_dict()))
    both(torch, scenario)


def test_overriding_load_from_state_dict_uses_version(torch):
    def scenario(lib):
        class Renamed(lib.nn.Module):
            _version = 2

            def __init__(self):
                super().__init__()
                self.scale = lib.nn.Parameter(lib.zeros(2))

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs):
                version = local_metadata.get("version", None)
                if (version is None or version < 2) and prefix + "gain" in state_dict:
                    state_dict[prefix + "scale"] = state_dict.pop(prefix + "gain")
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                              missing_keys, unexpected_keys, error_msgs)
        net = lib.nn.Sequential(Renamed())
        old = {"0.gain": lib.ones(2)}   # no _metadata: version None
        converted = net.load_state_dict(old)
        value = net[0].scale.detach().clone()
        new = net.state_dict()
        new["0.gain"] = lib.ones(2)   # version 2 in the metadata: no conversion
        return converted, value, _outcome(lambda: net.load_state_dict(new)), list(old)
    both(torch, scenario)


# -- weight_norm and spectral_norm --------------------------------------------------------------

def test_weight_norm_loads_old_weight_g_and_weight_v(torch):
    def scenario(lib):
        old = lib.nn.Linear(4, 3)
        with lib.no_grad():
            old.weight.copy_(lib.tensor(W, dtype=lib.float32))
        old = lib.nn.utils.weight_norm(old)
        sd = old.state_dict()
        keys = list(sd)
        new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(4, 3))
        result = new.load_state_dict(sd)
        # the keys before and after: loading converts a copy, not the caller's dict
        return keys, result, new.weight, list(new.state_dict()), list(sd)
    both(torch, scenario)


def test_spectral_norm_metadata_and_hooks(torch):
    def scenario(lib):
        net = lib.nn.Sequential(lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3)))
        net[0] = lib.nn.utils.spectral_norm(net[0], name="bias")
        sd = net.state_dict()
        hooks = ([type(h).__name__ for h in net[0]._state_dict_hooks.values()],
                 [type(h).__name__ for h in net[0]._load_state_dict_pre_hooks.values()])
        return list(sd), dict(sd._metadata), hooks, net.load_state_dict(sd)
    both(torch, scenario)


def test_spectral_norm_converts_a_version_0_state_dict(torch):
    def scenario(lib):
        # a (4, 3) weight: W^T W is invertible, so pinverse is well conditioned
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(3, 4).double())
        with lib.no_grad():
            m.weight_orig.copy_(lib.tensor(W.T))
            m.weight_u.copy_(lib.tensor([0.6, 0.0, 0.8, 0.0], dtype=lib.float64))
        old = dict(m.state_dict())   # version 0: the weight saved, no weight_v
        del old["weight_v"]
        old["weight"] = old["weight_orig"] / 2.5
        result = m.load_state_dict(old)
        incomplete = dict(old)
        del incomplete["weight_u"]
        return result, m.weight_v, _outcome(lambda: m.load_state_dict(incomplete))
    both(torch, scenario)


def test_spectral_norm_state_dict_without_metadata_loads(torch):
    def scenario(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3))
        return m.load_state_dict(dict(m.state_dict()))
    both(torch, scenario)


def test_remove_spectral_norm_leaves_the_load_pre_hook_as_torch_does(torch):
    def scenario(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3))
        lib.nn.utils.remove_spectral_norm(m)
        tables = len(m._state_dict_hooks), len(m._load_state_dict_pre_hooks)
        return tables, list(m.state_dict()), _outcome(lambda: m.load_state_dict(m.state_dict()))
    both(torch, scenario)


def test_spectral_norm_version_recorded_twice_is_refused(torch):
    def scenario(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3))
        m._register_state_dict_hook(m._state_dict_hooks[next(iter(m._state_dict_hooks))])
        return _outcome(m.state_dict)
    both(torch, scenario)


# -- the norm layers' versions ------------------------------------------------------------------

def test_norm_layers_metadata_version(torch):
    def scenario(lib):
        net = lib.nn.Sequential(lib.nn.BatchNorm1d(2), lib.nn.InstanceNorm1d(2),
                                lib.nn.LayerNorm(2))
        return {k: v for k, v in net.state_dict()._metadata.items()}
    both(torch, scenario)


def test_batch_norm_checkpoint_before_version_2_keeps_num_batches_tracked(torch):
    def scenario(lib):
        bn = lib.nn.BatchNorm1d(2)
        bn(lib.ones(4, 2) * lib.arange(4.0).reshape(4, 1))
        state = bn.state_dict()
        del state["num_batches_tracked"]
        state._metadata[""]["version"] = 1
        fresh = lib.nn.BatchNorm1d(2)
        fresh.num_batches_tracked.fill_(5)   # kept: the checkpoint has no count to load
        result = fresh.load_state_dict(state)
        return (list(result.missing_keys), fresh.num_batches_tracked, fresh.running_mean,
                _outcome(lambda: lib.nn.BatchNorm1d(2).load_state_dict(
                    {k: v for k, v in state.items()})))
    both(torch, scenario)


def test_instance_norm_checkpoint_before_version_1_with_running_stats(torch):
    def scenario(lib):
        state = {"running_mean": lib.zeros(2), "running_var": lib.ones(2)}
        return _outcome(lambda: lib.nn.InstanceNorm1d(2).load_state_dict(state))
    both(torch, scenario)
