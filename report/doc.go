// Package report writes poolsim's report.html: one self-contained page per
// report that leads with the answer. Each scenario's section opens with
// its verdict and headline figures in human units (Answer), then its
// charts, the explanation and the what-ifs, the full summary collapsed
// (summary.json's keys in file order, with units, without the figures of
// features the run did not use: SummaryRows), and the exact scenario YAML.
// With several scenarios a comparison comes first: the verdicts, the
// charts overlaid (drawn with package plots from the scenarios'
// timelines), then the headline figures and the summaries side by side.
// SectionParts gives poolsim serve the same answer, explanation and
// summary markup.
//
// The page opens offline and references nothing outside itself: images are
// embedded as data:image/png;base64 URLs, the CSS is inline, there is no
// script, and links are #fragments within the page. It is well-formed
// XHTML-style markup (every void element self-closed), so it can be checked
// with encoding/xml. The same Report gives the same bytes.
package report
