// Package report writes poolsim's report.html: one self-contained page per
// report holding, for each scenario, its summary table (summary.json's
// keys in file order), its charts, the `explain` text and the exact
// scenario YAML; with several scenarios, also a side-by-side summary table
// and the comparison charts overlaid (drawn with package plots from the
// scenarios' timelines).
//
// The page opens offline and references nothing outside itself: images are
// embedded as data:image/png;base64 URLs, the CSS is inline, there is no
// script, and links are #fragments within the page. It is well-formed
// XHTML-style markup (every void element self-closed), so it can be checked
// with encoding/xml. The same Report gives the same bytes.
package report
