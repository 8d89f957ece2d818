"""Length buckets per device (issue 38): on a CPU a SimCSE step runs its batch as length buckets, on CUDA and
MPS as one forward. Both paths give the loss and gradients of the plain-PyTorch computation written here
(float32, dropout 0): the loss to 1e-5 relative, the gradients to rtol 1e-3 / atol 1e-6 (the same sums in
another order: buckets against one padded batch). The choice is made from the device's type alone (no
sync, no GPU needed) and the encoder's width (a narrow one runs one forward on a CPU too), and the lengths
are read on the host before the batch goes to the device."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import engine.training.towers as step_mod
from engine.simcse.augmentations import plan_of
from engine.simcse.step import contrastive_loss, encode_views
from engine.training.data import load_training
from engine.training.encoder import build_encoder
from engine.training.towers import (
    BUCKET_MIN_WIDTH,
    MAX_BUCKETS,
    Towers,
    bucket_limit,
    length_buckets,
    tokenize,
)
from engine.training.trainer import adamw_options

CPU = torch.device("cpu")


def _plain_loss(config, encoder, texts: list[str]) -> tuple[torch.Tensor, torch.nn.Module, torch.nn.Module]:
    """SimCSE unsup written directly: the two views in one padded forward, [CLS] + MLP, InfoNCE at τ."""
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(
        config.encoder, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0
    ).train()
    model.load_state_dict(encoder.model.state_dict())
    hidden = model.config.hidden_size
    mlp = torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.Tanh())
    mlp.load_state_dict(encoder.mlp.state_dict())
    tokenizer = AutoTokenizer.from_pretrained(config.encoder)
    inputs = tokenizer(
        texts + texts, padding=True, truncation=True, max_length=config.max_len, return_tensors="pt"
    )
    z = mlp(model(**inputs).last_hidden_state[:, 0])
    z1, z2 = F.normalize(z[: len(texts)], dim=-1), F.normalize(z[len(texts) :], dim=-1)
    return F.cross_entropy(z1 @ z2.T / config.temp, torch.arange(len(texts))), model, mlp


@pytest.mark.parametrize("max_buckets", [MAX_BUCKETS, 1], ids=["buckets (CPU)", "one forward (CUDA, MPS)"])
def test_both_paths_give_the_loss_and_gradients_of_plain_pytorch(tiny_config, max_buckets: int) -> None:
    config = tiny_config(dropout=0.0, batch_size=48, precision="fp32")
    encoder, use_mlp = build_encoder(config, CPU)
    towers = Towers(encoder, use_mlp, max_buckets=max_buckets)
    texts = load_training(config)[: config.batch_size]
    batch, lengths = tokenize(towers, encoder, texts + texts, config.max_len)
    width = batch["attention_mask"].shape[1]
    assert (lengths is not None) == (max_buckets > 1)
    if max_buckets > 1:  # the buckets are exercised: 96 rows of several lengths
        assert len(length_buckets(lengths, width, max_buckets) or []) == 3  # 96 // BUCKET_ROWS

    loss = contrastive_loss(
        encode_views(towers, encoder, [texts, texts], plan_of(config), config.max_len), config
    )
    loss.backward()
    reference, model, mlp = _plain_loss(config, encoder, texts)
    reference.backward()

    assert float(loss.detach()) == pytest.approx(float(reference.detach()), rel=1e-5)
    ours = dict(encoder.model.named_parameters())
    checked = 0
    for name, param in [*model.named_parameters(), *(("mlp." + n, p) for n, p in mlp.named_parameters())]:
        mine = encoder.mlp.get_parameter(name[4:]) if name.startswith("mlp.") else ours[name]
        assert (mine.grad is None) == (param.grad is None), name  # the unused pooler has none
        if param.grad is not None:
            torch.testing.assert_close(
                mine.grad, param.grad, rtol=1e-3, atol=1e-6, msg=lambda m, n=name: f"{n}: {m}"
            )
            checked += 1
    assert checked > 10


def test_the_choice_is_the_device_type_alone() -> None:
    assert bucket_limit("cpu") == bucket_limit(CPU, 384) == MAX_BUCKETS  # MiniLM's width: buckets
    assert bucket_limit(CPU, BUCKET_MIN_WIDTH - 1) == 1  # a narrow encoder: one forward
    for name in ("cuda", "cuda:1", "mps", torch.device("cuda", 0)):  # no GPU needed: no device is touched
        assert bucket_limit(name) == bucket_limit(name, 768) == 1
    assert adamw_options(torch.device("cuda")) == {"fused": True}
    assert adamw_options(CPU) == {"foreach": True}
    assert adamw_options(torch.device("mps")) == {}


def test_towers_on_an_accelerator_run_one_forward_without_reading_lengths(
    tiny_config, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tiny_config(dropout=0.0, batch_size=48)
    encoder, use_mlp = build_encoder(config, CPU)
    texts = load_training(config)[:96]
    batch = encoder.tokenize(texts, max_length=config.max_len)
    with torch.no_grad():
        whole = encoder.forward(batch, use_mlp=use_mlp)
    encoder.device = torch.device("cuda")  # as built for CUDA (the modules stay here: nothing runs there)
    towers = Towers(encoder, use_mlp)
    assert towers.max_buckets == 1

    def no_bookkeeping(*args, **kwargs):
        raise AssertionError("length bookkeeping on a one-forward device")

    monkeypatch.setattr(step_mod, "length_buckets", no_bookkeeping)
    monkeypatch.setattr(torch.Tensor, "item", no_bookkeeping)
    with torch.no_grad():
        torch.testing.assert_close(towers(batch), whole)


def test_buckets_on_an_accelerator_are_planned_on_the_host_before_the_move(tiny_config) -> None:
    """Buckets asked for on a device other than the CPU (``meta`` stands in for a GPU): the lengths come from
    the tokenizer's host mask, the batch alone goes to the device."""
    config = tiny_config(batch_size=48)
    encoder, use_mlp = build_encoder(config, CPU)
    texts = load_training(config)[:96]
    host = encoder.tokenize(texts, max_length=config.max_len)
    meta = torch.device("meta")
    encoder.device = meta
    towers = Towers(encoder, use_mlp, max_buckets=MAX_BUCKETS)
    batch, lengths = tokenize(towers, encoder, texts, config.max_len)
    assert encoder.device == meta  # the encoder is left as it was
    assert batch["input_ids"].device == meta and lengths.device == CPU
    assert lengths.tolist() == host["attention_mask"].sum(dim=1).tolist()


def _sentences(config, n: int) -> list[str]:
    return load_training(config)[:n]


def test_length_buckets_split_sorted_rows_and_skip_small_or_unpadded_batches() -> None:
    mask = torch.zeros(128, 32, dtype=torch.long)
    lengths = torch.randint(3, 33, (128,), generator=torch.Generator().manual_seed(0))
    for row, length in enumerate(lengths):
        mask[row, :length] = 1
    buckets = length_buckets(mask)
    assert buckets is not None and len(buckets) == 4
    rows = torch.cat([index for index, _ in buckets])
    assert sorted(rows.tolist()) == list(range(128))  # every row exactly once
    assert [width for _, width in buckets] == [int(lengths[index].max()) for index, _ in buckets]
    assert [width for _, width in buckets] == sorted(width for _, width in buckets)
    assert length_buckets(mask[:63]) is None  # fewer than 2 × 32 rows: one forward
    assert length_buckets(torch.ones(128, 32, dtype=torch.long)) is None  # nothing to cut


def test_bucketed_forward_gives_the_vectors_of_one_padded_forward(tiny_config) -> None:
    config = tiny_config(dropout=0.0)
    encoder, use_mlp = build_encoder(config, CPU)
    towers = Towers(encoder, use_mlp)
    texts = _sentences(config, 96)
    batch = encoder.tokenize(texts, max_length=config.max_len)
    assert length_buckets(batch["attention_mask"]) is not None
    with torch.no_grad():
        bucketed = towers(batch)
        whole = encoder.forward(batch, use_mlp=use_mlp)  # the plain padded forward
    torch.testing.assert_close(bucketed, whole, rtol=1e-5, atol=1e-6)
