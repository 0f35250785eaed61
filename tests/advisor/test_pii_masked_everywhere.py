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
        text = " ".join([f.title, *f.evidence, f.fix, str(f.data.get("row_key", ""))])
        shown = [a for a in addresses if a in text]
        assert not shown, (f.rule, shown[:3], text[:400])
    chars = next(f for f in advice if f.rule == "key_characters")
    assert "•••@example.com" in " ".join(chars.evidence)  # masked as G26 masks it: b•••@…
    # nor mapped to the key's set in the fix, where '_example_com' would escape the mask
    assert "_example_com" not in chars.fix and "@" not in chars.fix


def test_the_key_characters_fix_maps_the_datas_own_value():
    ds = wb.load_dataset("fx_prices", size="tiny")
    advice = wb.advise(ds, wb.preset(ds, "pair_microseconds"))
    chars = next(f for f in advice if f.rule == "key_characters")
    first = str(ds.frame["pair"].unique()[0])  # e.g. 'EUR/USD': its '/' is outside the set
    a, b = first.split("/")
    assert f"'{first}' → '{a}_{b}'" in chars.fix
