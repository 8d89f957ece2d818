"""Data & encoders: preview built-in and folder data sets, upload a CSV/TSV and pick its columns (or an .npz
of embeddings and labels), list / rename / delete the encoders saved in cache/encoders, and delete the run
folders that cannot be read as runs (after a confirmation)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.core import paths
from engine.data import uploads
from ui.runs import guard
from ui.text import plain

PREVIEW_ROWS = 50

st.title("Data & encoders")


def preview(name: str, **kwargs) -> None:
    """The size, the loader's warnings and the first rows of a data set (any of engine.data's types)."""
    from engine.data import load_dataset

    dataset = load_dataset(name, **kwargs)
    size = len(dataset)
    st.caption(f"{type(dataset).__name__}: {size:,} items · showing the first {min(size, PREVIEW_ROWS)}")
    for warning in dataset.warnings:
        st.warning(plain(warning))
    st.dataframe(dataset.to_frame().head(PREVIEW_ROWS), hide_index=True)


def data_guide() -> None:
    """Get the data: for each real set, where it comes from, the files and folder layout expected, whether
    this machine has it, and a download of its Hugging Face hub copy (offline: says so)."""
    from engine.data import guide
    from engine.lessons.presets import default_data_dir

    st.write(
        "The demo corpus is built in. The real sets are read from a **data folder** (the “Data folder” field "
        "of the Isotropy and SimCSE pages), laid out as below; a set missing there is read from a copy "
        "downloaded from the Hugging Face hub, when there is one."
    )
    folder = st.text_input("Data folder to look in", value=default_data_dir() or "", key="guide.dir")
    offline = guide.offline()
    if offline:
        st.info(
            "This lab works offline (no network to the Hugging Face hub), so nothing can be downloaded here: "
            "copy the files into the data folder as shown."
        )
    for name, entry in guide.GUIDES.items():
        state = guide.status(name, folder or None)
        icon = ":material/check_circle:" if not state.startswith("missing") else ":material/circle:"
        with st.expander(entry.title, icon=icon):
            st.markdown(
                f"**Status:** {plain(state)}  \n**Used by:** {plain(entry.used_for)}  \n"
                f"**Source:** {plain(entry.source)}  \n**Cite:** {plain(entry.citation)}  \n"
                f"**License:** {plain(entry.license)}"
            )
            st.code(
                "<data folder>/\n" + "\n".join("  " + line for line in entry.layout.splitlines()),
                language=None,
            )
            if entry.notes:
                st.caption(plain(entry.notes))
            hub = f"hf://datasets/{entry.hub_repo} ({entry.hub_size})"
            if st.button(
                f"Download {name} from the Hugging Face hub",
                icon=":material/download:",
                key=f"guide.download.{name}",
                disabled=offline,
                help=f"Fetches {hub} into the lab's cache.",
            ):
                with guard(f"{name}: "), st.spinner(f"Downloading {name} …"):
                    guide.download_set(name)
                    st.success(f"{name} is downloaded: it now loads without a data folder.")
            st.caption(f"Hub copy: {plain(hub)}" + (" — not available offline." if offline else ""))


def preview_table(path, chosen: str) -> None:
    """An uploaded table: pick its text and label columns (remembered for the Isotropy page), then preview."""
    from engine.data import guess_columns, read_table

    frame = read_table(path)
    guess = guess_columns(frame)
    columns = [str(c) for c in frame.columns]
    cols = st.columns(2)
    text = cols[0].selectbox(
        "Text column",
        columns,
        index=columns.index(guess.text) if guess.text in columns else 0,
        key=f"data.text.{chosen}",
    )
    labels = ["(none)", *columns]
    label = cols[1].selectbox(
        "Label column",
        labels,
        index=labels.index(guess.label) if guess.label in labels else 0,
        key=f"data.label.{chosen}",
    )
    unlabelled = label == "(none)"  # the user's word: never a column guessed from the file later
    st.session_state[f"upload.cols.{chosen}"] = {
        "text": text,
        "label": None if unlabelled else label,
        "unlabelled": unlabelled,
    }
    preview(str(path), text_col=text, label_col=None if label == "(none)" else label)
    if label == "(none)":  # the probe needs a class per sentence: say so here, not after ▶ Start
        st.warning(
            plain(
                f"{chosen} has no label column: the Isotropy page needs a class per sentence. Pick its "
                "“Label column” above to train on it there."
            ),
            icon=":material/label_off:",
        )
    else:
        st.success(plain(f"Pick “upload: {chosen}” as Data on the Isotropy page to train on it."))


def preview_vectors(path, chosen: str) -> None:
    """An uploaded .npz of embeddings and labels: its size, classes, notes and first rows (no columns to
    pick)."""
    from engine.data import load_npz

    dataset = load_npz(path, name=chosen)
    st.session_state[f"upload.cols.{chosen}"] = {"text": None, "label": None}
    st.caption(
        plain(f"Embeddings: {dataset.describe()} · showing the first {min(len(dataset), PREVIEW_ROWS)}")
    )
    for warning in dataset.warnings:
        st.warning(plain(warning))
    st.dataframe(dataset.take(range(min(len(dataset), PREVIEW_ROWS))).to_frame(), hide_index=True)
    st.success(
        plain(
            f"Pick “upload: {chosen}” as Data on the Isotropy page to train on these embeddings "
            "(no encoder runs)."
        )
    )


def damaged_runs() -> None:
    """Folders under cache/runs that cannot be read as runs, each with its reason and a confirmed delete."""
    from engine import runlog

    found = runlog.damaged_runs(paths.runs_dir())
    if not found:
        return
    with st.expander(f"{len(found)} damaged run folder(s) in cache/runs", icon=":material/warning:"):
        for item in found:
            cols = st.columns([3, 1, 1])
            cols[0].markdown(f"**{plain(item.name)}**: {plain(item.reason)}")
            sure = cols[1].checkbox("Really delete", key=f"damaged.confirm.{item.name}")
            if cols[2].button("Delete", key=f"damaged.delete.{item.name}", disabled=not sure):
                with guard(f"{item.name}: "):
                    runlog.delete_damaged(paths.runs_dir(), item.path)
                    st.rerun()


data_tab, guide_tab, upload_tab, encoder_tab = st.tabs(["Data sets", "Get the data", "Upload", "Encoders"])

with guide_tab, guard():
    data_guide()

with data_tab, guard():
    from engine.data import describe
    from engine.lessons.presets import default_data_dir

    st.dataframe(pd.DataFrame(describe()), hide_index=True)
    cols = st.columns([1, 2, 1])
    name = cols[0].selectbox("Preview", [row["name"] for row in describe()], key="data.preview")
    data_dir = cols[1].text_input("Data folder", value=default_data_dir() or "", key="data.dir")
    label_col = cols[2].text_input("Label column (optional)", key="data.label")
    if st.button("Show preview", key="data.show"):
        with guard(f"{name}: "):
            preview(name, data_dir=data_dir or None, label_col=label_col or None)
    damaged_runs()

with upload_tab, guard():
    st.write(
        "Upload a CSV, TSV, JSONL or TXT file of labelled sentences (one sentence and its label per row), "
        "or your own embeddings: an NPZ file saved with `np.savez(FILE, embeddings=E, labels=y)` (E: one row "
        "of numbers per item; y: one class per row, or one 0/1 column per label for multi-label data; "
        "optional `texts` and `label_names`). It is kept in `cache/uploads/` and offered as data on the "
        "Isotropy page; the probe then starts from these embeddings, with no encoder."
    )
    upload = st.file_uploader(
        "Data file",
        type=["csv", "tsv", "txt", "jsonl", "npz"],
        key=f"data.upload.{st.session_state.get('data.upload.round', 0)}",
    )
    if upload is not None and upload.file_id != st.session_state.get("data.upload.taken"):
        st.session_state["data.upload.taken"] = (
            upload.file_id
        )  # each upload is stored once, not on every rerun
        with guard(f"{upload.name}: "):
            stored_as = uploads.store(upload.name, upload.getvalue())
            st.session_state["data.file"] = stored_as.name  # the new file is the one shown
    stored = uploads.listing()
    if stored:
        if st.session_state.get("data.file") not in stored:
            st.session_state["data.file"] = stored[0]
        chosen = st.selectbox("Uploaded file", stored, key="data.file")
        path = paths.inside(paths.uploads_dir(), chosen, what="file name")
        with guard(f"{chosen}: "):
            (preview_vectors if uploads.is_vectors(chosen) else preview_table)(path, chosen)
        if st.button("Delete this upload", key=f"data.delete.{chosen}"):
            uploads.delete(chosen)
            st.session_state.pop("data.file", None)
            # a new uploader widget: the old one still holds the file and would store it again
            st.session_state["data.upload.round"] = st.session_state.get("data.upload.round", 0) + 1
            st.rerun()

with encoder_tab, guard():
    from engine.encoders import delete_encoder, list_encoders, rename_encoder

    infos = list_encoders()
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "name": i.name,
                    "base model": i.base_model,
                    "pooling": i.pooling,
                    "MLP": i.mlp,
                    "created": i.created,
                    "bundled": i.bundled,
                }
                for i in infos
            ]
        ),
        hide_index=True,
    )
    saved = [i.name for i in infos if not i.bundled]
    if not saved:
        st.caption("No saved encoders yet: SimCSE runs save theirs when given a name (save_encoder).")
    else:
        chosen = st.selectbox("Encoder", saved, key="enc.chosen")
        cols = st.columns([2, 1, 1])
        new = cols[0].text_input("New name", key="enc.new")
        if cols[1].button("Rename", key="enc.rename"):
            with guard("Rename: "):
                rename_encoder(chosen, new)
                st.rerun()
        confirm = cols[2].checkbox("Really delete", key="enc.confirm")
        if cols[2].button("Delete", key="enc.delete", disabled=not confirm):
            with guard("Delete: "):
                delete_encoder(chosen)
                st.rerun()
