package datasets

// change is what a generated prediction did to its gold turn: the unit
// the annotation rubric judges. Greater values are worse; a turn records
// the worst of its changes.
type change int

// The changes a prediction can make, in order of severity.
const (
	unchanged          change = iota // the gold turn, word for word
	reworded                         // other words for the same thing: a paraphrased value, a reply in the agent's own wording, filler added or left out
	wrongValue                       // a value differs: another number, date, time, name, place, metric, condition
	factLeftOut                      // a reply leaves out a fact the gold reply states
	consumedWrongValue               // the turn carries an earlier wrong value along (a cascade)
	wrongKeys                        // a call drops a parameter or adds one
	wrongCall                        // a call names the wrong tool or action
	missingTurn                      // no prediction for the gold turn
	unexpectedTurn                   // a prediction with no gold turn
)

// acceptable is the rubric's verdict: what a careful annotator, reading
// the gold turn and the prediction, calls correct. See the package doc for
// the rubric in words.
func (c change) acceptable() bool { return c == unchanged || c == reworded }

// worst returns the more severe of two changes.
func worst(a, b change) change { return max(a, b) }
