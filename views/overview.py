"""Overview: the one-click demo first, then the words the lab uses, what it shows, and one picture."""

from __future__ import annotations

import streamlit as st

from engine import experiments
from engine.claims import latest as claims_latest
from engine.core import paths
from engine.core.errors import ConfigError
from engine.lessons import texts as lessons
from ui import controls, runs, static_files

st.title("embedlab — watch sentence embeddings take shape")

cols = st.columns([1, 3], vertical_alignment="center")
if cols[0].button(
    "Start the demo", type="primary", icon=":material/play_arrow:", key="overview.demo", width="stretch"
):
    with runs.guard("Demo: "):
        from engine.lessons.presets import demo

        preset = demo()
        configs = preset.configs()
        experiment = experiments.get(preset.kind)  # the demo preset names its experiment by its kind
        runs.submit_runs(experiment, configs)
        controls.show_settings(experiment, configs[0][1])  # the Isotropy page's sidebar shows what runs
        st.switch_page(experiment.section.page)
cols[1].write(
    "One click queues a small probe run on the built-in demo corpus (600 sentences, 6 topics) and opens "
    "*Isotropy vs clusters*: the silhouette climbs, IsoScore drops and the topics pull apart in the "
    "projection, at a lecture's pace (about 25 s, a step counter beside the charts; the sidebar's "
    "“Lecture pace” switch turns it off)."
)

st.subheader("Three words first")
st.markdown("\n".join(f"- **{word.capitalize()}**: {text}" for word, text in lessons.DEFINITIONS.items()))
st.page_link(
    "views/glossary.py",
    label="Glossary: every measure with its formula, range and source",
    icon=":material/menu_book:",
)
st.subheader("What the lab shows")
st.markdown(
    "This lab trains sentence embeddings **live** and shows what the training does to their geometry.\n\n"
    "- **SimCSE training**: contrastive learning with dropout as the only noise (Gao et al. 2021). Flip an "
    "ablation (no dropout, same mask, delete one word, …) and watch *alignment* and *uniformity* move. The "
    "bundled encoder was already trained contrastively at its mean pooling, so the preset *SimCSE Figure 2* "
    "starts from its [CLS] token (`minilm-cls`), which that training never made a sentence vector (the "
    "lesson gives what moves there and what does not).\n"
    "- **Isotropy vs clusters**: turn embeddings into parameters of a linear classifier and watch the "
    "classes form clusters while the space becomes *anisotropic* (Mickus et al. 2024).\n"
    "- Every run writes its metrics to `cache/runs/` as it goes; downloads give CSV, zip and figures. "
    "**Projector mode** (sidebar) shows a run large, for a lecture room."
)


def claims_section() -> None:
    """The latest claims table that ``python -m engine claims`` saved: its date, command (the budget) and,
    per setup, the updates and both verdicts (engine.claims.latest)."""
    with st.expander("Does the isotropy paper's finding hold here? The latest claims table"):
        try:
            table = claims_latest.longest()
        except ConfigError as err:
            st.warning(str(err))
            return
        if table is None:
            st.caption(
                "No claims table saved yet: `python -m engine claims` runs the paper's setups over seeds "
                "at its length (1000 updates) and saves the table shown here."
            )
            return
        st.caption(
            f"The longest table saved, run under {claims_latest.protocol_words(table)}. "
            f"Saved {table.get('date', '?')} by `{table.get('command', '?')}` (seeds "
            f"{', '.join(map(str, table.get('seeds', [])))}). **Lab verdict**: IsoScore falls, the "
            "silhouette rises to at least 0.1, r and ρ ≤ −0.8, in every seed. **Paper verdict**: ρ below "
            "−0.998 and r within 0.05 of the paper's r, in every seed (docs/paper.md)."
        )
        st.dataframe(
            [
                {
                    "setup": row.get("setup"),
                    "updates": row.get("updates"),
                    "lab verdict": row.get("lab_verdict"),
                    "paper verdict": row.get("paper_verdict"),
                    "paper's figure": row.get("paper"),
                    "source": row.get("source"),
                }
                for row in table["rows"]
            ],
            hide_index=True,
            key="overview.claims",
        )
        if not all(row.get("paper_protocol", False) for row in table["rows"]):
            st.caption("A row whose updates say “of 1000” ran under a budget: not the paper's protocol.")


claims_section()
st.graphviz_chart(
    """
    digraph lab { rankdir=LR;
      node [shape=box, style="rounded,filled", fillcolor="#eef1fb", fontname="sans-serif"];
      data [label="sentences\\n(demo, rt-polarity, STS-B, wiki, your CSV)"];
      enc [label="encoder\\n(MiniLM, BERT, saved)"];
      emb [label="embeddings", fillcolor="#dbe4ff"];
      train [label="training step\\n(SimCSE loss / linear classifier)"];
      curves [label="curves: loss, IsoScore, silhouette,\\nalignment (probe: class alignment),\\n\
uniformity, STS, spectrum"];
      umap [label="UMAP frames\\n(clusters moving)"];
      data -> enc -> emb -> train -> emb; emb -> curves; emb -> umap; }
    """
)
shot = paths.REPO_ROOT / "docs" / "screenshots" / "isotropy.png"
if shot.is_file():  # a static file: its URL never goes stale as a media file's does (ui.static_files)
    url = static_files.serve(shot, f"overview-{shot.stat().st_size}.png")
    st.markdown(f"![The Isotropy page during a demo run.]({url})")
    st.caption("The Isotropy page during a demo run.")
