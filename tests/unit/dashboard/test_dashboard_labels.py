"""Provider text in the dashboard's charts: any name renders as an SVG chart (vl-convert, as the
static report draws it), and its labels are valid XML.

The nightly found these on spec-drawn data: a control character in a label made vl-convert abort
the whole process, and vega's cut of a long label by pixel width split an emoji, which vl-convert
could not read back.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pandas as pd
import vl_convert
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dashboard import views

NAMES = st.lists(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=90)
    | st.text(alphabet="😀👩‍👩‍👧x\x00\x12\t\n\\\"'<&>€", max_size=90),
    min_size=1,
    max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(names=NAMES)
@example(names=["x" * 26 + "😀" * 30 + " (1234)"])
@example(names=["\x12 name", "<script>alert(1)</script>", "\\u12"])
@example(names=["\x00" * 5, "", " "])
def test_any_provider_text_renders_as_an_svg_chart(names: list[str]) -> None:
    frame = pd.DataFrame({"person": names, "hours": [float(i) for i in range(len(names))]})
    chart = views.bar_chart(
        frame, title="t", x="person", x_title="Person", y="hours", y_title="Hours (h)",
        color="person", color_title="Person", horizontal=True,
    )  # fmt: skip
    svg = vl_convert.vegalite_to_svg(chart.properties(width=300).to_json())
    ET.fromstring(svg)  # well-formed: the report inlines it


def test_long_labels_keep_their_start_and_id() -> None:
    name = "Bartholomew Alexander Fitzgerald-Montgomery (123456789)"
    assert views.label(name) == name[:27] + "…" + " (123456789)"
    assert len(views.label(name)) == views.LABEL_CHARACTERS
    assert views.label("a\x12b") == "a\ufffdb"
