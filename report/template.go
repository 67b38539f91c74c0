package report

import (
	"html/template"
	"sync"
)

// pageTmpl is report.html: per scenario the answer first (the verdict and
// the headline figures), then the charts, the explanation and the
// what-ifs, the full summary (collapsed) and the scenario file; a
// comparison shows its charts before its tables. It must stay self-contained (no URL but data:
// images and #fragments, no script) and well-formed XML (void elements
// self-closed): the tests parse it with encoding/xml and load it in a
// browser under a Content-Security-Policy that forbids every fetch. It is
// parsed on first use, not at start-up: every poolsim process links this
// package, and most never write a report (issue 19).
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.Must(template.New("report").Parse(sectionTmpl)).Parse(pageHTML))
})

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="generator" content="poolsim" />
<title>{{.Title}}</title>
<style>
{{template "css"}}
body { margin: 0 auto; max-width: 1280px; padding: 1rem 2rem 4rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.4rem; margin: 2rem 0 .5rem; padding-top: .5rem; border-top: 3px solid var(--accent); }
nav ol { margin: 0; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; }
figure { margin: .5rem 0 1.5rem; }
figure img { display: block; width: 100%; max-width: 960px; height: auto; border: 1px solid var(--rule); }
@media print { h2 { break-before: page; } }
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<nav>
<ol>
{{- if .Compare}}
<li><a href="#comparison">Comparison of {{len .Scenarios}} scenarios</a></li>
{{- end}}
{{- range .Scenarios}}
<li><a href="#{{.ID}}">{{.Name}}</a></li>
{{- end}}
</ol>
</nav>
</header>
{{- if .Compare}}
<section id="comparison">
<h2>Comparison</h2>
<ul class="verdicts">
{{- range .Scenarios}}{{if .Answer}}
<li class="verdict {{.Answer.Tone}}"><a href="#{{.ID}}">{{.Name}}</a>: {{.Answer.Verdict}}</li>
{{- end}}{{end}}
</ul>
{{- range .Comparisons}}
<figure id="{{.ID}}">
<img src="{{.Src}}" width="{{.Width}}" height="{{.Height}}" alt="{{.Caption}}" />
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
{{- if .Headlines}}
<h3>Headline figures</h3>
<table class="compare">
<thead><tr><th></th>{{range .Names}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Headlines}}
<tr><th>{{.Key}}</th>{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- end}}
<details class="summary">
<summary>Every summary figure, side by side</summary>
<table class="compare">
<thead><tr><th>summary.json</th>{{range .Names}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Table}}
<tr><th><code>{{.Key}}</code></th>{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</details>
</section>
{{- end}}
{{- range .Scenarios}}
<section id="{{.ID}}">
<h2>{{.Name}}</h2>
{{- template "answer" .}}
{{- range .Images}}
<figure id="{{.ID}}">
<img src="{{.Src}}" width="{{.Width}}" height="{{.Height}}" alt="{{.Caption}}" />
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
{{- template "explanation" .}}
{{- template "summary" .}}
<details class="scenario">
<summary>Scenario file</summary>
<pre><code>{{.YAML}}</code></pre>
</details>
</section>
{{- end}}
</body>
</html>
`

// sectionTmpl holds the parts of a scenario's section that poolsim serve
// shows too (see SectionParts), and their style sheet.
const sectionTmpl = `{{define "css"}}:root { --ink: #1b1b1b; --muted: #5a5a5a; --rule: #d9d9d9; --band: #f5f5f5; --accent: #0072b2;
  --ok: #1a7f37; --warn: #b35900; --bad: #c62828; }
* { box-sizing: border-box; }
body { color: var(--ink); background: #fff; font: 16px/1.5 "Liberation Sans", "DejaVu Sans", Arial, Helvetica, sans-serif; }
h3 { font-size: 1.1rem; margin: 1.25rem 0 .5rem; color: var(--muted); }
a { color: var(--accent); }
table { border-collapse: collapse; margin: .5rem 0; font-size: .95rem; }
th, td { border-bottom: 1px solid var(--rule); padding: .2rem .8rem .2rem 0; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
thead th { border-bottom: 2px solid var(--ink); }
tbody tr:nth-child(even) { background: var(--band); }
figcaption { color: var(--muted); font-size: .95rem; margin-top: .3rem; }
pre { background: var(--band); border: 1px solid var(--rule); padding: .75rem 1rem; overflow-x: auto;
  font: 14px/1.45 "Liberation Mono", "DejaVu Sans Mono", monospace; white-space: pre; }
pre.explain { white-space: pre-wrap; }
details { margin: 1rem 0; }
details > summary { cursor: pointer; color: var(--accent); font-weight: bold; }
.verdict { border-left: 6px solid var(--accent); background: var(--band); padding: .5rem .9rem; margin: .5rem 0; font-size: 1.1rem; }
.verdict.ok { border-color: var(--ok); }
.verdict.warn { border-color: var(--warn); }
.verdict.bad { border-color: var(--bad); }
ul.verdicts { list-style: none; padding: 0; }
.figures { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0 1rem; padding: 0; }
.figure { flex: 1 1 8.5rem; max-width: 13rem; border: 1px solid var(--rule); border-radius: 4px; padding: .35rem .6rem; margin: 0; }
.figure dt { color: var(--muted); font-size: .85rem; }
.figure dd { margin: 0; font-size: 1.5rem; font-weight: bold; font-variant-numeric: tabular-nums; }
.figure .note { display: block; color: var(--muted); font-size: .8rem; font-weight: normal; }
.finding { margin: .4rem 0; max-width: 60rem; }
.whatifs td.name { white-space: nowrap; }
ul.whys { max-width: 60rem; padding-left: 1.2rem; }
ul.whys li { margin: .2rem 0; }
.scroll { overflow-x: auto; max-width: 100%; }
{{end}}
{{- define "answer"}}{{with .Answer}}
<div class="answer">
<p class="verdict {{.Tone}}">{{.Verdict}}</p>
<dl class="figures">
{{- range .Figures}}
<div class="figure"{{if .Key}} data-key="{{.Key}}" data-raw="{{.Raw}}"{{end}}><dt>{{.Label}}</dt><dd>{{.Value}}{{if .Note}}<span class="note">{{.Note}}</span>{{end}}</dd></div>
{{- end}}
</dl>
</div>
{{- end}}{{end}}
{{- define "explanation"}}
{{- if .Findings}}
<h3>Why the pool looks like this</h3>
<div class="findings">
{{- range .Findings}}
<p class="finding"><strong>{{.Title}}.</strong> {{.Text}}</p>
{{- end}}
</div>
{{- end}}
{{- with .WhatIfs}}
<h3>What would change it</h3>
<p class="finding">{{.Intro}}</p>
<div class="scroll">
<table class="whatifs">
<thead><tr><th></th>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr><td class="name">{{.Name}}</td>{{if .Error}}<td colspan="{{len $.WhatIfs.Columns}}">could not simulate: {{.Error}}</td>{{else}}{{range .Cells}}<td class="num">{{.}}</td>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
<ul class="whys">
{{- range .Rows}}{{if .Why}}
<li><strong>{{.Name}}</strong>: {{.Why}}{{if .Sets}} (<code>{{range $i, $s := .Sets}}{{if $i}} {{end}}--set {{$s}}{{end}}</code>){{end}}.</li>
{{- end}}{{end}}
</ul>
{{- end}}
{{- if .Explain}}
<h3>Why the pool looks like this</h3>
<pre class="explain">{{.Explain}}</pre>
{{- end}}
{{- end}}
{{- define "summary"}}
{{- if .Summary}}
<details class="summary">
<summary>Every summary figure ({{len .Summary}}{{if .Hidden}}; {{.Hidden}} of features this run did not use left out{{end}})</summary>
<table>
<thead><tr><th>summary.json</th><th>value</th></tr></thead>
<tbody>
{{- range .Summary}}
<tr><th><code>{{.Key}}</code></th><td{{if .Numeric}} class="num"{{end}} title="{{.Raw}}">{{.Value}}</td></tr>
{{- end}}
</tbody>
</table>
</details>
{{- end}}
{{- end}}`
