"""Widgets rendered statically from the widget state nbclient saved in the notebook.

Stock nbconvert HTML keeps widget outputs as ``<script>`` tags and loads a
renderer from a CDN: offline, every widget area is blank. Here each
``application/vnd.jupyter.widget-view+json`` output becomes plain HTML built
from the saved model state, so the report shows every widget in its *last*
state with no JavaScript: an Output widget shows its figure and tables, a
slider its description, position and value, a box its children in layout.
Nothing is dropped silently: a widget without saved state or of a kind this
module does not know is shown as a labelled placeholder with its text form.
"""

from __future__ import annotations

import base64
import html
import itertools
import json
import re
from collections.abc import Callable
from typing import Any

from nbconvert.filters import ansi2html
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

VIEW_MIME = "application/vnd.jupyter.widget-view+json"
STATE_MIME = "application/vnd.jupyter.widget-state+json"
_REF = "IPY_MODEL_"
_ids = itertools.count()

# Layout traits copied to inline CSS (ipywidgets Layout → CSS property).
_LAYOUT_CSS = {
    "width": "width",
    "height": "height",
    "min_width": "min-width",
    "max_width": "max-width",
    "min_height": "min-height",
    "max_height": "max-height",
    "margin": "margin",
    "padding": "padding",
    "border": "border",
    "border_top": "border-top",
    "border_right": "border-right",
    "border_bottom": "border-bottom",
    "border_left": "border-left",
    "flex": "flex",
    "flex_flow": "flex-flow",
    "align_items": "align-items",
    "align_content": "align-content",
    "align_self": "align-self",
    "justify_content": "justify-content",
    "justify_items": "justify-items",
    "overflow": "overflow",
    "order": "order",
    "grid_area": "grid-area",
    "grid_gap": "gap",
    "grid_template_columns": "grid-template-columns",
    "grid_template_rows": "grid-template-rows",
    "grid_template_areas": "grid-template-areas",
    "grid_auto_flow": "grid-auto-flow",
    "grid_auto_columns": "grid-auto-columns",
    "grid_auto_rows": "grid-auto-rows",
    "grid_row": "grid-row",
    "grid_column": "grid-column",
    "display": "display",
    "visibility": "visibility",
}
_BAR_COLOURS = {
    "success": "#009E73",
    "info": "#0072B2",
    "warning": "#E69F00",
    "danger": "#D55E00",
    "": "#2196F3",
}
_SAFE_CSS = re.compile(r"[^\w\s#%.,()\-+/'\"]")


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def render_output_bundle(output: dict[str, Any], render_widget: Callable[[str, str], str]) -> str:
    """One notebook output (as stored by nbformat) as HTML, the way JupyterLab would show it."""
    kind = output.get("output_type")
    if kind == "stream":
        cls = " wb-stderr" if output.get("name") == "stderr" else ""
        return f"<pre class='wb-stream{cls}'>{ansi2html(''.join(output.get('text', '')))}</pre>"
    if kind == "error":
        tb = (
            "\n".join(output.get("traceback", []))
            or f"{output.get('ename')}: {output.get('evalue')}"
        )
        return f"<pre class='wb-error'>{ansi2html(tb)}</pre>"
    data = output.get("data", {})
    if VIEW_MIME in data:
        return render_widget(
            str(data[VIEW_MIME].get("model_id", "")), _text(data.get("text/plain"))
        )
    if "text/html" in data:
        return f"<div class='wb-html'>{_text(data['text/html'])}</div>"
    if "image/svg+xml" in data:
        svg = base64.b64encode(_text(data["image/svg+xml"]).encode()).decode()
        return f"<img class='wb-img' alt='figure' src='data:image/svg+xml;base64,{svg}'>"
    for mime in ("image/png", "image/jpeg", "image/gif", "image/webp"):
        if mime in data:
            raw = "".join(data[mime]) if isinstance(data[mime], list) else str(data[mime])
            meta = output.get("metadata", {}).get(mime, {}) or {}
            size = "".join(
                f" {k}='{int(meta[k])}'"
                for k in ("width", "height")
                if isinstance(meta.get(k), int | float)
            )
            return f"<img class='wb-img' alt='figure' src='data:{mime};base64,{raw.strip()}'{size}>"
    if "text/markdown" in data:
        return (
            f"<div class='wb-markdown'>{markdown2html_mistune(_text(data['text/markdown']))}</div>"
        )
    if "text/latex" in data:
        return f"<pre class='wb-text'>{_esc(_text(data['text/latex']))}</pre>"
    if "application/json" in data:
        return f"<pre class='wb-text'>{_esc(json.dumps(data['application/json'], indent=1))}</pre>"
    if "text/plain" in data:
        return f"<pre class='wb-text'>{ansi2html(_text(data['text/plain']))}</pre>"
    return f"<div class='wb-unknown'>output of type {_esc(', '.join(data))} is not shown in a static report</div>"


def _text(value: Any) -> str:
    if value is None:
        return ""
    return "".join(value) if isinstance(value, list) else str(value)


class StaticWidgets:
    """Renders widget models from a saved ``application/vnd.jupyter.widget-state+json`` document."""

    def __init__(self, state: dict[str, Any] | None):
        # a JSON round trip gives in-memory state (tuples) the exact shape of saved state (lists)
        self.models: dict[str, dict[str, Any]] = json.loads(
            json.dumps((state or {}).get("state", {}))
        )
        self._stack: list[str] = []

    # -- entry point ------------------------------------------------------------------
    def render(self, model_id: str, fallback_text: str = "") -> str:
        """HTML for one widget view; a labelled placeholder when its state was not saved."""
        model_id = model_id.removeprefix(_REF)
        entry = self.models.get(model_id)
        if entry is None:
            note = "widget not saved in the notebook (closed or never displayed)"
            text = f"<pre class='wb-text'>{_esc(fallback_text)}</pre>" if fallback_text else ""
            return (
                f"<div class='wb-w wb-w-missing'><span class='wb-w-note'>{note}</span>{text}</div>"
            )
        if model_id in self._stack:  # a box that contains itself: stop instead of recursing forever
            return "<span class='wb-w-note'>(cycle)</span>"
        self._stack.append(model_id)
        try:
            state = entry.get("state", {})
            name = str(entry.get("model_name") or state.get("_model_name", ""))
            state = {**state, "_model_name": name}
            layout = self._layout(state.get("layout"))
            if layout is None:  # display: none
                return ""
            body = self._dispatch(name, state, entry)
            classes = " ".join(_esc(c) for c in state.get("_dom_classes", []) or [])
            leaf = "" if name.removesuffix("Model") in _CONTAINERS else " wb-leaf"
            return f"<div class='wb-w wb-w-{_slug(name)}{leaf} {classes}' style='{layout}'>{body}</div>"
        finally:
            self._stack.pop()

    def _dispatch(self, name: str, state: dict[str, Any], entry: dict[str, Any]) -> str:
        base = name.removesuffix("Model")
        handler = _HANDLERS.get(base)
        if handler is None:
            for prefix, h in _PREFIX_HANDLERS:
                if base.startswith(prefix) or base.endswith(prefix):
                    handler = h
                    break
        if handler is None:
            return (
                f"<span class='wb-w-note'>{_esc(base)} ({_esc(state.get('_model_module', ''))}): "
                "an interactive widget the static report cannot draw</span>"
                + (
                    f" <span class='wb-w-value'>{_esc(state.get('value'))}</span>"
                    if "value" in state
                    else ""
                )
            )
        return handler(self, state, entry)

    # -- helpers ----------------------------------------------------------------------
    def _model_state(self, ref: Any) -> dict[str, Any]:
        if not isinstance(ref, str):
            return {}
        return self.models.get(ref.removeprefix(_REF), {}).get("state", {})

    def _layout(self, ref: Any) -> str | None:
        css = []
        for trait, value in self._model_state(ref).items():
            prop = _LAYOUT_CSS.get(trait)
            if prop is None or value in (None, "", "None"):
                continue
            value = _SAFE_CSS.sub("", str(value))
            if (prop, value.strip()) in (("display", "none"), ("visibility", "hidden")):
                return None  # hidden (e.g. a finished tqdm bar with leave=False): a report shows nothing
            css.append(f"{prop}:{value}")
        return ";".join(css)

    def _children(self, state: dict[str, Any]) -> list[str]:
        return [self.render(str(c)) for c in state.get("children", []) or []]

    def _description(self, state: dict[str, Any]) -> str:
        desc = state.get("description") or ""
        if not desc:
            return ""
        text = desc if state.get("description_allow_html") else _esc(desc)
        width = _SAFE_CSS.sub(
            "", str(self._model_state(state.get("style")).get("description_width") or "")
        )
        style = f" style='width:{width};min-width:{width}'" if width else ""
        return f"<label class='wb-w-desc' title='{_esc(state.get('tooltip') or desc)}'{style}>{text}</label>"


def _slug(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name.removesuffix("Model")).lower()


def _fmt(value: Any, fmt: str | None) -> str:
    if fmt and isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return format(value, fmt.lstrip("~").replace(",d", ",").rstrip("s") or "")
        except (ValueError, TypeError):
            pass
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _pct(value: float, lo: float, hi: float) -> float:
    if hi == lo:
        return 0.0
    return max(0.0, min(100.0, 100.0 * (value - lo) / (hi - lo)))


def _slider(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    value = s.get("value")
    labels = s.get("_options_labels")
    if labels is not None:  # SelectionSlider / SelectionRangeSlider
        index = s.get("index")
        lo_hi: tuple[float, float] = (0, max(len(labels) - 1, 1))
        if isinstance(index, list):
            positions = [float(i) for i in index]
            readout = " – ".join(_esc(labels[i]) for i in index if 0 <= i < len(labels))
        else:
            positions = [float(index or 0)]
            readout = (
                _esc(labels[index]) if isinstance(index, int) and 0 <= index < len(labels) else ""
            )
    else:
        lo_hi = (float(s.get("min", 0)), float(s.get("max", 100)))
        positions = [float(v) for v in value] if isinstance(value, list) else [float(value or 0)]
        log_base: float | None = s.get("base") if "Log" in str(s.get("_model_name", "")) else None
        if log_base:
            positions = [float(log_base) ** p for p in positions]
            lo_hi = (float(log_base) ** lo_hi[0], float(log_base) ** lo_hi[1])
            vals = [
                float(log_base) ** float(v or 0)
                for v in (value if isinstance(value, list) else [value])
            ]
        else:
            vals = value if isinstance(value, list) else [value]
        readout = " – ".join(_esc(_fmt(v, s.get("readout_format"))) for v in vals)
    pcts = [_pct(p, *lo_hi) for p in positions]
    left, right = (min(pcts), max(pcts)) if len(pcts) > 1 else (0.0, pcts[0])
    knobs = "".join(f"<span class='wb-w-knob' style='left:{p:.1f}%'></span>" for p in pcts)
    vertical = " wb-w-vertical" if s.get("orientation") == "vertical" else ""
    out = f"<output class='wb-w-value'>{readout}</output>" if s.get("readout", True) else ""
    return (
        f"{w._description(s)}<span class='wb-w-track{vertical}' role='slider' aria-valuetext='{readout}'>"
        f"<span class='wb-w-fill' style='left:{left:.1f}%;width:{right - left:.1f}%'></span>{knobs}</span>{out}"
    )


def _options(s: dict[str, Any]) -> tuple[list[str], set[int]]:
    labels = [str(x) for x in s.get("_options_labels", []) or []]
    index = s.get("index")
    chosen = (
        set(index) if isinstance(index, list) else ({index} if isinstance(index, int) else set())
    )
    return labels, chosen


def _dropdown(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    labels, chosen = _options(s)
    value = ", ".join(labels[i] for i in sorted(chosen) if 0 <= i < len(labels)) or "—"
    return f"{w._description(s)}<span class='wb-w-select' title='{len(labels)} options'>{_esc(value)}</span>"


def _choices(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    labels, chosen = _options(s)
    items = "".join(
        f"<span class='wb-w-choice{' wb-w-on' if i in chosen else ''}'>{_esc(label)}</span>"
        for i, label in enumerate(labels)
    )
    return f"{w._description(s)}<span class='wb-w-choices'>{items}</span>"


def _checkbox(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    mark = "☑" if s.get("value") else "☐"
    desc = s.get("description") or ""
    text = desc if s.get("description_allow_html") else _esc(desc)
    return f"<span class='wb-w-check' aria-checked='{str(bool(s.get('value'))).lower()}'>{mark}</span> {text}"


def _toggle(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    on = " wb-w-on" if s.get("value") else ""
    return f"<span class='wb-w-button{on}'>{_esc(s.get('description') or s.get('value'))}</span>"


def _text_input(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    value = s.get("value")
    if "Password" in str(s.get("_model_name", "")):
        value = "•" * 8 if value else ""
    elif isinstance(value, list):  # TagsInput
        value = ", ".join(map(str, value))
    elif isinstance(value, dict):  # DatePicker / TimePicker
        value = "-".join(
            str(value.get(k, "")) for k in ("year", "month", "date") if k in value
        ) or json.dumps(value)
    shown = _esc(_fmt(value, None) if value is not None else "")
    placeholder = s.get("placeholder") or ""
    empty = not shown and placeholder.strip("\u200b")
    cls = "wb-w-input wb-w-multiline" if "Textarea" in str(s.get("_model_name")) else "wb-w-input"
    inner = f"<span class='wb-w-placeholder'>{_esc(placeholder)}</span>" if empty else shown
    return f"{w._description(s)}<span class='{cls}'>{inner}</span>"


def _label(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    return f"{w._description(s)}<span class='wb-w-label'>{_esc(s.get('value'))}</span>"


def _html(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    return f"{w._description(s)}<div class='wb-w-htmlvalue'>{s.get('value') or ''}</div>"


def _button(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    style = f" wb-w-{_esc(s.get('button_style'))}" if s.get("button_style") else ""
    return f"<span class='wb-w-button{style}'>{_esc(s.get('description') or s.get('tooltip') or 'button')}</span>"


def _progress(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    lo, hi, value = float(s.get("min", 0)), float(s.get("max", 100)), float(s.get("value") or 0)
    colour = _BAR_COLOURS.get(str(s.get("bar_style") or ""), _BAR_COLOURS[""])
    bar = _SAFE_CSS.sub("", str(w._model_state(s.get("style")).get("bar_color") or "")) or colour
    pct = _pct(value, lo, hi)
    return (
        f"{w._description(s)}<span class='wb-w-progress' role='progressbar' aria-valuenow='{value:g}' "
        f"aria-valuemax='{hi:g}'><span style='width:{pct:.1f}%;background:{bar}'></span></span>"
    )


def _valid(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    ok = bool(s.get("value"))
    mark = "<span style='color:#009E73'>✔</span>" if ok else "<span style='color:#D55E00'>✘</span>"
    return f"{w._description(s)}{mark} {_esc(s.get('readout') if not ok else '')}"


def _box(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    style = f" wb-w-box-{_esc(s.get('box_style'))}" if s.get("box_style") else ""
    return f"<div class='wb-w-children{style}'>{''.join(w._children(s))}</div>"


def _titles(s: dict[str, Any], n: int) -> list[str]:
    titles = s.get("titles")
    if titles is None:  # ipywidgets 7 stored {"0": "title"}
        old = s.get("_titles") or {}
        titles = [old.get(str(i), "") for i in range(n)]
    titles = list(titles) + [""] * n
    return [str(t) or f"Tab {i + 1}" for i, t in enumerate(titles[:n])]


def _tab(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    """A CSS-only tab strip (radio buttons + labels): every panel is in the page, one shows at a time."""
    children = w._children(s)
    titles = _titles(s, len(children))
    selected = s.get("selected_index")
    selected = selected if isinstance(selected, int) and 0 <= selected < len(children) else 0
    group = f"wbtab{next(_ids)}"
    radios, labels, panels, rules = [], [], [], []
    for i, (title, child) in enumerate(zip(titles, children, strict=False)):
        tid = f"{group}-{i}"
        checked = " checked" if i == selected else ""
        radios.append(
            f"<input type='radio' class='wb-tab-radio' name='{group}' id='{tid}'{checked}>"
        )
        labels.append(f"<label for='{tid}' class='wb-tab-label' id='{tid}-l'>{_esc(title)}</label>")
        panels.append(f"<div class='wb-tab-panel' id='{tid}-p'>{child}</div>")
        rules.append(
            f"#{tid}:checked~.wb-tab-panels #{tid}-p{{display:block}}"
            f"#{tid}:checked~.wb-tab-labels #{tid}-l{{background:var(--jp-layout-color0,#fff);"
            "border-bottom-color:transparent;font-weight:600}"
        )
    return (
        f"<style>{''.join(rules)}</style><div class='wb-tabs'>{''.join(radios)}"
        f"<div class='wb-tab-labels'>{''.join(labels)}</div>"
        f"<div class='wb-tab-panels'>{''.join(panels)}</div></div>"
    )


def _accordion(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    children = w._children(s)
    titles = _titles(s, len(children))
    selected = s.get("selected_index")
    return "".join(
        f"<details class='wb-accordion'{' open' if i == selected else ''}><summary>{_esc(t)}</summary>"
        f"<div class='wb-accordion-panel'>{c}</div></details>"
        for i, (t, c) in enumerate(zip(titles, children, strict=False))
    )


def _stack(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    children = w._children(s)
    selected = s.get("selected_index")
    return children[selected] if isinstance(selected, int) and 0 <= selected < len(children) else ""


def _output(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    outputs = s.get("outputs", []) or []
    return "".join(render_output_bundle(o, w.render) for o in outputs)


def _image(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    fmt = _SAFE_CSS.sub("", str(s.get("format") or "png"))
    data = next(
        (b.get("data", "") for b in e.get("buffers", []) or [] if b.get("path") == ["value"]), ""
    )
    if not data:
        return "<span class='wb-w-note'>image widget without saved pixels</span>"
    mime = "image/svg+xml" if fmt == "svg+xml" else f"image/{fmt}"
    size = "".join(f" {k}='{_esc(s[k])}'" for k in ("width", "height") if s.get(k))
    return f"<img class='wb-img' alt='image' src='data:{mime};base64,{data}'{size}>"


def _play(w: StaticWidgets, s: dict[str, Any], e: dict[str, Any]) -> str:
    return f"{w._description(s)}<span class='wb-w-button'>▶</span> <span class='wb-w-value'>{_esc(s.get('value'))}</span>"


_CONTAINERS = frozenset({"Box", "HBox", "VBox", "GridBox", "Tab", "Accordion", "Stack", "Output"})
_Handler = Callable[[StaticWidgets, dict[str, Any], dict[str, Any]], str]
_HANDLERS: dict[str, _Handler] = {
    "Dropdown": _dropdown,
    "Combobox": _text_input,
    "RadioButtons": _choices,
    "ToggleButtons": _choices,
    "Select": _choices,
    "SelectMultiple": _choices,
    "Checkbox": _checkbox,
    "ToggleButton": _toggle,
    "Valid": _valid,
    "Label": _label,
    "HTML": _html,
    "HTMLMath": _html,
    "Button": _button,
    "IntProgress": _progress,
    "FloatProgress": _progress,
    "Box": _box,
    "HBox": _box,
    "VBox": _box,
    "GridBox": _box,
    "Tab": _tab,
    "Accordion": _accordion,
    "Stack": _stack,
    "Output": _output,
    "Image": _image,
    "Play": _play,
}
_PREFIX_HANDLERS: tuple[tuple[str, _Handler], ...] = (
    ("Slider", _slider),
    ("Text", _text_input),
    ("Textarea", _text_input),
    ("Password", _text_input),
    ("Picker", _text_input),
    ("TagsInput", _text_input),
    ("Tags", _text_input),
)


class StaticWidgetsPreprocessor(Preprocessor):
    """Replaces every widget-view output by static HTML drawn from the notebook's saved widget state."""

    keep_state = Bool(False, help="keep the widget state in the notebook metadata (live mode)").tag(
        config=True
    )

    def preprocess(self, nb, resources):
        state = nb.metadata.get("widgets", {}).get(STATE_MIME)
        widgets = StaticWidgets(state)
        count = 0
        for cell in nb.cells:
            kept = []
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if VIEW_MIME not in data:
                    kept.append(output)
                    continue
                fallback = _text(data.get("text/plain"))
                static = widgets.render(str(data[VIEW_MIME].get("model_id", "")), fallback)
                count += 1
                if not static.strip():  # a hidden widget: no empty output area in the page
                    continue
                if self.keep_state:
                    output.setdefault("metadata", {})["workbench_static_html"] = static
                else:
                    output["data"] = {
                        "text/html": f"<div class='wb-widget'>{static}</div>",
                        "text/plain": fallback,
                    }
                kept.append(output)
            if "outputs" in cell:
                cell["outputs"] = kept
        if not self.keep_state:
            nb.metadata.pop("widgets", None)
        resources.setdefault("workbench", {})["widget_views"] = count
        return nb, resources
