"""Overview: what the lab shows, one picture, and a one-click demo."""

from __future__ import annotations

import streamlit as st

from engine import paths
from ui import navigation, runs

navigation.ensure_app()
st.title("embedlab — watch sentence embeddings take shape")
st.markdown(
    "This lab trains sentence embeddings **live** and shows what the training does to their geometry.\n\n"
    "- **SimCSE training**: contrastive learning with dropout as the only noise (Gao et al. 2021). Flip an "
    "ablation (no dropout, same mask, delete one word, …) and watch *alignment* and *uniformity* move as in "
    "the paper's Figure 2.\n"
    "- **Isotropy vs clusters**: turn embeddings into parameters of a linear classifier and watch the classes "
    "form clusters while the space becomes *anisotropic* (Mickus et al. 2024).\n"
    "- Every run writes its metrics to `cache/runs/` as it goes; downloads give CSV, zip and figures."
)
st.graphviz_chart(
    """
    digraph lab { rankdir=LR; node [shape=box, style="rounded,filled", fillcolor="#eef1fb", fontname="sans-serif"];
      data [label="sentences\\n(demo, rt-polarity, STS-B, wiki, your CSV)"];
      enc [label="encoder\\n(MiniLM, BERT, saved)"];
      emb [label="embeddings", fillcolor="#dbe4ff"];
      train [label="training step\\n(SimCSE loss / linear classifier)"];
      curves [label="curves: loss, IsoScore,\\nsilhouette, alignment, uniformity, STS"];
      umap [label="UMAP frames\\n(clusters moving)"];
      data -> enc -> emb -> train -> emb; emb -> curves; emb -> umap; }
    """
)
shot = paths.REPO_ROOT / "docs" / "screenshots" / "isotropy.png"
if shot.is_file():
    st.image(str(shot), caption="The Isotropy page during a demo run.")

st.subheader("Try it")
st.write("One click queues a small probe run on the built-in demo corpus (600 sentences, 6 topics): the "
         "silhouette climbs, IsoScore drops and the topics pull apart in the projection.")
if st.button("▶ Start the demo", type="primary", key="overview.demo"):
    with runs.guard("Demo: "):
        from engine.presets import presets

        preset = presets()["Demo: clusters form"]
        runs.submit_runs(preset.kind, preset.configs())
        st.switch_page("pages/isotropy.py")
