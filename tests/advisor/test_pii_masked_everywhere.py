"""What the G26 finding masks, no other finding prints in clear (02 masked the e-mail addresses in
its G26 warning, and the next finding, on the key's characters, printed one whole)."""

from __future__ import annotations

import workbench as wb


def test_no_finding_prints_an_email_the_g26_warning_masks():
    ds = wb.load_dataset("game_scores", size="tiny")
    emails = ds.frame.assign(player=ds.frame["player"].str.lower() + "@example.com")
    email_ds = wb.from_dataframe(
        emails, entity=["game", "player"], time="time", measures=["win", "kda"], name="by_email"
    )
    schema = wb.preset(email_ds, wb.pattern_names(email_ds)[0])
    advice = wb.advise(email_ds, schema)
    rules = [f.rule for f in advice]
    assert "personal_data" in rules and "key_characters" in rules, rules
    addresses = set(emails["player"])
    for f in advice:
        text = " ".join([f.title, *f.evidence, str(f.data.get("row_key", ""))])
        shown = [a for a in addresses if a in text]
        assert not shown, (f.rule, shown[:3], text[:400])
    chars = next(f for f in advice if f.rule == "key_characters")
    assert "•••@example.com" in " ".join(chars.evidence)  # masked as G26 masks it: b•••@…
