"""embedlab: ``streamlit run app.py``. Navigation only; each page lives in pages/."""

from __future__ import annotations

import streamlit as st

from pages import ui

st.set_page_config(page_title="embedlab", page_icon="🧭", layout="wide")

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/home:", default=True),
    st.Page("pages/simcse.py", title="SimCSE training", icon=":material/model_training:"),
    st.Page("pages/isotropy.py", title="Isotropy vs clusters", icon=":material/scatter_plot:"),
    st.Page("pages/compare.py", title="Compare runs", icon=":material/compare_arrows:"),
    st.Page("pages/data.py", title="Data & encoders", icon=":material/dataset:"),
]

page = st.navigation(PAGES)
ui.registry()  # starts the job worker and the UMAP worker (which pre-warms umap-learn's JIT) once
page.run()
