"""Jinja templates and CSS of the reports, kept in Python so an installed package always has them.

The notebook template extends nbconvert's own ``lab`` template and only removes
what reaches the network (require.js, the CDN widget renderer, MathJax,
Mermaid) and adds a header and footer saying when and with what it was made.
"""

from __future__ import annotations

WIDGET_CSS = r"""
:root { --wb-accent: #0072B2; --wb-muted: #5f6368; --wb-border: #d0d7de; }
.wb-report-head, .wb-report-foot { font-family: var(--jp-ui-font-family, system-ui, sans-serif);
  font-size: 13px; color: var(--wb-muted); border: 1px solid var(--wb-border); border-radius: 6px;
  background: #f6f8fa; padding: 8px 12px; margin: 8px 0 16px 0; }
.wb-report-foot { margin-top: 24px; }
.wb-report-head b, .wb-report-foot b { color: #24292f; }
.wb-report-head a { color: var(--wb-accent); }
.wb-report-head .wb-title { font-size: 15px; color: #24292f; font-weight: 600; margin-bottom: 2px; }
.wb-versions { display: flex; flex-wrap: wrap; gap: 4px 14px; margin-top: 4px; }
.wb-versions span code { background: none; color: #24292f; }
.wb-chip { display: inline-block; border: 1px solid var(--wb-accent); color: var(--wb-accent); border-radius: 10px;
  padding: 0 7px; margin: 1px 2px; font-size: 12px; font-weight: 600; }
.wb-banner-error { border-color: #D55E00; background: #fff4ec; color: #8a2d00; }
.wb-banner-error a { color: #8a2d00; }
.wb-widget { padding: 2px 0; }
.wb-w { box-sizing: border-box; font-family: var(--jp-ui-font-family, system-ui, sans-serif);
  font-size: var(--jp-widgets-font-size, 13px); color: var(--jp-widgets-color, #000); }
.wb-w-h-box > .wb-w-children, .wb-w-hbox > .wb-w-children { display: flex; flex-flow: row nowrap; align-items: center;
  gap: 4px 8px; }  /* like ipywidgets' HBox: one row */
.wb-w-v-box > .wb-w-children, .wb-w-vbox > .wb-w-children, .wb-w-box > .wb-w-children,
.wb-w-interactive > .wb-w-children { display: flex; flex-direction: column; gap: 4px; }
.wb-w-grid-box > .wb-w-children { display: contents; }
.wb-w-grid-box { display: grid; gap: 4px; }
.wb-w-box-info { border: 1px solid #0072B2; } .wb-w-box-success { border: 1px solid #009E73; }
.wb-w-box-warning { border: 1px solid #E69F00; } .wb-w-box-danger { border: 1px solid #D55E00; }
.wb-leaf { display: flex; align-items: center; gap: 6px; min-height: 28px; }
.wb-w-desc { min-width: 80px; max-width: 200px; text-align: right; padding-right: 6px; color: #333;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.wb-w-track { position: relative; display: inline-block; width: 160px; height: 4px; background: #cfd4da;
  border-radius: 2px; margin: 0 8px; }
.wb-w-fill { position: absolute; top: 0; height: 4px; background: var(--wb-accent); border-radius: 2px; }
.wb-w-knob { position: absolute; top: -5px; width: 14px; height: 14px; margin-left: -7px; border-radius: 50%;
  background: #fff; border: 2px solid var(--wb-accent); box-sizing: border-box; }
.wb-w-value, output.wb-w-value { font-variant-numeric: tabular-nums; font-weight: 600; min-width: 2em; }
.wb-w-select, .wb-w-input { display: inline-block; min-width: 120px; border: 1px solid #9aa4ae; border-radius: 2px;
  padding: 3px 8px; background: #fff; font-weight: 600; white-space: pre; }
.wb-leaf[style*='width'] > .wb-w-input, .wb-leaf[style*='width'] > .wb-w-select { min-width: 0; flex: 1 1 0; overflow: hidden; }  /* a widget laid out narrower keeps its width */
.wb-w-select::after { content: " ▾"; color: var(--wb-muted); font-weight: normal; float: right; padding-left: 8px; }
.wb-w-multiline { white-space: pre-wrap; min-height: 3em; min-width: 240px; }
.wb-w-placeholder { color: #9aa4ae; font-weight: normal; }
.wb-w-choices { display: inline-flex; flex-wrap: wrap; gap: 3px; }
.wb-w-choice { border: 1px solid #c4cbd2; border-radius: 2px; padding: 2px 8px; color: #555; background: #fff; }
.wb-w-choice.wb-w-on { background: var(--wb-accent); border-color: var(--wb-accent); color: #fff; font-weight: 600; }
.wb-w-check { font-size: 16px; color: var(--wb-accent); }
.wb-w-button { display: inline-block; border: 1px solid #c4cbd2; border-radius: 2px; padding: 3px 12px;
  background: #eef1f4; color: #24292f; }
.wb-w-button.wb-w-on, .wb-w-button.wb-w-primary { background: var(--wb-accent); color: #fff; }
.wb-w-button.wb-w-success { background: #009E73; color: #fff; } .wb-w-button.wb-w-danger { background: #D55E00; color: #fff; }
.wb-w-button.wb-w-warning { background: #E69F00; color: #fff; } .wb-w-button.wb-w-info { background: #56B4E9; color: #fff; }
.wb-w-progress { display: inline-block; position: relative; width: 200px; height: 14px; background: #e6e9ed;
  border-radius: 2px; overflow: hidden; }
.wb-w-progress > span { position: absolute; left: 0; top: 0; bottom: 0; }
.wb-w-note { color: var(--wb-muted); font-style: italic; }
.wb-w-missing { border-left: 3px solid #E69F00; padding-left: 6px; display: block !important; }
.wb-w-output { display: block; }
.wb-img { max-width: 100%; height: auto; }
.wb-html { overflow-x: auto; }
.wb-stream, .wb-text, .wb-error { margin: 2px 0; white-space: pre-wrap; font-family: var(--jp-code-font-family, monospace);
  font-size: var(--jp-code-font-size, 13px); }
.wb-stderr { background: #fdd; } .wb-error { background: #fdd; padding: 4px; }
.wb-tabs { display: block; }
.wb-tab-radio { position: absolute; opacity: 0; pointer-events: none; }
.wb-tab-labels { display: flex; border-bottom: 1px solid #c4cbd2; }
.wb-tab-label { padding: 4px 14px; border: 1px solid #c4cbd2; border-bottom: none; margin-right: -1px;
  background: #eef1f4; cursor: pointer; }
.wb-tab-panel { display: none; border: 1px solid #c4cbd2; border-top: none; padding: 6px; }
.wb-accordion { border: 1px solid #c4cbd2; margin-bottom: -1px; }
.wb-accordion > summary { padding: 4px 10px; background: #eef1f4; cursor: pointer; font-weight: 600; }
.wb-accordion-panel { padding: 6px; }
"""

NOTEBOOK_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{#- nbconvert's lab template, minus everything that would leave the file -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{% block jupyter_widgets %}
{%- if resources.workbench.live_bundle %}
<script src="{{ resources.workbench.live_bundle }}"></script>
{%- endif %}
{% endblock jupyter_widgets %}
{% block extra_css %}
<meta name="generator" content="workbench report {{ resources.workbench.versions.workbench }}">
<style type="text/css">{{ resources.workbench.css }}</style>
{% endblock extra_css %}
{%- block body_header -%}
{{ super() }}
{%- set wb = resources.workbench -%}
<header class="wb-report-head" id="wb-report-head">
  {%- if wb.index_href %}<div><a href="{{ wb.index_href }}">&larr; all reports</a></div>{% endif %}
  <div class="wb-title">{{ wb.title | e }}</div>
  <div>Report made <b>{{ wb.made }}</b> from <code>{{ wb.notebook | e }}</code>;
    {% if wb.executed %}executed top to bottom in {{ '%.1f' | format(wb.seconds) }} s against the {{ wb.emulator | e }}.
    {%- else %}outputs as saved in the notebook (not re-executed).{% endif %}
    Self-contained: this page needs no network; widgets show their last state.</div>
  <div class="wb-versions">{% for k, v in wb.versions.items() %}<span>{{ k | e }} <code>{{ v | e }}</code></span>{% endfor %}</div>
  {%- if wb.guidelines %}<div>Guidelines demonstrated: {% for g in wb.guidelines %}<span class="wb-chip">{{ g }}</span>{% endfor %}</div>{% endif %}
</header>
{%- if wb.errors %}
<div class="wb-report-head wb-banner-error" id="wb-report-errors"><b>{{ wb.errors | length }} cell(s) failed</b>
  {%- if wb.stopped %} — execution stopped at the first failure; later cells show no output{% endif %}:
  <ul>{% for err in wb.errors %}<li><a href="#{{ err.anchor }}">cell {{ err.cell }}</a>: {{ err.text | e }}</li>{% endfor %}</ul></div>
{%- endif %}
{%- endblock body_header -%}
{% block body_footer %}
<footer class="wb-report-foot" id="wb-report-foot">Made {{ resources.workbench.made }} by
  <code>workbench report</code> {{ resources.workbench.versions.workbench }}{% if resources.workbench.commit %}
  (commit <code>{{ resources.workbench.commit }}</code>){% endif %}; emulator: {{ resources.workbench.emulator | e }}.</footer>
{{ super() }}
{% endblock body_footer %}
"""

INDEX_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{{ title | e }}</title>
<style type="text/css">
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #24292f; max-width: 1100px;
  margin: 24px auto; padding: 0 16px; line-height: 1.45; }
h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 19px; margin: 0 0 4px 0; }
a { color: #0072B2; }
.meta { color: #5f6368; font-size: 13px; }
.nb { border: 1px solid #d0d7de; border-radius: 8px; padding: 14px 18px; margin: 16px 0; }
.nb.failed { border-color: #D55E00; }
.status { font-size: 12px; font-weight: 600; border-radius: 10px; padding: 1px 8px; margin-left: 8px; }
.ok { background: #e6f6f0; color: #00694c; } .bad { background: #fff4ec; color: #8a2d00; }
.finding { border-left: 3px solid #0072B2; padding: 2px 0 2px 10px; margin: 8px 0; overflow-x: auto; }
.finding .label { font-size: 12px; color: #5f6368; font-weight: 600; }
.finding img { max-width: 480px; height: auto; }
.finding table { border-collapse: collapse; font-size: 13px; }
.finding th, .finding td { border: 1px solid #d0d7de; padding: 2px 6px; text-align: right; }
.summary { font-size: 14px; }
.anchor-link { display: none; }
{{ css }}
</style></head>
<body>
<h1>{{ title | e }}</h1>
<p class="meta">{{ reports | length }} report(s); index made {{ made }}. Every page is self-contained and opens with no
network. Findings are the outputs the notebooks mark (cells tagged <code>finding</code> or <code>summary</code>, or
displays made with <code>workbench.report.finding</code>).</p>
{% for r in reports %}
<section class="nb{% if r.errors %} failed{% endif %}" id="{{ r.stem }}">
  <h2><a href="{{ r.href }}">{{ r.title | e }}</a>
    {% if r.errors %}<span class="status bad">{{ r.errors | length }} failed cell(s)</span>
    {% else %}<span class="status ok">ran clean</span>{% endif %}</h2>
  <div class="meta"><code>{{ r.notebook | e }}</code> · made {{ r.made }}{% if r.executed %} · executed in {{ '%.1f' | format(r.seconds) }} s{% endif %}</div>
  {% if r.guidelines %}<div>Guidelines demonstrated:
    {% for g in r.guidelines %}<span class="wb-chip" title="{{ guideline_titles.get(g, '') | e }}">{{ g }}</span>{% endfor %}</div>{% endif %}
  {% for e in r.errors %}<div class="finding" style="border-color:#D55E00">cell {{ e.cell }}: {{ e.text | e }}</div>{% endfor %}
  {% for f in r.findings %}<div class="finding">{% if f.label %}<div class="label">{{ f.label | e }}</div>{% endif %}{{ f.html }}</div>{% endfor %}
  {% if r.summary %}<div class="summary">{{ r.summary }}</div>{% endif %}
  {% if not r.findings and not r.summary %}<div class="meta">No marked findings in this notebook.</div>{% endif %}
</section>
{% endfor %}
</body></html>
"""
