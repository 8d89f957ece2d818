"""The fast paths of a SimCSE step and evaluation against plain PyTorch: length buckets, bf16 autocast,
pretokenised evaluation, and the evaluation set named in the summary."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from engine.compute import device as device_mod
from engine.runlog.events import Row
from engine.simcse.config import SimCSEConfig
from engine.simcse.step import make_trainer
from engine.simcse.train import summarize, train_simcse
from engine.training.data import eval_set_label, load_eval, load_training
from engine.training.towers import length_buckets

CPU = torch.device("cpu")


def _sentences(config: SimCSEConfig, n: int) -> list[str]:
    return load_training(config)[:n]


# ------------------------------------------------------------------------------------- length buckets


def test_training_step_matches_a_plain_pytorch_loop(tiny_config) -> None:
    """Trainer.step (float32, length buckets, dropout 0) against SimCSE written directly in PyTorch."""
    from transformers import AutoModel, AutoTokenizer

    config = tiny_config(dropout=0.0, batch_size=48, lr=1e-3, steps=4, precision="fp32")
    data = load_training(config)
    trainer = make_trainer(config, data, device=CPU)
    tokenizer = AutoTokenizer.from_pretrained(config.encoder)
    model = AutoModel.from_pretrained(
        config.encoder, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0
    ).train()
    model.load_state_dict(trainer.encoder.model.state_dict())
    mlp = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.Tanh())
    mlp.load_state_dict(trainer.encoder.mlp.state_dict())
    params = list(model.parameters()) + list(mlp.parameters())
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1.0 - s / config.steps))
    grads: list[dict[str, torch.Tensor]] = []
    trainer.optimizer.register_step_pre_hook(
        lambda opt, args, kwargs: grads.append(
            {n: p.grad.clone() for n, p in trainer.encoder.model.named_parameters() if p.grad is not None}
        )
    )  # the unused pooler has none
    bucketed_steps = 0
    for step in range(1, config.steps + 1):
        texts = [data[i] for i in trainer.sampler(step)]
        inputs = tokenizer(
            texts + texts, padding=True, truncation=True, max_length=config.max_len, return_tensors="pt"
        )
        bucketed_steps += length_buckets(inputs["attention_mask"]) is not None
        z = mlp(model(**inputs).last_hidden_state[:, 0])
        z1, z2 = F.normalize(z[: len(texts)], dim=-1), F.normalize(z[len(texts) :], dim=-1)
        loss = F.cross_entropy(z1 @ z2.T / config.temp, torch.arange(len(texts)))
        loss.backward()
        got = trainer.step(step)  # the hook keeps our gradients of this step before the update
        assert got == pytest.approx(float(loss.detach()), rel=1e-5)
        if step == 1:  # the first gradients, before the weights drift apart by rounding
            assert set(grads[0]) == {
                name for name, param in model.named_parameters() if param.grad is not None
            }
            for name, param in model.named_parameters():
                if param.grad is None:
                    continue
                # atol 1e-6: a row such as [CLS]'s sums 96 positions' gradients, in another order here (length
                # buckets against one padded batch, and whatever thread count earlier tests left): a few 1e-7
                torch.testing.assert_close(
                    grads[0][name],
                    param.grad,
                    rtol=1e-3,
                    atol=1e-6,
                    msg=lambda text, name=name: f"{name}: {text}",
                )
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        schedule.step()
    assert bucketed_steps == config.steps  # the buckets were exercised
    # After the updates: Adam moves each weight by ~lr per step whatever its gradient's size, so where a
    # gradient is ~0 float rounding can flip that step's sign; the weights agree on average, and nowhere by
    # more than those flips allow (2 · lr · steps)
    ours = dict(trainer.encoder.model.named_parameters())
    diffs = torch.cat(
        [(ours[name] - param).detach().abs().flatten() for name, param in model.named_parameters()]
    )
    assert float(diffs.mean()) < 1e-6 and float(diffs.max()) <= 2 * config.lr * config.steps


# ----------------------------------------------------------------------------------------- bf16


def test_autocast_dtype_per_device_and_precision(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device_mod, "cpu_has_native_bf16", lambda: True)
    assert device_mod.autocast_dtype(CPU, "auto") is torch.bfloat16
    assert device_mod.autocast_dtype(CPU, "fp32") is None
    assert device_mod.precision_name(CPU, "auto") == "bfloat16 autocast"
    assert not device_mod.needs_grad_scaler(CPU, precision="auto")  # bf16 needs no loss scaling
    monkeypatch.setattr(device_mod, "cpu_has_native_bf16", lambda: False)  # emulated bf16 would be slower
    assert device_mod.autocast_dtype(CPU, "auto") is None
    assert device_mod.precision_name(CPU, "auto") == "float32"
    assert isinstance(
        device_mod.autocast(CPU, precision="auto"), type(device_mod.autocast(CPU, enabled=False))
    )
    with pytest.raises(device_mod.ConfigError, match="precision"):
        device_mod.autocast_dtype(CPU, "fp16")


def _losses(config: SimCSEConfig, steps: int) -> tuple[list[float], set[torch.dtype]]:
    torch.manual_seed(0)
    trainer = make_trainer(config, load_training(config), device=CPU)
    dtypes: set[torch.dtype] = set()
    hook = trainer.encoder.model.encoder.layer[0].intermediate.dense.register_forward_hook(
        lambda module, args, out: dtypes.add(out.dtype)
    )
    try:
        return [trainer.step(step) for step in range(1, steps + 1)], dtypes
    finally:
        hook.remove()


BF16_LOSS_TOLERANCE = 5e-3  # absolute, on losses of ~3.5 that fall by ~0.3 over these 8 steps


def test_bf16_losses_stay_within_tolerance_of_float32(tiny_config, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same 8 steps (same init, batches and dropout masks) in float32 and in bf16 autocast.

    bf16 is forced on even where the CPU only emulates it: the numbers are the same, only slower.
    """
    monkeypatch.setattr(device_mod, "cpu_has_native_bf16", lambda: True)
    base = dict(dropout=0.1, batch_size=32, lr=1e-3, steps=8)
    fp32, fp32_dtypes = _losses(tiny_config(precision="fp32", **base), 8)
    bf16, bf16_dtypes = _losses(tiny_config(precision="auto", **base), 8)
    assert fp32_dtypes == {torch.float32} and bf16_dtypes == {torch.bfloat16}  # the bf16 path ran
    assert fp32[0] - np.mean(fp32[-3:]) > 0.1  # the loss moves far more than the tolerance
    np.testing.assert_allclose(bf16, fp32, rtol=0, atol=BF16_LOSS_TOLERANCE)


def test_precision_is_validated_and_reported(tiny_config, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(device_mod.ConfigError, match="precision"):
        SimCSEConfig(precision="fp16")
    monkeypatch.setattr(device_mod, "cpu_has_native_bf16", lambda: False)
    config = tiny_config(steps=2, eval_every=2)
    rows = [e.record(config.metric_columns()) for e in train_simcse(config) if isinstance(e, Row)]
    assert summarize(rows, config)["precision"] == "float32"
    assert summarize(rows, tiny_config(precision="fp32"))["precision"] == "float32"


# ----------------------------------------------------------------------------------- evaluation


def test_summary_names_the_demo_pairs_when_there_is_no_data_folder(tiny_config, monkeypatch) -> None:
    monkeypatch.delenv("EMBEDLAB_DATA_DIR", raising=False)
    config = tiny_config(eval=None, eval_limit=30, steps=2, eval_every=2)
    rows = [e.record(config.metric_columns()) for e in train_simcse(config) if isinstance(e, Row)]
    summary = summarize(rows, config)
    total = load_eval(tiny_config(eval=None, eval_limit=None)).total
    assert summary["eval_set"] == eval_set_label(config) == f"demo-pairs (30 of {total:,} pairs)"
    assert summary["train_and_eval"] == ["demo", "demo-pairs"]


def test_stsb_dev_is_named_with_its_size(tiny_config, shared_data) -> None:
    assert (
        eval_set_label(tiny_config(eval="stsb", data_dir=str(shared_data), eval_limit=250))
        == "stsb-dev (250 of 1,500 pairs)"
    )
    assert (
        eval_set_label(tiny_config(eval="stsb", data_dir=str(shared_data), eval_limit=None))
        == "stsb-dev (1,500 pairs)"
    )
