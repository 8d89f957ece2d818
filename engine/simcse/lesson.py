"""SimCSE's words beyond its lesson (:data:`engine.simcse.entry.LESSON`): the same-mask switch explained."""

from __future__ import annotations

#: the same-mask switch in plain words, with a readable reference (the views' own line cites an issue number)
SAME_MASK = (
    "Both views of a sentence share one dropout mask, the paper's “fixed 0.1”: the sentence is encoded "
    "once with dropout 0.1 and that one embedding is also its positive, so only the push between "
    "different sentences trains. The rate is fixed at 0.1, so the dropout slider is off while this is "
    "on. This is how the SimCSE authors said to reproduce the ablation, in their answer to GitHub issue 36."
)
SAME_MASK_LINK = "https://github.com/princeton-nlp/SimCSE/issues/36"
SAME_MASK_DROPOUT = 0.1  # the paper's "fixed 0.1"
