"""The Glossary page (in the navigation, linked from every experiment page) draws engine.lessons.texts' terms:
each measure with rendered math, range, direction, what to watch and its source, all from the measure registry
(what to watch: from the experiments' lessons). The Overview defines alignment, uniformity and anisotropy
before it uses them."""

from __future__ import annotations

from apphelpers import elements_in_order, errors

from engine.core import measures
from engine.lessons import texts as lessons
from engine.simcse.lesson import SAME_MASK

MEASURES = {
    "isoscore",
    "isoscore_star",
    "silhouette",
    "alignment",
    "uniformity",
    "sts_spearman",
    "loss",
    "accuracy",
    "micro_f1",
    "rankme",
    "average_cosine",
    "partition_isotropy",
    "spectrum",
}


def test_every_measure_has_formula_range_direction_watch_and_source_from_the_registry() -> None:
    terms = {term.name: term for term in lessons.glossary()}
    assert set(terms) >= MEASURES
    for name, term in terms.items():
        assert term.formula and term.plain and term.watch and term.source and term.range and term.better, name
        assert set(term.watch) <= set(lessons.LESSONS), name
        measure = measures.get(name)
        assert term.range == measures.range_text(*measure.range), name
        assert term.better.lower().startswith(measure.better), name
        assert term.label == measure.label, name
    assert "SimCSE#" not in SAME_MASK and "issue 36" in SAME_MASK


def test_the_glossary_page_draws_each_term_with_rendered_math(app) -> None:
    app.switch_page("views/glossary.py").run()
    assert not app.exception and not errors(app)
    assert app.title[0].value == "Glossary"
    terms = lessons.glossary()
    assert [h.value for h in app.subheader] == [term.label.replace("*", "\\*") for term in terms]
    assert [latex.value.strip("$\n") for latex in app.get("latex")] == [term.formula for term in terms]
    text = " ".join(str(m.value) for m in app.markdown) + " ".join(c.value for c in app.caption)
    assert "Rudman" in text and "Wang & Isola" in text and "Mu & Viswanath" in text and "Garrido" in text


def test_each_experiment_page_links_to_the_glossary(app) -> None:
    for page in ("views/simcse.py", "views/isotropy.py", "views/compare.py", "views/overview.py"):
        app.switch_page(page).run()
        links = [link.proto.page for link in app.get("page_link")]
        assert "glossary" in links, (page, links)


def test_the_overview_defines_the_words_before_it_uses_them(app) -> None:
    texts = [str(getattr(e, "value", "")) for e in elements_in_order(app)]
    defined = next(i for i, t in enumerate(texts) if "**Anisotropy**:" in t and "**Alignment**:" in t)
    used = next(i for i, t in enumerate(texts) if "*alignment* and *uniformity*" in t)
    assert defined < used
    for word, definition in lessons.DEFINITIONS.items():
        assert f"**{word.capitalize()}**: {definition}" in texts[defined]
