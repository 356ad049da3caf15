package classify

// Colors gives each class a fixed colour from Paul Tol's colour-blind safe
// "muted" scheme, neighbours in the first-match order told apart by hue and
// lightness; the two classes that are no reply at all are greys, and answer
// the palest grey, so the non-answers stand out. The report's charts and
// empties serve's pages draw every class in these.
var Colors = map[string]string{
	Error:          "#555555",
	NoChoices:      "#999999",
	Filtered:       "#882255",
	RefusalFlag:    "#CC6677",
	ErrorText:      "#AA4499",
	TruncatedEmpty: "#332288",
	ToolOnly:       "#117733",
	ReasoningOnly:  "#88CCEE",
	Silent:         "#DDCC77",
	TruncatedText:  "#44AA99",
	Answer:         "#DDDDDD",
}
