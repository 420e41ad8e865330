// Package markdown quotes untrusted text (dialog ids, tool, action and
// parameter names, values) into the Markdown aem writes, so that a viewer
// renders it as the text it is: never as HTML (`<svg onload=...>` stays
// text in viewers that render HTML), a link, emphasis, or a table cell's
// end.
//
// [Code] makes an inline code span, whose content no viewer interprets;
// [Text] escapes plain text with backslashes. Both show control
// characters and line breaks as escapes (package visible), so one value
// stays on one line. In a GitHub table a pipe ends the cell even inside a
// code span; [CodeCell] and [Text] escape it there, and [Code] leaves it
// alone, where a backslash would show.
package markdown
