"""A saved encoder's model card says what it is and how it was made (issue 56): parameters, size on disk,
training data and its size, steps, batch, learning rate, seed, pooler, precision, date, the evaluation set
with its size, the run that made it (its folder under cache/runs) and the one command that makes it again;
every name a user gave is shown as its characters, never as Markdown or HTML (issue 55: rendered with
CommonMark, a card makes no tag, link, image, code span or heading from a name)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from engine.encoders.card import made_by, markdown_text, render_card

HOSTILE = (
    "<script>alert(1)</script> # heading `code` ![x](http://127.0.0.1:1/x.png) [click](http://e.x) *b* | c"
)


def rendered(markdown: str) -> str:
    """HTML of ``markdown`` as CommonMark draws it (raw HTML allowed, as on a model hub), with tables."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def test_a_run_saves_an_encoder_whose_card_names_how_it_was_made(tiny_config, own_cache: Path) -> None:
    from engine.experiments import EXPERIMENTS
    from engine.runlog.runner import run_experiment

    config = tiny_config(steps=2, eval_every=2, batch_size=8, eval_limit=24, save_encoder="carded", seed=3)
    run_dir = own_cache / "runs" / "made-it"
    run_experiment(EXPERIMENTS["simcse"], config, run_dir, name="the carded run")
    folder = own_cache / "encoders" / "carded"
    card = (folder / "README.md").read_text()
    assert "- Training data: demo" in card, card
    assert "- Training-set size: 600 sentences" in card  # the demo corpus
    assert "- Steps: 2" in card and "- Batch size: 8" in card
    assert f"- Learning rate: {config.lr:g}" in card and "- Seed: 3" in card
    assert "- Pooler: " in card and "- Pooler: —" not in card
    assert "- Precision: " in card and " on cpu" in card
    assert "- Evaluation set: demo-pairs \\(24 of " not in card  # parentheses are not escaped
    assert "- Evaluation set: demo-pairs (24 of " in card  # the set and how much of it
    assert "- Made by run: the carded run (cache/runs/made-it)" in card
    meta = json.loads((folder / "embedlab.json").read_text())
    weights = sum(p.stat().st_size for p in folder.iterdir() if p.suffix == ".safetensors")
    assert meta["parameters"] > 0 and f"- Parameters: {meta['parameters']:,} weights" in card
    assert meta["size_bytes"] >= weights and f"({meta['size_bytes']:,} bytes)" in card
    assert f"- Date saved: {meta['created']}" in card
    assert meta["card"]["run"]["folder"] == "made-it" and str(own_cache) not in json.dumps(
        meta["card"]["run"]
    )
    command = card.split("## Make it again", 1)[1].split("```bash\n", 1)[1].split("\n", 1)[0]
    words = shlex.split(command)
    assert words[:5] == ["python", "-m", "engine", "simcse", "--config-json"]
    assert words[-2:] == ["--out", "cache/runs/made-it"]
    settings_json = json.loads(words[5])
    assert settings_json["seed"] == 3 and settings_json["save_encoder"] == "carded"
    assert "data_dir" not in settings_json and "device" not in settings_json


def test_the_command_remakes_the_same_config(tiny_config) -> None:
    """The command's settings give back the run's config: the data folder and device are the command line's
    own, and a local folder (here the encoder's) is named as the card names it (no path of this machine)."""
    from engine.cli import load_config_json
    from engine.encoders.portable import portable_path
    from engine.simcse.train import remake_command

    config = tiny_config(steps=2, batch_size=8, save_encoder="again", seed=5, lr=1e-4)
    words = shlex.split(remake_command(config, "run-folder"))
    again = load_config_json("simcse", words[5])
    local = {"data_dir": None, "device": None, "encoder": portable_path(config.encoder)}
    assert {**vars(again), **local} == {**vars(config), **local}
    assert again.encoder == portable_path(config.encoder) == Path(config.encoder).name


def test_the_card_says_unknown_for_what_an_old_card_lacks() -> None:
    card = render_card("old", {"card": {"data": "wiki1m", "steps": 5}, "pooling": "cls"})
    assert "- Training data: wiki1m" in card and "- Made by run: —" in card and "- Batch size: —" in card
    assert "- Parameters: —" in card and "- Size on disk: —" in card and "- Seed: —" in card
    assert "- Learning rate: 3e-05" in render_card("lr", {"card": {"lr": 3e-5}})
    assert "## Make it again" not in card
    assert made_by({"folder": "x", "name": "x"}) == "cache/runs/x"
    assert made_by(None) == "—"


def test_the_card_names_the_start_a_run_came_from() -> None:
    from engine.simcse.train import started_from

    assert started_from("minilm-cls").startswith("minilm-cls: the bundled all-MiniLM-L6-v2 read at its [CLS]")
    assert started_from(None) == "the bundled all-MiniLM-L6-v2 at its own pooling"
    assert started_from("bert-base-uncased") == "bert-base-uncased"
    card = render_card(
        "from-cls", {"card": {"start": started_from("minilm-cls")}, "pooling": "cls_before_pooler"}
    )
    assert "- Started from: minilm-cls: the bundled all-MiniLM-L6-v2 read at its \\[CLS\\] token" in card
    assert "read at its [CLS] token" in rendered(card)  # drawn as the characters
    assert "- Started from" not in render_card("old", {"card": {}, "pooling": "avg"})


def hostile_card(name: str) -> dict:
    """The meta of an encoder whose every user-given text is ``name``."""
    return {
        "pooling": "avg",
        "base_model": name,
        "card": {
            "base_model": name,
            "start": name,
            "train_data": name,
            "evaluation": name,
            "run": {"folder": name, "name": name},
            "switches": {name: name},
            "final_metrics": {name: 0.5},
            f"note {name}": name,  # a key of the card's own: never one of the keys it draws in their lines
            "command": shlex.join(
                ["python", "-m", "engine", "simcse", "--config-json", json.dumps({"x": name})]
            ),
        },
    }


def constructs(html: str) -> dict[str, int]:
    """The HTML constructs a card's names could make: tags, links, images, code, headings, lists, rules."""
    tags = ("<script", "<a ", "<img", "<code", "<pre", "<h1", "<h2", "<h3", "<em>", "<strong>", "<ul", "<ol")
    return {tag: html.count(tag) for tag in (*tags, "<hr", "<blockquote", "<table", "<li")}


def test_names_full_of_markdown_and_html_are_drawn_as_their_characters() -> None:
    plain = rendered(render_card("enc", hostile_card("name")))
    html = rendered(render_card("enc", hostile_card(HOSTILE)))
    assert constructs(html) == constructs(plain)  # nothing came from the names
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "# heading" in html
    assert "\n# heading" not in render_card("enc", hostile_card(HOSTILE))


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\0"),
        min_size=1,
        max_size=40,
    )
)
def test_any_name_makes_no_construct_and_reads_as_itself(name: str) -> None:
    """Property: whatever a name holds, the card drawn makes the same tags as with a plain name, and the
    escaped text, drawn inline, is the name's own characters (line breaks as spaces)."""
    html = rendered(render_card("enc", hostile_card(name)))
    assert constructs(html) == constructs(rendered(render_card("enc", hostile_card("name"))))
    inline = MarkdownIt("commonmark", {"html": True}).renderInline(markdown_text(name))
    from html import unescape

    expected = " ".join(name.replace("\r", " ").replace("\n", " ").split(" "))
    assert unescape(inline).strip() == expected.strip()
