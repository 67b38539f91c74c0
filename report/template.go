package report

import "html/template"

// pageTmpl is report.html. It must stay self-contained (no URL but data:
// images and #fragments, no script) and well-formed XML (void elements
// self-closed): the tests parse it with encoding/xml and load it in a
// browser under a Content-Security-Policy that forbids every fetch.
var pageTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="generator" content="poolsim" />
<title>{{.Title}}</title>
<style>
:root { --ink: #1b1b1b; --muted: #5a5a5a; --rule: #d9d9d9; --band: #f5f5f5; --accent: #0072b2; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1280px; padding: 1.5rem 2rem 4rem; color: var(--ink); background: #fff;
  font: 16px/1.5 "Liberation Sans", "DejaVu Sans", Arial, Helvetica, sans-serif; }
h1 { font-size: 1.8rem; margin: 0 0 .5rem; }
h2 { font-size: 1.4rem; margin: 2.5rem 0 .5rem; padding-top: .5rem; border-top: 3px solid var(--accent); }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; color: var(--muted); }
nav ol { margin: .25rem 0 0; padding-left: 1.5rem; }
a { color: var(--accent); }
table { border-collapse: collapse; margin: .5rem 0; font-size: .95rem; }
th, td { border-bottom: 1px solid var(--rule); padding: .2rem .8rem .2rem 0; text-align: left; vertical-align: top; }
td.num { text-align: right; font-family: "Liberation Mono", "DejaVu Sans Mono", monospace; }
thead th { border-bottom: 2px solid var(--ink); }
tbody tr:nth-child(even) { background: var(--band); }
.summary table { min-width: 28rem; }
figure { margin: 1rem 0 2rem; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid var(--rule); }
figcaption { color: var(--muted); font-size: .95rem; margin-top: .3rem; }
pre { background: var(--band); border: 1px solid var(--rule); padding: .75rem 1rem; overflow-x: auto;
  font: 14px/1.45 "Liberation Mono", "DejaVu Sans Mono", monospace; white-space: pre; }
pre.explain { white-space: pre-wrap; }
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
<table>
<thead><tr><th>summary</th>{{range .Names}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Table}}
<tr><th>{{.Key}}</th>{{$num := .Numeric}}{{range .Values}}<td{{if $num}} class="num"{{end}}>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- range .Comparisons}}
<figure id="{{.ID}}">
<img src="{{.Src}}" width="{{.Width}}" height="{{.Height}}" alt="{{.Caption}}" />
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
</section>
{{- end}}
{{- range .Scenarios}}
<section id="{{.ID}}">
<h2>{{.Name}}</h2>
{{- if .Summary}}
<h3>Summary</h3>
<div class="summary">
<table>
<tbody>
{{- range .Summary}}
<tr><th>{{.Key}}</th><td{{if .Numeric}} class="num"{{end}}>{{.Value}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
{{- if .Images}}
<h3>Charts</h3>
{{- range .Images}}
<figure id="{{.ID}}">
<img src="{{.Src}}" width="{{.Width}}" height="{{.Height}}" alt="{{.Caption}}" />
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
{{- end}}
{{- if .Explain}}
<h3>Why the pool looks like this</h3>
<pre class="explain">{{.Explain}}</pre>
{{- end}}
<h3>Scenario file</h3>
<pre><code>{{.YAML}}</code></pre>
</section>
{{- end}}
</body>
</html>
`))
