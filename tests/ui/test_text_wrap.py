"""Text wraps between words: JupyterLab's output ``pre`` and the designer's ``code`` broke
anywhere (02's 'seria|lized_protobuf', '93|1'; the Emulator tab's cbt line inside a table ID)."""

from __future__ import annotations


def test_the_setup_output_makes_printed_lines_wrap_between_words():
    # JupyterLab's output pre breaks anywhere: 02 showed 'seria|lized_protobuf' and '93|1'
    from workbench.session import SetupInfo

    page = SetupInfo(versions={"workbench": "0"}, emulator=None, problem="none")._repr_html_()
    rule = page[page.index("<style>") : page.index("</style>")]
    assert ".jp-OutputArea-output pre" in rule and "word-break:normal" in rule
    assert "overflow-wrap:anywhere" in rule  # a word longer than the line still breaks


def test_the_designers_code_wraps_inside_a_word_only_when_it_must():
    # the Emulator tab's cbt line broke "fx_prices-pair_micr|oseco-…" with room on the next line
    from workbench.ui._render import panel_box

    page = panel_box("<code>x</code>")
    rule = page[page.index(".wb-d code{") :].split("}", 1)[0]
    assert "break-all" not in rule and "overflow-wrap:anywhere" in rule, rule
