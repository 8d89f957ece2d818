"""embedlab: ``streamlit run app.py``. Navigation only: the pages live in views/, their helpers in ui/
(ui/navigation.py lists the pages)."""

from __future__ import annotations

from ui import navigation

navigation.main()
