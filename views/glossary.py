"""Glossary: every measure the lab shows, with its formula, range, direction, what to watch and its source.
The texts live in the measure registry and the experiments' lessons (:func:`engine.lessons.texts.glossary`;
the HTML lecture replay reads the same); this page only draws them."""

from __future__ import annotations

import streamlit as st

from engine import experiments
from engine.lessons import texts as lessons
from ui.text import plain

st.title("Glossary")
st.caption(
    "The measures of the lab's charts: what each one says in plain words, its formula, its range, which "
    "way is better, what to watch for in each experiment, and the paper it comes from."
)

terms = lessons.glossary()
st.markdown(" · ".join(f"[{plain(term.label)}](#{term.name.replace('_', '-')})" for term in terms))
for term in terms:  # the texts are the lab's own, escaped all the same (an asterisk is not emphasis)
    st.subheader(plain(term.label), anchor=term.name.replace("_", "-"))
    st.markdown(plain(term.plain))
    st.latex(term.formula)
    cols = st.columns(2)
    unit = f" ({term.unit})" if term.unit else ""
    cols[0].markdown(f"**Range:** {plain(term.range + unit)}")
    cols[1].markdown(f"**Better:** {plain(term.better)}; higher means {plain(term.higher_means)}")
    for kind, note in term.watch.items():
        st.markdown(f"**Watch in {plain(experiments.title(kind))}:** {plain(note)}")
    st.caption(f"Source: {plain(term.source)}")
